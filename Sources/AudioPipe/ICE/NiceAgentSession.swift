import AudioSDP
import CNice
import FoundationEssentials
import Glibc
import MainLoop
import Synchronization

/// The libnice agent behind an `ICEAgent`: one `NiceAgent` with one stream of one component.
///
/// Runs on: the shared loop thread (`@MainLoopActor`), so the compiler keeps every libnice call
/// and every field on the thread that runs the agent's GLib context. The C callbacks enter with
/// `MainLoopActor.assumeIsolated` on that thread, or hop to it (see `NiceAgentCallbacks`). Only
/// `send`, `sendMedia`, `gather`'s DNS step and `selectedPair` are `nonisolated`: the media clock
/// thread sends from off the loop (libnice's send is thread-safe: it takes the agent's own lock;
/// see `send`; media goes straight to the selected pair's socket when it can: `sendMedia`) and
/// call records read the pair (a `Mutex`). Once a call's media flows, its sockets may move to
/// the media clock's context (`receiveOnMediaClock`): datagrams then go to the call's target on
/// that thread, never through this object (see `NiceMediaRoute`).
/// libnice gets an `Unmanaged` reference to this object as user data; it is released only in
/// `tearDown`, after the receive callback is detached and the signal handlers are disconnected,
/// so no C callback can reach a freed object (c-interop-notes pitfall 17).
@MainLoopActor
final class NiceAgentSession {
    enum Phase {
        case idle, gathering, gathered, checking
    }

    nonisolated let configuration: ICEConfiguration
    /// "agent #N", to tell several agents apart in the log.
    nonisolated let logName: String
    /// Whether datagrams may go out (connected or ready): read by `send` on any thread.
    private nonisolated let sendable = Atomic<Bool>(false)
    /// The pair libnice selected: written on the loop, read by call records on any thread.
    private nonisolated let selected = Mutex<ICESelectedPair?>(nil)
    /// The agent for `send` on any thread, and the selected pair's socket for `sendMedia`: set in
    /// `create` (the socket on each selected pair), cleared in `tearDown` before the agent is
    /// released, so no send reaches a freed agent or a closed descriptor.
    private nonisolated let sendTarget = Mutex<NiceSendTarget?>(nil)
    /// Media datagrams `sendMedia` put straight on the selected pair's socket.
    nonisolated let directSends = Atomic<Int>(0)
    /// libnice signals that arrived off the loop thread and were posted to it (for tests).
    nonisolated let signalsFromOffLoop = Atomic<Int>(0)

    private var stateHandler: (@MainLoopActor (ICEState) -> Void)?
    private var receiveHandler: (@MainLoopActor ([UInt8]) -> Void)?
    private var isClosed = false
    private var agent: OpaquePointer?
    private var streamID: guint = 0
    private var signalHandlers: [gulong] = []
    private var retainedByLibnice: Unmanaged<NiceAgentSession>?
    private var phase = Phase.idle
    private var lastReported: ICEState?
    private var gatherWaiter: ICEGatherWaiter?
    private var gatherTimer: LoopTimer?
    private var gatherStarted = ContinuousClock.now
    private var connectTimer: LoopTimer?
    /// The storage `received` reuses for every datagram.
    private var receivedDatagram: [UInt8] = []
    /// Which context the sockets are on (the loop's, or a media clock's).
    private var mediaRoute = NiceMediaRoute()

    init(configuration: ICEConfiguration) throws {
        try configuration.validate()
        self.configuration = configuration
        self.logName = "agent #\(Self.numbers.add(1, ordering: .relaxed).newValue)"
        try create()
    }

    // MARK: - Handlers and snapshots

    var onStateChange: (@MainLoopActor (ICEState) -> Void)? {
        get { stateHandler }
        set { if !isClosed { stateHandler = newValue } }
    }

    var onReceive: (@MainLoopActor ([UInt8]) -> Void)? {
        get { receiveHandler }
        set { if !isClosed { receiveHandler = newValue } }
    }

