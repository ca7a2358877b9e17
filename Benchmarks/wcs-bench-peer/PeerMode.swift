import AudioPipe
import MediaBenchmarks
import Foundation

/// How wcs-bench-peer makes its calls' audio, chosen once from the command line.
///
/// - `full` (default): a 440 Hz tone encoded every 20 ms, every received packet decoded: the same
///   work as any AudioPipe call (the AudioPipe-alone answerer is measured this way).
/// - `cheap` (`--cheap [--verify-every N]`): the far ends of the scaling bench. Two seconds of the tone
///   are Opus-encoded once at start and replayed by every call; one received packet in N (50 by
///   default, and the first) is decoded to prove the agent sends real Opus, the others only have
///   their TOC byte checked. ICE, DTLS-SRTP, RTP/RTCP and the jitter buffer are unchanged.
///
/// Built on the main thread before any call; immutable, shared with the `PeerCalls` actor.
enum PeerMode: Sendable {
    case full
    case cheap(CallMediaBenchmark.PreEncodedOpus, verifyEvery: Int)

    /// Every call's settings: ICE-controlling on 127.0.0.1, Opus only, the AudioPipe defaults.
    static let callConfiguration = CallMediaConfiguration(
        ice: ICEConfiguration(controlling: true, localAddresses: ["127.0.0.1"]), codecs: [.opus])

    static let usage = """
        usage: wcs-bench-peer [--cheap [--verify-every N]]
        JSON-lines commands on stdin (see PeerCommand.swift); replies and events on stdout.
          --cheap            replay pre-encoded Opus, decode only 1 received packet in N (scaling far ends)
          --verify-every N   with --cheap: decode the first and every Nth received packet (default 50)
        """

    /// Parses `arguments` (without the program name); throws `PeerUsageError` on anything else.
    static func parse(_ arguments: [String]) throws -> PeerMode {
        var cheap = false
        var verifyEvery = 50
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--cheap": cheap = true
            case "--verify-every":
                guard let text = rest.popFirst(), let value = Int(text), value >= 1 else {
                    throw PeerUsageError(message: "--verify-every needs a whole number ≥ 1")
                }
                verifyEvery = value
            default: throw PeerUsageError(message: "unknown argument \(argument)")
            }
        }
        guard cheap else { return .full }
        return .cheap(try CallMediaBenchmark.PreEncodedOpus(configuration: callConfiguration), verifyEvery: verifyEvery)
    }
}

/// A command line wcs-bench-peer does not understand.
struct PeerUsageError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
