import MainLoop

/// A datagram path to the peer that DTLS, SRTP and RTP/RTCP run over: what ICE hands to the
/// media stack, as Pion's ICE hands DTLS a `net.Conn`. `ICEAgent` is the production one; tests
/// use a plain UDP socket, so the DTLS-SRTP stack (`CallMediaTransport`) runs without libnice.
///
/// Runs on: the shared loop thread (`@MainLoopActor`), where `CallMediaTransport` runs; the
/// handlers are called there. `send` and `selectedPair` are `nonisolated`: the media clock
/// thread sends media, in order, and call records read the pair, from off the loop.
@MainLoopActor
public protocol DatagramTransport: AnyObject, Sendable {
    /// Connectivity changes in ICE's words: `.connected` or `.ready` once datagrams flow,
    /// `.failed` when the path is lost for good, `.closed` after `close()`.
    var onStateChange: (@MainLoopActor (ICEState) -> Void)? { get set }
    /// Every datagram received from the peer (DTLS, RTP or RTCP; RFC 7983 demultiplexing is the
    /// receiver's job).
    var onReceive: (@MainLoopActor ([UInt8]) -> Void)? { get set }
    /// Sends one datagram to the peer; dropped silently while the path is not connected.
    nonisolated func send(_ datagram: [UInt8])
    /// The address pair in use, for call records; nil when unknown.
    nonisolated var selectedPair: ICESelectedPair? { get }
    /// Ends the path; afterwards no callback runs. Idempotent.
    func close()
}