    nonisolated var selectedPair: ICESelectedPair? { selected.withLock { $0 } }

    /// Where `sendMedia` sends straight to ("host:port"); nil while media goes through libnice
    /// (for tests and diagnostics).
    nonisolated var directRemote: String? { sendTarget.withLock { $0?.direct?.remoteDescription } }

    /// Whether `sendMedia` sends straight on the selected pair's socket (for tests and diagnostics).
    nonisolated var hasDirectRoute: Bool { sendTarget.withLock { $0?.direct != nil } }

    /// Whether the sockets are on a media clock's context (for tests and diagnostics).
    var receivesOnMediaClock: Bool { mediaRoute.isOnMediaClock }

    /// A boolean property of the libnice agent, such as "upnp" (for tests and diagnostics);
    /// nil once closed.
    func booleanProperty(_ name: String) -> Bool? {
        agent.map { cnice_get_bool($0, name) != 0 }
    }

    // MARK: - Public operations

    /// Resolves STUN/TURN host names (blocking DNS, so off the loop), then gathers on the loop.
    /// A TURN server becomes one relay per address family of its name (see `ICEServerResolver`);
    /// `lookup` is getaddrinfo unless a test injects a name's addresses.
    nonisolated func gather(lookup: ICEServerResolver.Lookup = ICEServerResolver.system) async throws -> ICELocalParameters {
        let stun = try configuration.stunServer.map { server throws(ICEError) in
            ICEServerAddress(host: try ICEServerResolver.stunAddress(of: server.host, localAddresses: configuration.localAddresses,
                                                                     lookup: lookup), port: server.port)
        }
        let turn = try configuration.turnServers.flatMap { server throws(ICEError) in
            try ICEServerResolver.relayAddresses(of: server.host, lookup: lookup).map { address in
                var resolved = server
                resolved.host = address
                return resolved
            }
        }
        return try await gatherResolved(stun: stun, turn: turn)
    }

    private func gatherResolved(stun: ICEServerAddress?, turn: [TURNServer]) async throws -> ICELocalParameters {
        let waiter = ICEGatherWaiter()
        try startGathering(stun: stun, turn: turn, waiter: waiter)
        return try await waiter.value()
    }

    func setRemote(ufrag: String, pwd: String, candidates: [ICECandidateLine], iceLite: Bool) throws {
        try applyRemote(ufrag: ufrag, pwd: pwd, candidates: candidates, iceLite: iceLite)
    }

    /// Sends at once on the calling thread: the loop (DTLS) or the media clock (RTP, RTCP).
    /// `nice_agent_send` is thread-safe (libnice takes its agent lock, and drops it before it
    /// calls back into us, so the two locks never nest the other way round). Sending here instead
    /// of posting a job to the loop saves, per packet, a wakeup of the loop thread (an eventfd
    /// write, a poll return and a read) and the job's allocations.
    nonisolated func send(_ datagram: [UInt8]) {
        guard !datagram.isEmpty, sendable.load(ordering: .acquiring) else { return }
        sendTarget.withLock { target in
            guard let target else { return }
            let sent = datagram.withUnsafeBytes { bytes in
                nice_agent_send(target.agent, target.streamID, 1, guint(bytes.count),
                                bytes.baseAddress?.assumingMemoryBound(to: gchar.self))
            }
            if sent < 0 { Log.debug("ice", "\(logName): send of \(datagram.count) bytes failed") }
        }
    }

