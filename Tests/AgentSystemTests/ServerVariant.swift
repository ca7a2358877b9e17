import Foundation
import Testing
import TestSupport

/// One server behaviour the emulator can play (Tests/Emulator/README.md "Server variants"), as a
/// test-matrix argument: the emulator flags that select it, and what the agent does wrong with it
/// today (issue 8) while the fix is not in.
///
/// Used from the test threads of `ServerVariantMatrixTests`; a plain value, hence Sendable.
struct ServerVariant: Sendable, CustomTestStringConvertible {
    /// Short name shown in test output.
    let name: String
    /// Extra emulator flags.
    let arguments: [String]
    /// The emulator's media engine.
    var media: EmulatorProcess.Media = .fixed
    /// Why the agent fails a matrix test with this variant today, keyed by test (`Check`); nil = it must pass.
    var knownIssues: [Check: String] = [:]
    /// True when the known issues depend on timing (they may not show on every run).
    var intermittent = false

    /// The matrix tests, for `knownIssues`.
    enum Check: Sendable {
        case loginAndResume, refusedToken, pushedCallEnded, callWithMedia, detachedCallEnd
    }

    var testDescription: String { name }

    /// The known issue of `check` with this variant, if any.
    func knownIssue(_ check: Check) -> String? { knownIssues[check] }

    // MARK: - The variants

    static let standard = ServerVariant(name: "standard", arguments: [])
    static let resumeRegistered = ServerVariant(name: "registered re-sent on resume",
                                                arguments: ["--resume-registered", "yes"])
    static let rotatedToken = ServerVariant(name: "token rotated on resume", arguments: ["--resume-token", "rotate"])
    static let registeredFirst = ServerVariant(
        name: "registered before getUserData", arguments: ["--registered-order", "before", "--resume-registered", "yes"])
    static let slowConnection = ServerVariant(name: "connection answered after 3 s",
                                              arguments: ["--connection-delay", "3"])
    static let dropAt0ms = ServerVariant(
        name: "drop right after the resume's getUserData", arguments: ["--resume-drop-ms", "0", "--resume-drop-count", "1"])
    static let dropAt20ms = ServerVariant(
        name: "drop 20 ms after the resume's getUserData", arguments: ["--resume-drop-ms", "20", "--resume-drop-count", "1"])
    static let dropAt5ms = ServerVariant(
        name: "drop 5 ms after the resume's getUserData", arguments: ["--resume-drop-ms", "5", "--resume-drop-count", "1"])
    static let dropAt200ms = ServerVariant(name: "drop 200 ms after the resume's getUserData",
                                           arguments: ["--resume-drop-ms", "200", "--resume-drop-count", "1"])
    static let badTokenNewSession = ServerVariant(name: "bad token: new session", arguments: ["--bad-token", "new-session"])
    static let badTokenClose = ServerVariant(name: "bad token: bare close", arguments: ["--bad-token", "close"])
    static let detachedFinishReplay = ServerVariant(name: "finish of detached calls replayed",
                                                    arguments: ["--detached-finish", "replay"])
    static let noSessionId = ServerVariant(name: "getUserData without sessionId", arguments: ["--session-id", "omit"])
    static let noSessionIdRotated = ServerVariant(name: "no sessionId, token rotated on resume",
                                                  arguments: ["--session-id", "omit", "--resume-token", "rotate"])
    static let tokenOnce = ServerVariant(name: "token valid once", arguments: ["--resume-token", "once"])
    static let tokenOnceDropAt0ms = ServerVariant(
        name: "token valid once, drop right after the resume's getUserData",
        arguments: ["--resume-token", "once", "--resume-drop-ms", "0", "--resume-drop-count", "1"])
    static let restartForgets = ServerVariant(name: "forgets every session on restart", arguments: ["--restart-sessions", "forget"])
    static let restartKeeps = ServerVariant(name: "keeps sessions across a restart", arguments: ["--restart-sessions", "keep"])
    static let webrtc = ServerVariant(name: "standard WebRTC leg", arguments: [], media: .webrtc)
    static let iceLite = ServerVariant(name: "ICE-lite WebRTC leg", arguments: ["--ice-lite"], media: .webrtc)
    static let webrtcReplay = ServerVariant(name: "WebRTC, finish of detached calls replayed",
                                            arguments: ["--detached-finish", "replay"], media: .webrtc)
}
