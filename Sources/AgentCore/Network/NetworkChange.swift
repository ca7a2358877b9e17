/// What changed in the host's network, as one batch of netlink route messages reports it.
///
/// A plain value: built on the loop thread by `NetworkChangeMonitor`, handed to the agent actor.
public struct NetworkChange: OptionSet, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// An address was added (RTM_NEWADDR).
    public static let addressAdded = NetworkChange(rawValue: 1 << 0)
    /// An address was removed (RTM_DELADDR).
    public static let addressRemoved = NetworkChange(rawValue: 1 << 1)
    /// A route was added or replaced (RTM_NEWROUTE).
    public static let routeAdded = NetworkChange(rawValue: 1 << 2)
    /// A route was removed (RTM_DELROUTE).
    public static let routeRemoved = NetworkChange(rawValue: 1 << 3)
    /// A link went up, down, appeared or vanished (RTM_NEWLINK, RTM_DELLINK).
    public static let link = NetworkChange(rawValue: 1 << 4)
    /// The kernel dropped messages (the socket buffer overran): anything may have changed.
    public static let overrun = NetworkChange(rawValue: 1 << 5)

    /// The change one netlink message type stands for (empty for types that are not changes).
    init(netlinkType type: UInt16) {
        switch type {
        case 16, 17: self = .link            // RTM_NEWLINK, RTM_DELLINK
        case 20: self = .addressAdded        // RTM_NEWADDR
        case 21: self = .addressRemoved      // RTM_DELADDR
        case 24: self = .routeAdded          // RTM_NEWROUTE
        case 25: self = .routeRemoved        // RTM_DELROUTE
        default: self = []
        }
    }

    public var description: String {
        let names: [(NetworkChange, String)] = [(.addressAdded, "address added"), (.addressRemoved, "address removed"),
                                                (.routeAdded, "route added"), (.routeRemoved, "route removed"),
                                                (.link, "link changed"), (.overrun, "events lost")]
        let present = names.filter { contains($0.0) }.map(\.1)
        return present.isEmpty ? "nothing" : present.joined(separator: ", ")
    }
}
