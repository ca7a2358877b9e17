import CNice
import Glibc

/// The selected pair's own UDP socket and remote address: media (SRTP, SRTCP) goes out with one
/// `sendto` on it instead of through `nice_agent_send` (libnice's agent lock, a GSocket message
/// and its vectors per packet). Only for pairs whose local side is a plain UDP socket (host,
/// server- or peer-reflexive): libnice's `nice_agent_get_selected_socket` refuses relayed (TURN
/// wraps every datagram) and TCP pairs, and those keep libnice's send.
///
/// The descriptor is a duplicate of libnice's (see `CNiceUDPRoute`), owned here: `close()` once
/// it is replaced or the agent closes. Sending on the duplicate puts the datagram on the same
/// socket, so the peer sees the same source address as for libnice's own sends and checks.
///
/// Runs on: made and closed on the loop thread (`NiceAgentSession`, on the selected-pair signal
/// and at close); `send` on the media clock thread. Both under the session's `sendTarget` lock,
/// so a descriptor is never closed while a send on it is in progress.
struct NiceDirectRoute: Sendable {
    /// What one `send` did.
    enum Outcome: Equatable {
        /// The kernel took the datagram.
        case sent
        /// The socket's send buffer is full (EAGAIN, ENOBUFS): the datagram is lost, as it would
        /// be on libnice's path, which returns the same error for a non-blocking UDP socket.
        case dropped
        /// Any other error (errno): the caller sends through libnice and stops using this route.
        case failed(Int32)
    }

    let descriptor: Int32
    private let remote: sockaddr_storage
    private let remoteLength: socklen_t

    /// The route of the component's selected pair, or nil when it has none that qualifies (see
    /// `cnice_selected_udp_route`).
    static func selected(agent: OpaquePointer, streamID: guint) -> NiceDirectRoute? {
        var route = CNiceUDPRoute()
        guard cnice_selected_udp_route(agent, streamID, 1, &route) != 0, route.fd >= 0 else { return nil }
        return NiceDirectRoute(descriptor: route.fd, remote: route.remote, remoteLength: route.remote_length)
    }

    /// The remote address as text ("host:port"), for the log.
    var remoteDescription: String {
        var host = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        var copy = remote
        let port: UInt16 = withUnsafePointer(to: &copy) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                if address.pointee.sa_family == sa_family_t(AF_INET6) {
                    return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { six in
                        var bytes = six.pointee.sin6_addr
                        inet_ntop(AF_INET6, &bytes, &host, socklen_t(host.count))
                        return UInt16(bigEndian: six.pointee.sin6_port)
                    }
                }
                return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { four in
                    var bytes = four.pointee.sin_addr
                    inet_ntop(AF_INET, &bytes, &host, socklen_t(host.count))
                    return UInt16(bigEndian: four.pointee.sin_port)
                }
            }
        }
        let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.contains(":") ? "[\(text)]:\(port)" : "\(text):\(port)"
    }

    /// Sends `bytes` as one datagram to the selected remote address (non-blocking, as libnice
    /// made the socket). Retries once on EINTR.
    func send(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        var address = remote
        for _ in 0..<2 {
            let sent = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, remoteLength)
                }
            }
            if sent >= 0 { return .sent }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ENOBUFS: return .dropped
            case let other: return .failed(other)
            }
        }
        return .dropped
    }

    /// Closes the duplicate descriptor (libnice's own socket stays open).
    func close() {
        _ = Glibc.close(descriptor)
    }
}
