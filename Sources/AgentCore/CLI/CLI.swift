import Foundation
import MainLoop
import WCSSession

/// The `wcs-agent` command line: `run` starts the daemon; the other verbs talk to it.
public enum CLI {
    static let usage = """
    usage: wcs-agent <verb> [flags]

    Daemon:
      run [--config FILE] [flags]   hold a WCS session in the foreground (what systemd starts)
                                    see `wcs-agent run --help` and docs/config.md for flags

    Talking to a running daemon (flags: --socket PATH | --line NAME | --config FILE):
      status [--json]               state, server, connected since, token age, registration, calls
      status --all [--json]         the same for every line running on this host
      reconnect                     bring the session back now (what a push handler runs);
                                    exit 0 when the session is back, 4 when it is not
      reconnect --payload FILE|-    the same for a raw push {"id","uuid","handle"}: once per call id;
                                    a call that ended meanwhile is recorded as missed, not rung
      sleep                         close the socket on purpose; the server keeps the session
      events [--json]               follow the daemon's events until interrupted
      answer [CALL]                 answer a ringing call (default: the oldest) with the configured audio
      decline [CALL]                decline a ringing call
      hangup [CALL]                 end a call (default: the one in progress)
      call NUMBER                   call NUMBER with the configured audio
      hold [CALL]                   put a call on hold (default: the one in progress)
      resume [CALL]                 take a held call off hold (holds any other call in progress)
      mute [CALL] / unmute [CALL]   send silence instead of the audio source / stop doing so
      dtmf DIGITS [--type rfc2833|info] [--call CALL]
                                    send DTMF (rfc2833: in-band RFC 4733, the default; info: SIP INFO)
      transfer TARGET [--call CALL] blind-transfer a call to TARGET (progress shows in `events`)
      calls [--json]                list calls: state, direction, party, duration, mute/hold, media

    Without a daemon:
      history [--json] [--limit N] [--state-dir DIR | --config FILE]
                                    finished calls from the call journal (calls.jsonl in the state dir)

    The ringing terminal:
      prompt [--ring-timeout S]     attach this terminal: rings on calls, one-key answer/hangup/hold/
                                    mute/DTMF/transfer, q detaches (daemon and calls keep running);
                                    when the daemon restarts it waits and attaches again

      --version, help

    A line is one daemon of several on a host (systemd: wcs-agent@NAME.service); --line NAME or
    $WCS_AGENT_LINE=NAME talks to /run/wcs-agent/NAME/control.sock.

    Exit codes: 0 ok, 1 error, 2 usage, 3 no daemon running, 4 session not back.
    """

    /// Runs the command line `arguments` (without the program name); returns the exit code.
    public static func main(_ arguments: [String]) async -> Int32 {
        guard let verb = arguments.first else {
            printError(usage)
            return ExitCode.usage.rawValue
        }
        let rest = Array(arguments.dropFirst())
        switch verb {
        case "run":
            return await DaemonCommand.run(rest)
        case "status", "reconnect", "sleep", "events", "answer", "decline", "hangup", "call",
             "hold", "resume", "mute", "unmute", "dtmf", "transfer", "calls":
            return await ClientCommands.run(verb: verb, rest)
        case "history":
            return HistoryCommand.run(rest)
        case "prompt":
            return await PromptCommand.run(rest)
        case "--version", "version":
            print("wcs-agent \(AgentCore.version)")
            return ExitCode.ok.rawValue
        case "help", "--help", "-h":
            print(usage)
            return ExitCode.ok.rawValue
        default:
            printError("wcs-agent: unknown verb \"\(verb)\"\n\n\(usage)")
            return ExitCode.usage.rawValue
        }
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }
}