    /// Sends an SRTP or SRTCP datagram (media clock thread): straight on the selected pair's UDP
    /// socket when libnice selected a pair whose local side is one (host, srflx, prflx), with one
    /// `sendto`; through `send` (libnice) otherwise: before a pair is selected, on a relayed or TCP
    /// pair, and after a send error other than a full buffer (the route is then dropped until
    /// the next selected pair). DTLS stays on `send`.
    nonisolated func sendMedia(_ datagram: [UInt8]) {
        guard !datagram.isEmpty, sendable.load(ordering: .acquiring) else { return }
        let direct: Bool = sendTarget.withLock { target in
            guard let route = target?.direct else { return false }
            switch datagram.withUnsafeBytes({ route.send($0) }) {
            case .sent:
                directSends.add(1, ordering: .relaxed)
                return true
            case .dropped:
                return true
            case .failed(let code):
                route.close()
                target?.direct = nil
                Log.notice("ice", "\(logName): direct send failed (errno \(code)); sending through libnice until the next selected pair")
                return false
            }
        }
        if !direct { send(datagram) }
    }

    func close() {
        tearDown()
    }

    /// Moves the sockets to `context` (a media clock's): from now on every datagram that is not
    /// STUN goes to `target` on the thread that drains it, not to `onReceive`. libnice still
    /// answers STUN there and keeps its timers on the loop. Ignored once closed or when moved.
    func receiveOnMediaClock(_ context: MediaReceiveContext, target: MediaReceiveTarget) {
        guard !isClosed, let agent else { return }
        mediaRoute.moveToMediaClock(agent: agent, streamID: streamID, context: context, target: target)
        Log.info("ice", "\(logName): receiving on the media clock thread")
    }

    /// Moves the sockets back to the loop (datagrams to `onReceive` again), after the media
    /// clock's drain in progress, if any. Ignored unless they are on a media clock's context.
    func receiveOnLoop() {
        guard !isClosed, let agent, let userData = retainedByLibnice?.toOpaque(), mediaRoute.isOnMediaClock else { return }
        mediaRoute.moveToLoop(agent: agent, streamID: streamID, userData: userData)
        Log.debug("ice", "\(logName): receiving on the loop thread again")
    }

    // MARK: - Loop thread: setup

    private func create() throws {
        let options = configuration.keepaliveConsent ? NICE_AGENT_OPTION_CONSENT_FRESHNESS : NICE_AGENT_OPTION_NONE
        guard let agent = nice_agent_new_full(MainLoopActor.loop.context, NICE_COMPATIBILITY_RFC5245, options) else {
            throw ICEError.agentCreationFailed
        }
        cnice_set_bool(agent, "upnp", 0)
        cnice_set_bool(agent, "controlling-mode", configuration.controlling ? 1 : 0)
        cnice_set_bool(agent, "ice-udp", 1)
        cnice_set_bool(agent, "ice-tcp", configuration.iceTCP ? 1 : 0)
        cnice_set_bool(agent, "keepalive-conncheck", configuration.keepaliveConsent ? 1 : 0)
        cnice_set_bool(agent, "force-relay", configuration.relayOnly ? 1 : 0)
        do {
            for entry in configuration.localAddresses {
                try NiceLocalAddress.add(entry, to: agent)
            }
            if configuration.localAddresses.isEmpty && !configuration.includeLinkLocal {
                NiceLocalAddress.addAllButLinkLocal(to: agent)
            }
        } catch {
            cnice_agent_unref(agent)
            throw error
        }
        let streamID = nice_agent_add_stream(agent, 1)
        guard streamID != 0 else {
            cnice_agent_unref(agent)
            throw ICEError.agentCreationFailed
        }
        let reference = Unmanaged.passRetained(self)
        let userData = reference.toOpaque()
        self.agent = agent
        self.streamID = streamID
        self.retainedByLibnice = reference
        sendTarget.withLock { $0 = NiceSendTarget(agent: agent, streamID: streamID) }
        nice_agent_attach_recv(agent, streamID, 1, MainLoopActor.loop.context, niceReceive, userData)
        signalHandlers = [
            cnice_connect_component_state_changed(agent, niceComponentStateChanged, userData),
            cnice_connect_candidate_gathering_done(agent, niceCandidateGatheringDone, userData),
            cnice_connect_new_selected_pair(agent, niceNewSelectedPair, userData),
        ]
        Log.debug("ice", "\(logName): created (\(configuration.controlling ? "controlling" : "controlled"), "
            + "local addresses \(configuration.localAddresses), consent \(configuration.keepaliveConsent))")
    }

