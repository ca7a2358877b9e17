@testable import AudioPipe
import Foundation
import MainLoop
#if canImport(Glibc)
import Glibc
#endif

/// Helpers shared by the ICE test suites: loopback agents, state and datagram recorders.
enum ICETestSupport {
    /// A loopback-only configuration.
    static func configuration(controlling: Bool, connectTimeout: Double = 10) -> ICEConfiguration {
        ICEConfiguration(controlling: controlling, localAddresses: ["127.0.0.1"], connectTimeout: connectTimeout)
    }

    /// Waits until `condition` holds, polling every 10 ms; false after `timeout` seconds.
    /// Runs in the caller's isolation (the loop for the ICE suites), so `condition` may read it.
    static func wait(timeout: Double = 10, isolation: isolated (any Actor)? = #isolation,
                     until condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// A datagram of `length` bytes: a first byte in the RTP range, the tag, the index, a pattern.
    static func datagram(tag: UInt8, index: Int, length: Int = 172) -> [UInt8] {
        var bytes: [UInt8] = [0x80, tag, UInt8(index >> 8), UInt8(index & 0xFF)]
        while bytes.count < length { bytes.append(UInt8((bytes.count * 31 + index) & 0xFF)) }
        return bytes
    }

    /// A UDP port on 127.0.0.1 that was just free: bound, read and closed again.
    static func closedUDPPort() -> Int {
        let socket = ICESilentUDPSocket()
        let port = socket.port
        socket.close()
        return port
    }

    /// A host candidate line for 127.0.0.1:`port`.
    static func loopbackCandidate(port: Int) -> ICECandidateLine {
        ICECandidateLine(foundation: "1", component: 1, transport: "udp", priority: 2_130_706_431,
                         address: "127.0.0.1", port: port, type: .host)
    }

    /// The number of open file descriptors of this process.
    static func openDescriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }
}

/// Records an agent's states and datagrams (callbacks arrive on the loop thread).
final class ICERecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var stateList: [ICEState] = []
    private var datagramList: [[UInt8]] = []
    private var callbacksAfterClose = 0

    /// Installs both callbacks on `agent`; `then` hooks run after recording (on the loop thread).
    @MainLoopActor
    func attach(to agent: ICEAgent, thenOnState: (@MainLoopActor (ICEState) -> Void)? = nil,
                thenOnDatagram: (@MainLoopActor ([UInt8]) -> Void)? = nil) {
        agent.onStateChange = { [self] state in
            lock.withLock {
                if stateList.last == .closed { callbacksAfterClose += 1 }
                stateList.append(state)
            }
            thenOnState?(state)
        }
        agent.onReceive = { [self] datagram in
            lock.withLock {
                if stateList.last == .closed { callbacksAfterClose += 1 }
                datagramList.append(datagram)
            }
            thenOnDatagram?(datagram)
        }
    }

    var states: [ICEState] { lock.withLock { stateList } }
    var datagrams: [[UInt8]] { lock.withLock { datagramList } }
    var lateCallbacks: Int { lock.withLock { callbacksAfterClose } }
    var isReady: Bool { states.contains(.ready) }
    var failureCount: Int { states.filter { if case .failed = $0 { true } else { false } }.count }
}

/// Two loopback agents wired to each other (on the loop, like the agents).
@MainLoopActor
struct ICEAgentPair {
    let first: ICEAgent
    let second: ICEAgent
    let firstRecorder = ICERecorder()
    let secondRecorder = ICERecorder()
    /// Seconds each `gather()` took.
    var gatherSeconds: [Double] = []

    /// Creates, gathers and records a controlling `first` and a controlled `second`.
    static func make(firstControlling: Bool = true) async throws -> ICEAgentPair {
        let first = try ICEAgent(configuration: ICETestSupport.configuration(controlling: firstControlling))
        let second = try ICEAgent(configuration: ICETestSupport.configuration(controlling: !firstControlling))
        let pair = ICEAgentPair(first: first, second: second)
        pair.firstRecorder.attach(to: first)
        pair.secondRecorder.attach(to: second)
        return pair
    }

    /// Gathers both sides, then gives each the other's parameters (without candidates where asked).
    mutating func connect(firstGetsCandidates: Bool = true, secondGetsCandidates: Bool = true) async throws {
        let clock = ContinuousClock()
        var firstLocal: ICELocalParameters?
        var secondLocal: ICELocalParameters?
        let firstTime = try await clock.measure { firstLocal = try await first.gather() }
        let secondTime = try await clock.measure { secondLocal = try await second.gather() }
        gatherSeconds = [firstTime, secondTime].map(ICETestSupport.seconds)
        guard let firstLocal, let secondLocal else { return }
        try first.setRemote(ufrag: secondLocal.ufrag, pwd: secondLocal.pwd,
                            candidates: firstGetsCandidates ? secondLocal.candidates : [])
        try second.setRemote(ufrag: firstLocal.ufrag, pwd: firstLocal.pwd,
                             candidates: secondGetsCandidates ? firstLocal.candidates : [])
    }

    /// Waits until both agents are ready.
    func waitUntilReady(timeout: Double = 10) async -> Bool {
        await ICETestSupport.wait(timeout: timeout) { firstRecorder.isReady && secondRecorder.isReady }
    }

    func close() {
        first.close()
        second.close()
    }
}

extension ICETestSupport {
    /// `duration` in seconds.
    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

/// A UDP socket on 127.0.0.1 that never answers (a peer that has gone silent).
final class ICESilentUDPSocket: @unchecked Sendable {
    private var descriptor: Int32
    /// The bound port.
    let port: Int

    init() {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                _ = bind(descriptor, raw, length)
                _ = getsockname(descriptor, raw, &length)
            }
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }
}
