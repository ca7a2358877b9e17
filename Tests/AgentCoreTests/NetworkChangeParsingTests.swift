import TestSupport
import Foundation
import Testing
@testable import AgentCore

/// Reading netlink route messages into `NetworkChange` (no root needed); the watch itself runs in
/// `NetworkChangeTests` (network namespaces, root).
@Suite struct NetworkChangeParsingTests {
    /// A netlink message: nlmsghdr (length, type, flags, seq, pid; host byte order) and a payload.
    private func message(type: UInt16, payload: Int) -> [UInt8] {
        var header = [UInt8]()
        withUnsafeBytes(of: UInt32(16 + payload)) { header += $0 }
        withUnsafeBytes(of: type) { header += $0 }
        header += [0, 0] + [UInt8](repeating: 0, count: 8)
        let padded = (payload + 3) & ~3
        return header + [UInt8](repeating: 0xAB, count: padded)
    }

    @Test func messageTypesMapToChanges() {
        let batch = message(type: 21, payload: 9) + message(type: 25, payload: 28) + message(type: 16, payload: 0)
        #expect(NetlinkRouteSocket.changes(in: batch[...]) == [.addressRemoved, .routeRemoved, .link])
        #expect(NetlinkRouteSocket.changes(in: (message(type: 20, payload: 4) + message(type: 24, payload: 4))[...])
                == [.addressAdded, .routeAdded])
        #expect(NetlinkRouteSocket.changes(in: message(type: 3, payload: 4)[...]).isEmpty, "NLMSG_DONE is no change")
    }

    @Test func truncatedOrBogusLengthsStopTheWalk() {
        var bogus = message(type: 20, payload: 4)
        bogus[0] = 200  // longer than the datagram
        #expect(NetlinkRouteSocket.changes(in: bogus[...]).isEmpty)
        #expect(NetlinkRouteSocket.changes(in: [UInt8](repeating: 0, count: 40)[...]).isEmpty, "length 0")
        #expect(NetlinkRouteSocket.changes(in: message(type: 20, payload: 4).prefix(10)).isEmpty)
    }

    @Test func descriptionsNameTheChanges() {
        #expect(NetworkChange([.addressRemoved, .routeRemoved]).description == "address removed, route removed")
        #expect(NetworkChange().description == "nothing")
    }

    @Test func theRouteSocketOpensWhereNetlinkExists() throws {
        let socket = try NetlinkRouteSocket()
        _ = socket.drain()  // non-blocking: returns when nothing is pending
        socket.close()
    }
}