    private func startGathering(stun: ICEServerAddress?, turn: [TURNServer], waiter: ICEGatherWaiter) throws {
        guard let agent else { throw ICEError.closed }
        guard phase == .idle else { throw ICEError.invalidState("gather() was already called") }
        if let stun {
            cnice_set_string(agent, "stun-server", stun.host)
            cnice_set_uint(agent, "stun-server-port", guint(stun.port))
        }
        for server in turn {
            guard nice_agent_set_relay_info(agent, streamID, 1, server.host, guint(server.port), server.username,
                                            server.password, server.transport.niceRelayType) != 0 else {
                throw ICEError.gatheringFailed("libnice refused TURN server \(server)")
            }
        }
        phase = .gathering
        gatherWaiter = waiter
        gatherStarted = .now
        gatherTimer = MainLoopActor.loop.schedule(after: configuration.gatherTimeout) { [weak self] in
            MainLoopActor.assumeIsolated { self?.finishGathering(timedOut: true) }
        }
        guard nice_agent_gather_candidates(agent, streamID) != 0 else {
            phase = .idle
            gatherWaiter = nil
            gatherTimer?.cancel()
            throw ICEError.gatheringFailed("libnice has no usable local address")
        }
    }

    private func finishGathering(timedOut: Bool) {
        guard phase == .gathering, let agent, let waiter = gatherWaiter else { return }
        phase = .gathered
        gatherWaiter = nil
        gatherTimer?.cancel()
        let elapsed = ContinuousClock.now - gatherStarted
        if timedOut {
            Log.notice("ice", "\(logName): gathering not finished after \(configuration.gatherTimeout) s; using the candidates found so far")
        }
        var ufrag: UnsafeMutablePointer<gchar>?
        var pwd: UnsafeMutablePointer<gchar>?
        defer {
            g_free(ufrag)
            g_free(pwd)
        }
        guard nice_agent_get_local_credentials(agent, streamID, &ufrag, &pwd) != 0, let ufrag, let pwd else {
            waiter.finish(.failure(.gatheringFailed("libnice has no local credentials")))
            return
        }
        let candidates = localCandidates(agent: agent)
        guard !candidates.isEmpty else {
            waiter.finish(.failure(.gatheringFailed("no local candidate was gathered")))
            return
        }
        Log.info("ice", "\(logName): gathered \(candidates.count) candidate(s) in \(elapsed): "
            + candidates.map { "\($0.address):\($0.port) \($0.type.token)" }.joined(separator: ", "))
        waiter.finish(.success(ICELocalParameters(ufrag: String(cString: ufrag), pwd: String(cString: pwd),
                                                  candidates: candidates)))
    }

    /// Whether link-local candidates stay out of what we advertise (see `includeLinkLocal`).
    private var omitsLinkLocal: Bool { configuration.localAddresses.isEmpty && !configuration.includeLinkLocal }

    private func localCandidates(agent: OpaquePointer) -> [ICECandidateLine] {
        let list = nice_agent_get_local_candidates(agent, streamID, 1)
        defer { cnice_candidate_list_free(list) }
        var lines: [ICECandidateLine] = []
        var node = list
        while let current = node {
            if let data = current.pointee.data,
               let line = NiceCandidateConversion.candidateLine(agent: agent, candidate: data.assumingMemoryBound(to: NiceCandidate.self)),
               !(omitsLinkLocal && NiceLocalAddress.isLinkLocal(line.address)) {
                lines.append(line)
            }
            node = current.pointee.next
        }
        return lines
    }

