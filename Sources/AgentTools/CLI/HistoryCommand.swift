import AgentCore
import DecimalText
import FoundationEssentials

/// `wcs-agent history [--json] [--limit N] [--state-dir DIR | --config FILE]`: reads the call
/// journal directly (no daemon needed) and prints a table, newest last, or JSON lines.
enum HistoryCommand {
    static let spec = ArgumentSpec(valueFlags: ["--state-dir", "--config", "--limit"], booleanFlags: ["--json"])

    static func run(_ arguments: [String]) -> Int32 {
        let parsed: ParsedArguments
        let limit: Int?
        do {
            parsed = try ParsedArguments(arguments, spec: spec)
            if let extra = parsed.positional.first { throw UsageError("unexpected argument \"\(extra)\"") }
            if let text = parsed.value("--limit") {
                guard let n = Int(text), n > 0 else { throw UsageError("--limit needs a positive number") }
                limit = n
            } else {
                limit = nil
            }
        } catch {
            CLI.printError("wcs-agent history: \(error)")
            return ExitCode.usage.rawValue
        }
        do {
            let store = CallRecordStore(directory: try stateDirectory(parsed))
            var records = try store.read()
            if let limit { records = Array(records.suffix(limit)) }
            if parsed.has("--json") {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                // JSONEncoder leaves DEL, C1 and bidi characters raw; the lines go through JSONValue's writer, which escapes them.
                for record in records {
                    let line = String(decoding: try encoder.encode(record), as: UTF8.self)
                    print((try? JSONValue.parse(line).serialized()) ?? line)
                }
            } else {
                print(table(records))
            }
            return ExitCode.ok.rawValue
        } catch {
            CLI.printError("wcs-agent history: \(error)")
            return ExitCode.failure.rawValue
        }
    }

    /// `--state-dir`, else the config file's `[agent] state_dir`, else `$STATE_DIRECTORY`, else the default.
    static func stateDirectory(_ parsed: ParsedArguments) throws -> String {
        if let dir = parsed.value("--state-dir") { return dir }
        if let file = parsed.value("--config") {
            let config = try ConfigFile.load(path: file)
            if let dir = try config.section("agent").path("state_dir") { return dir }
        }
        return ConfigLoader.firstDirectory(ProcessInfo.processInfo.environment["STATE_DIRECTORY"]) ?? AgentConfig.defaultStateDirectory
    }

    /// One line per call: start time, direction, party, duration, end result, media. The party and the
    /// codec come from the far end: escaped (`UntrustedText`), so a record cannot drive the terminal.
    static func table(_ records: [CallRecord]) -> String {
        guard !records.isEmpty else { return "no calls recorded" }
        let pad = CallTableFormatter.pad
        var lines = ["STARTED                   DIR  PARTY                     TIME    RESULT              MEDIA"]
        for r in records {
            let number = (r.direction == "outgoing" ? r.callee : r.caller) ?? "?"
            let party = UntrustedText.escaped(r.displayName.map { $0 == number ? number : "\($0) <\(number)>" } ?? number)
            let seconds = Int(r.duration)
            let media = r.media.map { "\(UntrustedText.escaped($0.codec ?? "?")) tx \($0.packetsSent) rx \($0.packetsReceived) lost \($0.packetsLost)" } ?? "-"
            lines.append([pad(CallRecordDates.format(r.started), 25), pad(r.direction == "outgoing" ? "out" : "in", 4), pad(party, 25),
                          pad("\(seconds / 60):\(DecimalText.zeroPadded(seconds % 60, width: 2))", 7), pad(r.endResult.rawValue, 19), media].joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }
}
