import SystemSupport
import FoundationEssentials

/// The control protocol version exchanged in `hello`.
///
/// Version 1 was the wire before `hello` existed; version 2 added `hello` and `reload`. Bump it
/// whenever a change would make an older CLI misread a newer daemon (or the reverse): a removed or
/// renamed verb, argument or result field, or a changed meaning. Adding a verb or an optional field
/// does not need a bump. A client that sends `hello` with another version is refused with
/// `protocol_mismatch`; requests without `hello` (scripts) are still served.
public enum ControlProtocolVersion {
    /// The version this build speaks.
    public static let current = 2

    /// Tests only: debug builds let `WCS_AGENT_TEST_CONTROL_PROTOCOL` override the version a daemon
    /// or CLI claims, so a version skew can be exercised with the real binary. Release builds
    /// ignore it.
    public static func effective(environment: [String: String] = ProcessEnvironment.current) -> Int {
        #if DEBUG
        if let text = environment["WCS_AGENT_TEST_CONTROL_PROTOCOL"], let version = Int(text) { return version }
        #endif
        return current
    }
}