    private func applyRemote(ufrag: String, pwd: String, candidates: [ICECandidateLine], iceLite: Bool) throws {
        guard let agent else { throw ICEError.closed }
        switch phase {
        case .idle, .gathering: throw ICEError.invalidState("setRemote() before gather() finished")
        case .checking: throw ICEError.invalidState("setRemote() was already called")
        case .gathered: break
        }
        guard !ufrag.isEmpty, !pwd.isEmpty, nice_agent_set_remote_credentials(agent, streamID, ufrag, pwd) != 0 else {
            throw ICEError.invalidRemoteCredentials
        }
        if iceLite && !configuration.controlling {
            // RFC 8445 section 6.1.1: a full agent is always controlling towards a lite peer.
            Log.info("ice", "\(logName): remote is ICE-lite; switching to controlling")
            cnice_set_bool(agent, "controlling-mode", 1)
        }
        var list: UnsafeMutablePointer<GSList>?
        defer { cnice_candidate_list_free(list) }
        for line in candidates {
            let isUDP = line.transport.lowercased() == "udp"
            guard line.component == 1, isUDP || configuration.iceTCP,
                  let candidate = NiceCandidateConversion.niceCandidate(agent: agent, streamID: streamID, line: line) else {
                Log.info("ice", "\(logName): ignoring remote candidate \(line.attributeValue)")
                continue
            }
            list = g_slist_append(list, candidate)
        }
        phase = .checking
        connectTimer = MainLoopActor.loop.schedule(after: configuration.connectTimeout) { [weak self] in
            MainLoopActor.assumeIsolated { self?.connectTimedOut() }
        }
        Log.info("ice", "\(logName): remote ufrag \(ufrag), \(g_slist_length(list)) usable candidate(s) of \(candidates.count)")
        report(.checking)
        if list != nil, nice_agent_set_remote_candidates(agent, streamID, 1, list) < 0 {
            Log.warning("ice", "\(logName): libnice refused the remote candidates")
        }
    }

    // MARK: - Loop thread: libnice events

    func componentStateChanged(streamID: guint, componentID: guint, state: guint) {
        guard !isClosed, streamID == self.streamID, componentID == 1, phase == .checking else { return }
        switch NiceComponentState(rawValue: state) {
        case NICE_COMPONENT_STATE_CONNECTING: report(.checking)
        case NICE_COMPONENT_STATE_CONNECTED: report(.connected)
        case NICE_COMPONENT_STATE_READY:
            connectTimer?.cancel()
            report(.ready)
        case NICE_COMPONENT_STATE_FAILED: fail(because: "libnice reported FAILED")
        default: break
        }
    }

    func gatheringDone(streamID: guint) {
        guard !isClosed, streamID == self.streamID else { return }
        finishGathering(timedOut: false)
    }

    func selectedPairChanged(streamID: guint, componentID: guint, pair: ICESelectedPair) {
        guard !isClosed, streamID == self.streamID, componentID == 1 else { return }
        selected.withLock { $0 = pair }
        Log.info("ice", "\(logName): selected pair \(pair.local.address):\(pair.local.port) \(pair.local.type.token) <-> "
            + "\(pair.remote.address):\(pair.remote.port) \(pair.remote.type.token)")
        refreshDirectRoute()
    }

    /// Takes the socket of libnice's current selected pair for `sendMedia` (or none: relayed, TCP,
    /// no pair), replacing and closing the previous one. On every selected pair (libnice's
    /// "new-selected-pair-full", the one place its selected pair changes: a first or a later,
    /// higher-priority nomination), so the route always follows the pair libnice's send would use.
    private func refreshDirectRoute() {
        guard !isClosed, let agent, !configuration.sendsThroughLibniceOnly else { return }
        let route = NiceDirectRoute.selected(agent: agent, streamID: streamID)
        let previous: NiceDirectRoute? = sendTarget.withLock { target in
            guard target != nil else { return route }  // closed meanwhile: close the new one
            defer { target?.direct = route }
            return target?.direct
        }
        previous?.close()
        guard route?.remoteDescription != previous?.remoteDescription else { return }
        if let route {
            Log.info("ice", "\(logName): media goes straight to \(route.remoteDescription) on the selected socket")
        } else {
            Log.info("ice", "\(logName): media goes through libnice (no selected UDP socket: relayed, TCP or none yet)")
        }
    }

