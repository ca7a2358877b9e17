import CWebSockets
import MainLoop

/// Routes libwebsockets' own log lines into `Log` (subsystem "lws"): errors become warnings,
/// everything else debug. lws never prints to stderr on its own once this is installed.
enum LWSLogBridge {
    /// Installs the emitter (process-wide, idempotent; `static let` runs it exactly once).
    static func install() { _ = installed }

    private static let installed: Bool = {
        lws_set_log_level(LLL_ERR | LLL_WARN | LLL_NOTICE, lwsLogEmitter)
        return true
    }()
}

/// The emitter libwebsockets calls with each formatted line (newline-terminated).
private let lwsLogEmitter: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void = { level, line in
    guard let line else { return }
    var text = String(cString: line)
    while text.last?.isNewline == true || text.last == " " { text.removeLast() }
    guard !text.isEmpty else { return }
    if level & LLL_ERR != 0 {
        Log.warning("lws", text)
    } else {
        Log.debug("lws", text)
    }
}
