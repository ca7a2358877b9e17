import WCSJSON

/// The call verbs of the table (see `ControlVerbs`); their handlers are AgentCore's `ControlHandlers`.
extension ControlVerbs {
    /// A verb acting on one call, named by an optional `CALL` argument.
    private static func callVerb(_ name: String, _ usage: String, _ summary: String, done: String) -> ControlVerb<CallArguments, CallResult> {
        ControlVerb(name: name, usage: usage, summary: summary, parse: CLIArguments.optionalCall, render: { "\(done) \($0.callId)" })
    }

    /// Answers a ringing call.
    public static let answer = callVerb("answer", "[CALL]", "answer a ringing call (default: the oldest) with the configured audio",
                                        done: "answered")
    /// Declines a ringing call.
    public static let decline = callVerb("decline", "[CALL]", "decline a ringing call", done: "declined")
    /// Ends a call.
    public static let hangup = callVerb("hangup", "[CALL]", "end a call (default: the one in progress)", done: "hung up")
    /// Puts a call on hold.
    public static let hold = callVerb("hold", "[CALL]", "put a call on hold (default: the one in progress)", done: "holding")
    /// Takes a call off hold.
    public static let resume = callVerb("resume", "[CALL]", "take a held call off hold (holds any other call in progress)",
                                        done: "resumed")

    /// Places a call.
    public static let call = ControlVerb<DialArguments, CallResult>(
        name: "call", usage: "NUMBER", summary: "call NUMBER with the configured audio",
        parse: { DialArguments(number: try CLIArguments.one($0, "call needs a NUMBER")) },
        render: { "calling \($0.callId)" })

    private static func muteVerb(_ muted: Bool) -> ControlVerb<CallArguments, MuteResult> {
        ControlVerb(name: muted ? "mute" : "unmute", usage: "[CALL]",
                    summary: muted ? "send silence instead of the audio source" : "stop sending silence",
                    parse: CLIArguments.optionalCall,
                    render: { "\(muted ? "muted" : "unmuted") \($0.callId)" })
    }

    /// Sends silence on a call.
    public static let mute = muteVerb(true)
    /// Stops sending silence.
    public static let unmute = muteVerb(false)

    /// Sends DTMF digits.
    public static let dtmf = ControlVerb<DTMFArguments, DTMFResult>(
        name: "dtmf", usage: "DIGITS [--type rfc2833|info] [--call CALL]",
        summary: "send DTMF (rfc2833: in-band RFC 4733, the default; info: SIP INFO)",
        flags: ArgumentSpec(valueFlags: ["--type", "--call"]),
        parse: { parsed in
            let digits = try CLIArguments.one(parsed, "dtmf needs DIGITS")
            let type = parsed.value("--type")?.lowercased()
            if let type, DTMFMethod(rawValue: type) == nil { throw UsageError("--type must be rfc2833 or info") }
            return DTMFArguments(digits: digits, type: type ?? DTMFMethod.rfc2833.rawValue, callId: parsed.value("--call"))
        },
        render: { "sent DTMF \($0.digits) on \($0.callId) (\(String($0.via.map { $0 == "_" ? " " : $0 })))" })

    /// Blind-transfers a call.
    public static let transfer = ControlVerb<TransferArguments, TransferResult>(
        name: "transfer", usage: "TARGET [--call CALL]", summary: "blind-transfer a call to TARGET (progress shows in `events`)",
        flags: ArgumentSpec(valueFlags: ["--call"]), timeout: 15,
        parse: { TransferArguments(target: try CLIArguments.one($0, "transfer needs a TARGET"), callId: $0.value("--call")) },
        render: { "transferring \($0.callId) to \($0.target)" })

    /// Lists the calls.
    public static let calls = ControlVerb<NoArguments, CallsResult>(
        name: "calls", usage: "[--json]", summary: "list calls: state, direction, party, duration, mute/hold, media",
        parse: CLIArguments.none,
        render: { CallTableFormatter.table($0.calls) })
}
