import CNice
import MainLoop

/// Restricts a libnice agent's host candidates to configured addresses (loop thread only).
enum NiceLocalAddress {
    /// Adds `entry`, an IP literal or an interface name, as a local address of `agent`.
    static func add(_ entry: String, to agent: OpaquePointer) throws(ICEError) {
        let literal = ICEServerResolver.isIPLiteral(entry) ? entry : interfaceAddress(entry)
        guard let literal else { throw .invalidLocalAddress(entry) }
        var address = NiceAddress()
        nice_address_init(&address)
        guard nice_address_set_from_string(&address, literal) != 0,
              nice_agent_add_local_address(agent, &address) != 0 else {
            throw .invalidLocalAddress(entry)
        }
    }

    /// Restricts `agent` to libnice's own choice of addresses (every up interface, no loopback)
    /// minus IPv6 link-local ones. Adds nothing when only link-local addresses exist (libnice then
    /// enumerates by itself, and `isLinkLocal` filters what we advertise).
    static func addAllButLinkLocal(to agent: OpaquePointer) {
        var node = nice_interfaces_get_local_ips(0)
        let list = node
        defer { g_list_free(list) }
        while let current = node {
            if let text = current.pointee.data?.assumingMemoryBound(to: gchar.self) {
                let address = String(cString: text)
                g_free(text)
                if !isLinkLocal(address) { try? add(address, to: agent) }
            }
            node = current.pointee.next
        }
    }

    /// True for an IPv6 link-local address (fe80::/10), with or without a zone.
    static func isLinkLocal(_ address: String) -> Bool {
        let lower = address.lowercased()
        guard lower.contains(":"), lower.count >= 4 else { return false }
        let prefix = lower.prefix(4)
        return ["fe8", "fe9", "fea", "feb"].contains(String(prefix.prefix(3))) && prefix.dropFirst(3) != ":"
    }

    /// The IPv4 address of interface `name`, or nil.
    private static func interfaceAddress(_ name: String) -> String? {
        var cName = Array(name.utf8CString)
        let text = cName.withUnsafeMutableBufferPointer { nice_interfaces_get_ip_for_interface($0.baseAddress) }
        guard let text else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }
}