    /// Stops direct sends at once (any thread): libnice reported FAILED (e.g. consent lost), and
    /// its own send refuses from now on too.
    nonisolated func dropDirectRoute() {
        sendTarget.withLock { target in
            target?.direct?.close()
            target?.direct = nil
        }
    }

    /// One datagram from libnice, copied into `received`'s storage, which is reused for the next
    /// one (no new array per packet unless the handler keeps the array it was given).
    func received(componentID: guint, bytes: UnsafeRawBufferPointer) {
        guard componentID == 1, !isClosed, let receiveHandler else { return }
        receivedDatagram.removeAll(keepingCapacity: true)
        receivedDatagram.append(contentsOf: bytes)
        receiveHandler(receivedDatagram)
    }

    private func connectTimedOut() {
        guard lastReported == .checking || lastReported == .connected else { return }
        fail(because: "no nominated pair within \(configuration.connectTimeout) s")
    }

    private func fail(because reason: String) {
        guard lastReported?.isTerminal != true else { return }
        connectTimer?.cancel()
        Log.warning("ice", "\(logName): failed: \(reason)")
        report(.failed(ICEState.failureReason))
    }

    /// Reports `state` once; keeps `failed`/`closed` terminal and never steps back from `ready`.
    private func report(_ state: ICEState) {
        if let last = lastReported {
            if last == state || last == .closed { return }
            if case .failed = last, state != .closed { return }
            if last == .ready, state == .checking || state == .connected { return }
        }
        lastReported = state
        sendable.store(state == .connected || state == .ready, ordering: .releasing)
        Log.debug("ice", "\(logName): state \(state)")
        stateHandler?(state)
    }

    // MARK: - Loop thread: data and teardown

    private func tearDown() {
        guard let agent else { return }
        self.agent = nil
        report(.closed)
        isClosed = true
        sendable.store(false, ordering: .releasing)
        let direct = sendTarget.withLock { target in  // waits for a send in progress on another thread
            defer { target = nil }
            return target?.direct
        }
        direct?.close()
        stateHandler = nil
        receiveHandler = nil
        gatherTimer?.cancel()
        connectTimer?.cancel()
        if let waiter = gatherWaiter {
            gatherWaiter = nil
            waiter.finish(.failure(.closed))
        }
        mediaRoute.moveToLoop(agent: agent, streamID: streamID, userData: nil)  // waits for the media clock's drain
        for handler in signalHandlers { cnice_disconnect(agent, handler) }
        signalHandlers = []
        // Frees TURN allocations; the task holds its own reference until it completes.
        nice_agent_close_async(agent, nil, nil)
        cnice_agent_unref(agent)
        retainedByLibnice?.release()
        retainedByLibnice = nil
        Log.debug("ice", "\(logName): closed")
    }

    // MARK: - Numbering

    /// Hands out 1, 2, 3, ... to name agents in the log.
    private nonisolated static let numbers = Atomic<Int>(0)
}

/// The libnice agent and stream `send` uses from any thread, and the selected pair's socket
/// `sendMedia` uses. `@unchecked`: a NiceAgent*, whose send is thread-safe; it is only used under
/// `NiceAgentSession.sendTarget`'s lock.
private struct NiceSendTarget: @unchecked Sendable {  // unchecked: a NiceAgent* (thread-safe send), used under a Mutex
    let agent: OpaquePointer
    let streamID: guint
    /// The selected pair's UDP socket, when libnice selected one (see `NiceDirectRoute`).
    var direct: NiceDirectRoute?
}

extension TURNServer.Transport {
    /// The libnice relay type.
    var niceRelayType: NiceRelayType {
        switch self {
        case .udp: NICE_RELAY_TYPE_TURN_UDP
        case .tcp: NICE_RELAY_TYPE_TURN_TCP
        case .tls: NICE_RELAY_TYPE_TURN_TLS
        }
    }
}
