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

    /// The IPv4 address of interface `name`, or nil.
    private static func interfaceAddress(_ name: String) -> String? {
        var cName = Array(name.utf8CString)
        let text = cName.withUnsafeMutableBufferPointer { nice_interfaces_get_ip_for_interface($0.baseAddress) }
        guard let text else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }
}
