import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The two ends of an open TCP connection (numeric addresses), and whether the kernel would still
/// route to the peer from the same local address, which tells a network change that broke the path
/// (address gone, route moved to another interface) from one that did not.
///
/// A plain value, taken by the connection on the loop thread when the socket opens; `isStillRouted`
/// may run on any thread (a route lookup with a connected UDP socket: no packet is sent).
public struct SocketPath: Sendable, Equatable, CustomStringConvertible {
    /// The local address, numeric (`10.0.0.2`, `fe80::1%eth0` has its zone dropped).
    public let localAddress: String
    /// The peer's address, numeric.
    public let peerAddress: String
    /// The peer's port.
    public let peerPort: UInt16
    /// The peer's socket address, for the route lookup.
    private let peer: [UInt8]

    public var description: String { "\(localAddress) -> \(peerAddress):\(peerPort)" }

    /// The ends of the connected socket `fd`; nil when it has none (closed, not connected).
    static func of(socket fd: Int32) -> SocketPath? {
        guard let local = socketAddress(fd, getsockname), let peer = socketAddress(fd, getpeername),
              let localText = numericHost(local), let peerText = numericHost(peer) else { return nil }
        return SocketPath(localAddress: localText.host, peerAddress: peerText.host, peerPort: peerText.port, peer: peer)
    }

    /// The local address the kernel picks now to reach the peer; nil when there is no route.
    public func currentSourceAddress() -> String? {
        peer.withUnsafeBytes { raw -> String? in
            let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr.self)
            let fd = socket(Int32(address.pointee.sa_family), Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            guard connect(fd, address, socklen_t(raw.count)) == 0, let local = Self.socketAddress(fd, getsockname) else { return nil }
            return Self.numericHost(local)?.host
        }
    }

    /// True while the peer is reachable from the same local address.
    public var isStillRouted: Bool { currentSourceAddress() == localAddress }

    private typealias NameCall = (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?) -> Int32

    private static func socketAddress(_ fd: Int32, _ call: NameCall) -> [UInt8]? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, &length) == 0 }
        }
        guard ok else { return nil }
        return withUnsafeBytes(of: &storage) { Array($0.prefix(Int(length))) }
    }

    private static func numericHost(_ address: [UInt8]) -> (host: String, port: UInt16)? {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let result = address.withUnsafeBytes { raw in
            getnameinfo(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count),
                        &host, socklen_t(host.count), &service, socklen_t(service.count), NI_NUMERICHOST | NI_NUMERICSERV)
        }
        guard result == 0 else { return nil }
        let text = cText(host)
        return (String(text.prefix { $0 != "%" }), UInt16(cText(service)) ?? 0)
    }

    private static func cText(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
