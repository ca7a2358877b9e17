import Foundation
import TestSupport

/// A home-router NAT built from two network namespaces the test creates, for calls behind a NAT:
///
///     test's namespace (public side)        router namespace              LAN namespace
///     publicAddress  ──────── veth ──────── natAddress | gatewayAddress ──── veth ──── privateAddress
///     (emulator, coturn listen here)        nft masquerade, forwarding    (the agent runs here,
///                                           only LAN→public and replies    default route via gateway)
///
/// The LAN reaches the public side only through the router's MASQUERADE, so the public side sees
/// every LAN packet as coming from `natAddress`. Nothing on the public side can reach `privateAddress`:
/// the router forwards nothing that the LAN did not start, and the test's namespace routes the
/// private /30 to `unreachable` (without that route it would go out of the default gateway, off
/// this machine). Addresses come from 198.18.0.0/15 (RFC 2544): public 198.19.100-103.x,
/// private 198.18.100-103.x, one /30 each. Removed with this object.
///
/// Needs root, iproute2 (`ip`) and nftables (`nft`); used from one test thread.
final class MasqueradingNAT {
    let routerNamespace: String
    let lanNamespace: String
    let publicLink: String
    /// The test's end of the public link: where the servers listen.
    let publicAddress: String
    /// The router's public address: what the NAT maps LAN traffic to.
    let natAddress: String
    /// The router's LAN address (the agent's default gateway).
    let gatewayAddress: String
    /// The agent's address, private to the LAN.
    let privateAddress: String
    private let privateSubnet: String

    static let nft: String? = ["/usr/sbin/nft", "/sbin/nft"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// True when namespaces, veth pairs and an nft NAT table in a namespace can be created here
    /// (root, `ip`, `nft`, and a kernel that allows them): probed once.
    static let available: Bool = {
        guard NetworkNamespacePair.available, let nft else { return false }
        let probe = "wcsnatprobe\(getpid())"
        defer { try? NetworkNamespacePair.run(["netns", "del", probe]) }
        return (try? NetworkNamespacePair.run(["netns", "add", probe])) != nil
            && (try? NetworkNamespacePair.run(["netns", "exec", probe, nft, "add", "table", "ip", "wcsprobe"])) != nil
            && (try? NetworkNamespacePair.run(["netns", "exec", probe, nft,
                                               "add chain ip wcsprobe p { type nat hook postrouting priority srcnat ; }"])) != nil
    }()

    init(scratch: ScratchDirectory) throws {
        let id = String(format: "%05d%03d", getpid() % 100_000, Int.random(in: 0..<1000))
        let subnet = Int.random(in: 0..<256) * 4
        let third = subnet / 256 + 100, fourth = subnet % 256
        routerNamespace = "wcsnat\(id)"
        lanNamespace = "wcslan\(id)"
        publicLink = "wcsw\(id)"
        publicAddress = "198.19.\(third).\(fourth + 1)"
        natAddress = "198.19.\(third).\(fourth + 2)"
        gatewayAddress = "198.18.\(third).\(fourth + 1)"
        privateAddress = "198.18.\(third).\(fourth + 2)"
        privateSubnet = "198.18.\(third).\(fourth)/30"
        let routerPublic = "wcsrw\(id)", routerLAN = "wcsrl\(id)", lan = "wcsl\(id)"
        do {
            try Self.ip(["netns", "add", routerNamespace])
            try Self.ip(["netns", "add", lanNamespace])
            try Self.ip(["link", "add", publicLink, "type", "veth", "peer", "name", routerPublic])
            try Self.ip(["link", "set", routerPublic, "netns", routerNamespace])
            try Self.ip(["addr", "add", "\(publicAddress)/30", "dev", publicLink])
            try Self.ip(["link", "set", publicLink, "up"])
            try Self.ip(["route", "add", "unreachable", privateSubnet])
            try Self.ip(["-n", routerNamespace, "addr", "add", "\(natAddress)/30", "dev", routerPublic])
            try Self.ip(["-n", routerNamespace, "link", "set", routerPublic, "up"])
            try Self.ip(["-n", routerNamespace, "link", "add", routerLAN, "type", "veth", "peer", "name", lan])
            try Self.ip(["-n", routerNamespace, "link", "set", lan, "netns", lanNamespace])
            try Self.ip(["-n", routerNamespace, "addr", "add", "\(gatewayAddress)/30", "dev", routerLAN])
            try Self.ip(["-n", routerNamespace, "link", "set", routerLAN, "up"])
            try Self.ip(["-n", lanNamespace, "link", "set", "lo", "up"])
            try Self.ip(["-n", lanNamespace, "addr", "add", "\(privateAddress)/30", "dev", lan])
            try Self.ip(["-n", lanNamespace, "link", "set", lan, "up"])
            try Self.ip(["-n", lanNamespace, "route", "add", "default", "via", gatewayAddress])
            try Self.ip(["netns", "exec", routerNamespace, "/bin/sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward"])
            let rules = scratch.write("nat.nft", """
                table ip wcsnat {
                    chain postrouting {
                        type nat hook postrouting priority srcnat; policy accept;
                        oifname "\(routerPublic)" masquerade
                    }
                    chain forward {
                        type filter hook forward priority filter; policy drop;
                        ct state established,related accept
                        iifname "\(routerLAN)" oifname "\(routerPublic)" accept
                    }
                }

                """)
            try Self.ip(["netns", "exec", routerNamespace, Self.nft ?? "nft", "-f", rules])
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    /// Prefix that runs a program on the LAN, behind the NAT.
    var launcher: [String] { [NetworkNamespacePair.ip ?? "ip", "netns", "exec", lanNamespace] }

    private func remove() {
        try? Self.ip(["netns", "del", lanNamespace])
        try? Self.ip(["netns", "del", routerNamespace])
        try? Self.ip(["link", "del", publicLink])  // gone with the router's namespace already, unless that failed
        try? Self.ip(["route", "del", "unreachable", privateSubnet])
    }

    private static func ip(_ arguments: [String]) throws { try NetworkNamespacePair.run(arguments) }
}
