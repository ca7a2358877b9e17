import AudioPipe
import FoundationEssentials
import Glibc
import MainLoop

/// The send path's CPU per packet, measured in one process (`wcs-bench --send-path`): two ICE
/// agents on 127.0.0.1, then the same 172-byte datagram sent N times through libnice
/// (`ICEAgent.send`: agent lock, GSocket message) and N times straight on the selected socket
/// (`sendMedia`: one `sendto`), in alternating blocks; and SRTP protection of a 160-byte payload
/// per profile. CPU time of the sending thread only (`CLOCK_THREAD_CPUTIME_ID`, user + system),
/// so the peer's receiving and other processes on a loaded machine stay out of the figure.
///
/// Runs on: a detached task for the sends (any thread, as the media clock would be), the loop for
/// the agents' setup and close.
public enum ICESendBenchmark {
    /// Microseconds of CPU per packet.
    public struct Result: Sendable {
        public var packets: Int
        public var libniceMicros: Double
        public var directMicros: Double
        /// SRTP protect, by profile name.
        public var protectMicros: [String: Double]
    }

    /// Sends `packets` datagrams each way (in 10 alternating blocks) and protects as many packets
    /// per SRTP profile. Throws when the agents do not connect or no direct route appears.
    public static func run(packets: Int = 20_000) async throws -> Result {
        let (first, second) = try await MainLoopActor.run {
            (try ICEAgent(configuration: ICEConfiguration(controlling: true, localAddresses: ["127.0.0.1"])),
             try ICEAgent(configuration: ICEConfiguration(controlling: false, localAddresses: ["127.0.0.1"])))
        }
        defer { Task { @MainLoopActor in first.close(); second.close() } }
        let firstLocal = try await first.gather()
        let secondLocal = try await second.gather()
        try await MainLoopActor.run {
            try first.setRemote(ufrag: secondLocal.ufrag, pwd: secondLocal.pwd, candidates: secondLocal.candidates)
            try second.setRemote(ufrag: firstLocal.ufrag, pwd: firstLocal.pwd, candidates: firstLocal.candidates)
        }
        let deadline = MonotonicTime.now() + 10
        while !first.hasDirectRoute {
            guard MonotonicTime.now() < deadline else { throw ICEError.gatheringFailed("no selected UDP socket within 10 s") }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        let datagram = [UInt8](repeating: 0x80, count: 172)
        let blocks = 10, perBlock = max(1, packets / blocks)
        let (libnice, direct) = await Task.detached {
            var libnice = 0.0, direct = 0.0
            for _ in 0..<blocks {
                libnice += threadCPU { for _ in 0..<perBlock { first.send(datagram) } }
                direct += threadCPU { for _ in 0..<perBlock { first.sendMedia(datagram) } }
            }
            return (libnice, direct)
        }.value
        let total = Double(blocks * perBlock)
        var protect: [String: Double] = [:]
        for profile in SRTPProfile.allCases {
            protect[profile.name] = try protectMicros(profile: profile, packets: packets)
        }
        return Result(packets: blocks * perBlock, libniceMicros: libnice * 1e6 / total, directMicros: direct * 1e6 / total,
                      protectMicros: protect)
    }

    /// CPU per `protectRTP` of a 12 + 160-byte RTP packet, the buffer reused as in the engine.
    private static func protectMicros(profile: SRTPProfile, packets: Int) throws -> Double {
        let sender = try SRTPSender(profile: profile, key: [UInt8](repeating: 7, count: profile.keyLength),
                                    salt: [UInt8](repeating: 9, count: profile.saltLength))
        var packet: [UInt8] = []
        packet.reserveCapacity(1_500)
        var failure: SRTPError?
        let seconds = threadCPU {
            for index in 0..<packets {
                packet.removeAll(keepingCapacity: true)
                packet.append(contentsOf: [0x80, 111, UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF), 0, 0, 0, 0, 1, 2, 3, 4])
                packet.append(contentsOf: repeatElement(0x55, count: 160))
                do throws(SRTPError) { try sender.protectRTP(&packet) } catch { failure = error }
            }
        }
        if let failure { throw failure }
        return seconds * 1e6 / Double(packets)
    }

    /// CPU seconds (user + system) this thread spent in `body`.
    private static func threadCPU(_ body: () -> Void) -> Double {
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }
}
