#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking NETLINK_ROUTE socket subscribed to link, IPv4/IPv6 address and route changes,
/// and the reading of what it received.
///
/// Runs on: the loop thread, from `NetworkChangeMonitor`'s fd watch (reads never block). The
/// constants and the 12-byte `sockaddr_nl` are spelled out here because Glibc's Swift module does
/// not import <linux/netlink.h>.
struct NetlinkRouteSocket {
    let fd: Int32

    private static let familyNetlink: UInt16 = 16  // AF_NETLINK
    private static let protocolRoute: Int32 = 0    // NETLINK_ROUTE
    /// RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE
    private static let groups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400

    /// Opens and binds the socket; throws when the kernel refuses (no netlink in this sandbox).
    init() throws(SystemCallError) {
        let fd = socket(Int32(Self.familyNetlink), Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
                        | Int32(SOCK_NONBLOCK.rawValue), Self.protocolRoute)
        guard fd >= 0 else { throw SystemCallError.current("open", path: "a netlink route socket") }
        // struct sockaddr_nl { sa_family_t nl_family; unsigned short nl_pad; __u32 nl_pid; __u32 nl_groups; }
        var address = (Self.familyNetlink, UInt16(0), UInt32(0), Self.groups)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, 12) }
        }
        guard bound == 0 else {
            let error = SystemCallError.current("subscribe to", path: "netlink route changes")
            FileDescriptorIO.close(fd)
            throw error
        }
        self.fd = fd
    }

    /// Reads every pending message and returns what they say changed (empty when nothing was pending).
    func drain() -> NetworkChange {
        var change: NetworkChange = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == ENOBUFS { change.insert(.overrun); continue }
                return change
            }
            guard count > 0 else { return change }
            change.formUnion(Self.changes(in: buffer[0..<count]))
        }
    }

    /// The changes named by the messages of one datagram (struct nlmsghdr: u32 length, u16 type, ...).
    static func changes(in datagram: ArraySlice<UInt8>) -> NetworkChange {
        datagram.withUnsafeBytes { raw in
            var change: NetworkChange = []
            var offset = 0
            while raw.count - offset >= 16 {
                // Netlink headers are in host byte order.
                let length = Int(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                let type = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self)
                guard length >= 16, length <= raw.count - offset else { break }
                change.formUnion(NetworkChange(netlinkType: type))
                offset += (length + 3) & ~3  // NLMSG_ALIGN
            }
            return change
        }
    }

    /// Closes the socket (after the watch on it was cancelled).
    func close() { FileDescriptorIO.close(fd) }
}
