#if canImport(Glibc)
import Glibc
#endif

/// The process's environment variables, read straight from `environ`.
///
/// What the lean `wcs-agent` front reads (socket path, line, protocol override) instead of
/// FoundationEssentials' `ProcessInfo.processInfo.environment`, whose first use (the ProcessInfo
/// object and its locked state) was measured at about 7 % of the front's whole process CPU
/// (perf, `wcs-agent --version`), paid once per default argument on a push handler's path.
/// Read anew at each use (the environment may change); any thread.
public enum ProcessEnvironment {
    /// Every `NAME=value` entry; the first wins when a name repeats (as getenv(3) does).
    public static var current: [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "="), variables[String(text[..<equals])] == nil {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return variables
    }
}
