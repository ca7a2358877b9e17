@testable import AudioPipe
import Foundation

/// Two `DTLSTransport`s wired back to back in-process: each `send` queues the datagram for the
/// other side, and `run` delivers queues in a loop. When nothing is in flight and a side still
/// waits, it sleeps until the earliest OpenSSL retransmission timer (real time: OpenSSL 3.0's DTLS
/// timer reads the wall clock, so tests use a 50 ms initial timeout) and calls `handleTimeout()`.
final class DTLSLoopbackHarness {
    /// Decides whether to drop a datagram: sender role, the datagram, and its index among that
    /// sender's datagrams (0-based).
    typealias DropRule = (DTLSRole, [UInt8], Int) -> Bool

    let client: DTLSTransport
    let server: DTLSTransport
    private(set) var clientEvents: [DTLSTransport.Event] = []
    private(set) var serverEvents: [DTLSTransport.Event] = []
    /// Every datagram each side sent, dropped or not.
    private(set) var sentByClient: [[UInt8]] = []
    private(set) var sentByServer: [[UInt8]] = []
    private(set) var dropped = 0
    /// Timer expiries the loop waited for.
    private(set) var timeouts = 0

    private var toServer: [[UInt8]] = []
    private var toClient: [[UInt8]] = []
    private var drop: DropRule

    static let fastTimers = DTLSRetransmissionPolicy(initialTimeout: 0.05, maximumTimeout: 0.2)

    /// A pair of fresh certificates for tests that need distinct identities (generated once).
    static let clientCertificate = try! DTLSCertificate(commonName: "test-client")
    static let serverCertificate = try! DTLSCertificate(commonName: "test-server")

    init(
        clientProfiles: [SRTPProfile] = SRTPProfile.preferredOrder,
        serverProfiles: [SRTPProfile] = SRTPProfile.preferredOrder,
        clientExpects: DTLSFingerprint? = nil,
        serverExpects: DTLSFingerprint? = nil,
        mtu: Int = 1200,
        retransmission: DTLSRetransmissionPolicy = fastTimers,
        drop: @escaping DropRule = { _, _, _ in false }
    ) throws {
        let clientCertificate = Self.clientCertificate
        let serverCertificate = Self.serverCertificate
        self.drop = drop
        var deliverToServer: ([UInt8]) -> Void = { _ in }
        var deliverToClient: ([UInt8]) -> Void = { _ in }
        client = try DTLSTransport(
            role: .client, certificate: clientCertificate,
            remoteFingerprint: clientExpects ?? DTLSFingerprint(sdpValue: serverCertificate.fingerprint),
            profiles: clientProfiles, mtu: mtu, retransmission: retransmission,
            send: { deliverToServer($0) })
        server = try DTLSTransport(
            role: .server, certificate: serverCertificate,
            remoteFingerprint: serverExpects ?? DTLSFingerprint(sdpValue: clientCertificate.fingerprint),
            profiles: serverProfiles, mtu: mtu, retransmission: retransmission,
            send: { deliverToClient($0) })
        deliverToServer = { [unowned self] in self.carry($0, from: .client) }
        deliverToClient = { [unowned self] in self.carry($0, from: .server) }
        client.onEvent = { [unowned self] in self.clientEvents.append($0) }
        server.onEvent = { [unowned self] in self.serverEvents.append($0) }
    }

    /// Replaces the drop rule (e.g. to stop dropping after the handshake).
    func setDropRule(_ rule: @escaping DropRule) { drop = rule }

    private func carry(_ datagram: [UInt8], from sender: DTLSRole) {
        let index: Int
        if sender == .client {
            index = sentByClient.count
            sentByClient.append(datagram)
        } else {
            index = sentByServer.count
            sentByServer.append(datagram)
        }
        if drop(sender, datagram, index) {
            dropped += 1
            return
        }
        if sender == .client { toServer.append(datagram) } else { toClient.append(datagram) }
    }

    /// Injects a datagram as if `sender` had sent it (bypassing the drop rule).
    func inject(_ datagram: [UInt8], from sender: DTLSRole) {
        if sender == .client { toServer.append(datagram) } else { toClient.append(datagram) }
    }

    /// Starts both sides (server first) and runs until both reported an event or `maxRounds`
    /// loop rounds passed. Returns the rounds used.
    @discardableResult
    func run(maxRounds: Int = 60) async throws -> Int {
        server.start()
        client.start()
        return try await pump(until: { !self.clientEvents.isEmpty && !self.serverEvents.isEmpty }, maxRounds: maxRounds)
    }

    /// Delivers queued datagrams and drives timers until `done` holds with nothing in flight.
    @discardableResult
    func pump(until done: () -> Bool, maxRounds: Int = 60) async throws -> Int {
        var rounds = 0
        while rounds < maxRounds {
            rounds += 1
            deliverQueued()
            if done() { return rounds }
            let waits = [client.nextTimeout, server.nextTimeout].compactMap { $0 }
            guard let wait = waits.min() else { return rounds }  // nobody waits for anything
            try await Task.sleep(for: .seconds(min(wait, 0.5) + 0.001))
            timeouts += 1
            client.handleTimeout()
            server.handleTimeout()
        }
        return rounds
    }

    /// Delivers until both queues are empty.
    func deliverQueued() {
        while !toServer.isEmpty || !toClient.isEmpty {
            let forServer = toServer
            toServer.removeAll()
            forServer.forEach(server.receive)
            let forClient = toClient
            toClient.removeAll()
            forClient.forEach(client.receive)
        }
    }

    /// The keys of a `.connected` event, if that is the first event.
    static func keys(_ events: [DTLSTransport.Event]) -> SRTPKeyMaterial? {
        if case let .connected(keys) = events.first { return keys }
        return nil
    }
}
