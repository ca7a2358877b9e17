import Foundation
import WCSSession

/// Client side of the in-call verbs: `hold`, `resume`, `mute`, `unmute` `[CALL]`,
/// `dtmf DIGITS [--type rfc2833|info] [--call CALL]`, `transfer TARGET [--call CALL]`, `calls`.
enum CallControlCommands {
    /// Checks the verb's arguments before connecting.
    static func validate(verb: String, _ parsed: ParsedArguments) throws {
        if (verb == "dtmf" || verb == "transfer") && parsed.positional.isEmpty {
            throw UsageError(verb == "dtmf" ? "dtmf needs DIGITS" : "transfer needs a TARGET")
        }
        if let type = parsed.value("--type") {
            guard verb == "dtmf" else { throw UsageError("--type is only for dtmf") }
            guard DTMFMethod(rawValue: type.lowercased()) != nil else { throw UsageError("--type must be rfc2833 or info") }
        }
        if parsed.value("--call") != nil && verb != "dtmf" && verb != "transfer" {
            throw UsageError("--call is only for dtmf and transfer (give the call as the argument)")
        }
    }

    /// Sends the verb and prints the result; returns the exit code.
    static func run(verb: String, _ parsed: ParsedArguments, client: ControlClient, json: Bool, timeout: Double) throws -> Int32 {
        var args: [String: JSONValue] = [:]
        switch verb {
        case "dtmf":
            args["digits"] = .string(parsed.positional[0])
            args["type"] = .string(parsed.value("--type")?.lowercased() ?? DTMFMethod.rfc2833.rawValue)
            if let call = parsed.value("--call") { args["call_id"] = .string(call) }
        case "transfer":
            args["target"] = .string(parsed.positional[0])
            if let call = parsed.value("--call") { args["call_id"] = .string(call) }
        case "calls":
            break
        default:
            if let call = parsed.positional.first { args["call_id"] = .string(call) }
        }
        let result = try client.request(verb, args: .object(args), timeout: verb == "transfer" ? max(timeout, 15) : timeout)
        if json {
            print(result.serialized())
            return ExitCode.ok.rawValue
        }
        let id = result["call_id"]?.stringValue ?? ""
        switch verb {
        case "calls": print(table(result["calls"]?.arrayValue ?? []))
        case "hold": print("holding \(id)")
        case "resume": print("resumed \(id)")
        case "mute": print("muted \(id)")
        case "unmute": print("unmuted \(id)")
        case "dtmf": print("sent DTMF \(result["digits"]?.stringValue ?? "") on \(id) (\(result["via"]?.stringValue?.replacingOccurrences(of: "_", with: " ") ?? "?"))")
        default: print("transferring \(id) to \(result["target"]?.stringValue ?? "")")
        }
        return ExitCode.ok.rawValue
    }

    /// The `calls` table: one line per call.
    static func table(_ calls: [JSONValue]) -> String {
        guard !calls.isEmpty else { return "no calls" }
        var lines = ["CALL                                  DIR  STATE        PARTY                     TIME    FLAGS        MEDIA"]
        for call in calls {
            let direction = call["direction"]?.stringValue == "outgoing" ? "out" : "in"
            let party = call["direction"]?.stringValue == "outgoing" ? (call["callee"]?.stringValue ?? "?") : StatusFormatter.party(call)
            let seconds = call["duration_seconds"]?.stringValue.flatMap(Double.init).map { Int($0) }.map { String(format: "%d:%02d", $0 / 60, $0 % 60) } ?? "-"
            var flags: [String] = []
            if call["held"]?.boolValue == true { flags.append("held") }
            if call["muted"]?.boolValue == true { flags.append("muted") }
            var media = "-"
            if let stats = call["stats"] {
                media = "\(stats["codec"]?.stringValue ?? "?") tx \(stats["packets_sent"]?.intValue ?? 0) rx \(stats["packets_received"]?.intValue ?? 0) lost \(stats["packets_lost"]?.intValue ?? 0) jitter \(stats["jitter_ms"]?.stringValue ?? "?") ms"
            }
            lines.append([pad(call["call_id"]?.stringValue ?? "?", 37), pad(direction, 4), pad(call["status"]?.stringValue ?? "?", 12),
                          pad(party, 25), pad(seconds, 7), pad(flags.isEmpty ? "-" : flags.joined(separator: ","), 12), media].joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text.padding(toLength: width, withPad: " ", startingAt: 0)
    }
}
