import AudioSDP
import MainLoop

/// ICE for one call's audio (RFC 8445 via libnice, RFC 5245 compatibility), one component
/// (rtcp-mux), on a shared GLib main loop.
///
/// Use: `gather()` our candidates, put them (or only ufrag/pwd) in the SDP, then
/// `setRemote(...)` with the peer's. States arrive through `onStateChange`; once `connected`,
/// `send` and `onReceive` carry datagrams on the selected pair. The caller demultiplexes
/// DTLS/RTP/RTCP by first byte (RFC 7983); STUN never reaches `onReceive`.
///
/// Failure (no nominated pair within `connectTimeout`, libnice FAILED, or lost RFC 7675
/// consent) is reported once as `.failed(ICEState.failureReason)`. Each call gets its own agent,
/// and agents do not share state. After `failed`, call `close()` (libnice keeps its sockets
/// until then); dropping the last reference closes the agent too.
///
/// Runs on: the shared loop thread (`@MainLoopActor`): every libnice call must run on the
/// thread of the GLib context the agent was made on, and the compiler now holds callers to
/// that. `gather()`, `send`, `sendMedia` and `selectedPair` are `nonisolated`: `gather()`
/// resolves server names off the loop first, and the media clock thread sends (in order) from
/// off the loop.
///
/// Towards a peer that gets no candidates from us (WCS style), leave `a=end-of-candidates` out
/// of the SDP: aioice/aiortc cannot complete with end-of-candidates and no candidate.
@MainLoopActor
public final class ICEAgent {
    /// The configuration the agent was created with.
    public nonisolated let configuration: ICEConfiguration
    /// The libnice side (internal so tests can inspect agent properties).
    nonisolated let session: NiceAgentSession

    /// Creates the libnice agent and its stream, and restricts host candidates to
    /// `configuration.localAddresses`. Throws `ICEError` for an invalid configuration, and
    /// `.libraryUnavailable` when libnice cannot be loaded (it loads here if nothing loaded it yet).
    public init(configuration: ICEConfiguration) throws {
        try NiceLibrary.require()
        self.configuration = configuration
        self.session = try NiceAgentSession(configuration: configuration)
    }

    /// Closes the agent on the loop (where the last reference is dropped, or soon after).
    isolated deinit {
        session.close()
    }

    /// Gathers local candidates and returns our ufrag, pwd and component-1 candidates.
    /// Resolves STUN/TURN host names first (blocking DNS, off the loop). Waits at most
    /// `configuration.gatherTimeout` for server-derived candidates. Call once.
    public nonisolated func gather() async throws -> ICELocalParameters {
        try await session.gather()
    }

    /// `gather()` with the STUN/TURN names' addresses from `lookup` instead of getaddrinfo
    /// (tests: a name resolving to both families without editing /etc/hosts).
    nonisolated func gather(lookup: @escaping ICEServerResolver.Lookup) async throws -> ICELocalParameters {
        try await session.gather(lookup: lookup)
    }

    /// Sets the peer's credentials and candidates and starts the connectivity checks (and the
    /// `connectTimeout` clock). `candidates` may be empty: the peer is then learned from its
    /// checks as peer-reflexive. Candidates libnice cannot use (component 2, TCP without
    /// `iceTCP`, host names such as mDNS `.local`) are skipped. `iceLite: true` (the peer's SDP
    /// has `a=ice-lite`) makes us controlling. Call once, after `gather()`.
    public func setRemote(ufrag: String, pwd: String, candidates: [ICECandidateLine], iceLite: Bool = false) throws {
        try session.setRemote(ufrag: ufrag, pwd: pwd, candidates: candidates, iceLite: iceLite)
    }

    /// Called with each state change: checking, connected, ready, then possibly
    /// failed(`ICEState.failureReason`), and closed from `close()`.
    public var onStateChange: (@MainLoopActor (ICEState) -> Void)? {
        get { session.onStateChange }
        set { session.onStateChange = newValue }
    }

    /// Called with every non-STUN datagram libnice accepts on the component (it drops
    /// datagrams from addresses that are not validated remote candidates).
    public var onReceive: (@MainLoopActor ([UInt8]) -> Void)? {
        get { session.onReceive }
        set { session.onReceive = newValue }
    }

    /// Sends one datagram on the selected pair. Safe from any thread (hops to the loop when
    /// needed, keeping order). Dropped silently unless the state is connected or ready.
    public nonisolated func send(_ datagram: [UInt8]) {
        session.send(datagram)
    }

    /// Sends one SRTP or SRTCP datagram from the media clock thread: with one `sendto` on the
    /// selected pair's UDP socket when its local candidate is host, srflx or prflx, else (before
    /// selection, relayed or TCP pairs, a send error) like `send`. Keep DTLS on `send`.
    public nonisolated func sendMedia(_ datagram: [UInt8]) {
        session.sendMedia(datagram)
    }

    /// Whether media goes straight on the selected pair's socket (a UDP pair, not relayed).
    package nonisolated var hasDirectRoute: Bool { session.hasDirectRoute }

    /// Media datagrams `sendMedia` put straight on the selected pair's socket so far (the rest
    /// went through libnice), for statistics and tests.
    public nonisolated var directSends: Int {
        session.directSends.load(ordering: .relaxed)
    }

    /// The pair libnice selected, for call records; nil until one is selected.
    public nonisolated var selectedPair: ICESelectedPair? {
        session.selectedPair
    }

    /// Hands every datagram received from now on (not STUN) to `target` on the media clock thread
    /// that drains `context`, instead of `onReceive` on the loop: the call's sockets move to that
    /// context (see `MediaReceiveContext`). Asynchronous: runs on the loop soon, in order with
    /// other posted work; ignored once closed.
    nonisolated func receiveOnMediaClock(_ context: MediaReceiveContext, target: MediaReceiveTarget) {
        let session = session
        MainLoopActor.post { session.receiveOnMediaClock(context, target: target) }
    }

    /// Moves the sockets back to the loop (`onReceive` again), e.g. when the call leaves the media
    /// clock, so STUN and consent are still answered. Asynchronous like `receiveOnMediaClock`.
    nonisolated func receiveOnLoop() {
        let session = session
        MainLoopActor.post { session.receiveOnLoop() }
    }

    /// Reports `.closed`, detaches both callbacks and releases the libnice agent. Idempotent;
    /// once it returns, no callback runs again. A pending `gather()` throws `ICEError.closed`.
    public func close() {
        session.close()
    }
}
