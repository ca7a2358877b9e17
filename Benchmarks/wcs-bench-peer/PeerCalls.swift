import AudioPipe
import MediaBenchmarks
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The calls of wcs-bench-peer: one `CallMedia` per call id, offering as the SIP side would (we are
/// ICE-controlling) or answering another peer's offer, playing a 440 Hz tone into the call and
/// discarding what arrives.
///
/// Cheap (`--cheap`, the far ends of the scaling bench): every call replays the same pre-encoded
/// Opus tone and decodes only one received packet in `verifyEvery` (`CallMediaBenchmark.CheapCodecs`);
/// ICE, DTLS-SRTP, RTCP and the jitter buffer run as in any call. Full: a real tone, encoded and
/// decoded every 20 ms (the AudioPipe-alone answerer, which is measured).
///
/// An actor: commands arrive concurrently from the stdin loop; `CallMedia` itself is thread-safe.
actor PeerCalls {
    private let output: PeerOutput
    private var calls: [String: CallMedia] = [:]
    private var cheapCodecs: [String: CallMediaBenchmark.CheapCodecs] = [:]
    private let mode: PeerMode
    private let configuration = PeerMode.callConfiguration
    /// Every call ever opened, so that `closeAllNow` can end them from the main thread at exit.
    private nonisolated let registry = PeerRegistry()

    init(output: PeerOutput, mode: PeerMode) {
        self.output = output
        self.mode = mode
    }

    /// Runs one command (see `PeerCommand`).
    func handle(_ command: PeerCommand) async {
        switch (command.op, command.id) {
        case ("offer", let id?): await offer(id)
        case ("answer_offer", let id?): await answerOffer(id, sdp: command.sdp ?? "")
        case ("answer", let id?): await answer(id, sdp: command.sdp ?? "")
        case ("close", let id?):
            calls.removeValue(forKey: id)?.close()
            cheapCodecs[id] = nil
        case ("stats", _): stats()
        default: output.emit(["error": "unknown or incomplete command \(command.op)"])
        }
    }

    private func offer(_ id: String) async {
        guard let media = open(id) else { return }
        do {
            output.emit(["id": id, "offer": try await media.makeOffer()])
        } catch {
            output.emit(["id": id, "event": "failed", "reason": "\(error)"])
        }
    }

    /// The answering side (the agent's role), for the series that measures AudioPipe alone.
    private func answerOffer(_ id: String, sdp: String) async {
        guard let media = open(id) else { return }
        do {
            output.emit(["id": id, "answer": try await media.answer(offer: sdp)])
        } catch {
            output.emit(["id": id, "event": "failed", "reason": "\(error)"])
        }
    }

    private func open(_ id: String) -> CallMedia? {
        guard calls[id] == nil else {
            output.emit(["id": id, "event": "failed", "reason": "call id in use"])
            return nil
        }
        let media: CallMedia
        if case .cheap(let frames, let verifyEvery) = mode {
            let codecs = CallMediaBenchmark.CheapCodecs(frames: frames, verifyEvery: verifyEvery)
            var cheap = configuration
            cheap.codecFactory = codecs.factory
            cheapCodecs[id] = codecs
            media = CallMedia(configuration: cheap, source: SilenceSource(), sink: NullSink())  // the encoder ignores PCM
        } else {
            media = CallMedia(configuration: configuration, source: ToneSource(frequency: 440), sink: NullSink())
        }
        calls[id] = media
        registry.add(media)
        watch(id, media)
        return media
    }

    private func answer(_ id: String, sdp: String) async {
        guard let media = calls[id] else { return output.emit(["id": id, "event": "failed", "reason": "no such call"]) }
        do {
            try await media.applyAnswer(sdp)
        } catch {
            output.emit(["id": id, "event": "failed", "reason": "\(error)"])
        }
    }

    private nonisolated func watch(_ id: String, _ media: CallMedia) {
        let output = output
        Task {
            for await event in media.events {
                switch event {
                case .firstAudioDecoded:
                    let ms = media.statistics().firstAudioLatency.map { $0 * 1000 } ?? -1
                    output.emit(["id": id, "event": "first_audio", "ms": ms])
                case .failed(let failure): output.emit(["id": id, "event": "failed", "reason": "\(failure)"])
                default: continue
                }
            }
        }
    }

    private func stats() {
        let perCall: [[String: Any]] = calls.sorted { $0.key < $1.key }.map { id, media in
            let s = media.statistics()
            var call: [String: Any] = ["id": id, "sent": s.packetsSent, "received": s.packetsReceived, "lost": s.packetsLost,
                                       "jitter_ms": s.jitterMs, "late": s.latePackets, "concealed": s.concealedFrames]
            if let found = cheapCodecs[id]?.verification {
                call["verify"] = ["decoded": found.decoded, "checked": found.checked, "failed": found.failed,
                                  "quietest_db": found.quietestDB ?? -120, "loudest_db": found.loudestDB ?? -120]
            }
            return call
        }
        output.emit(["event": "stats", "cpu_seconds": Self.cpuSeconds(), "rss_kb": Self.rssKilobytes(), "calls": perCall])
    }

    /// Ends every call's media (called from the main thread at exit).
    nonisolated func closeAllNow() {
        registry.closeAll()
    }

    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    private static func rssKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}

/// Every `CallMedia` the peer made (a lock-protected list; read from the main thread at exit).
final class PeerRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [CallMedia] = []

    func add(_ media: CallMedia) { lock.withLock { all.append(media) } }

    func closeAll() {
        for media in lock.withLock({ all }) { media.close() }
    }
}
