import Foundation
import TestSupport

/// A network namespace the test creates, joined to the test's own namespace by a veth pair:
/// `hostAddress` on the host end (where the emulator listens), `agentAddress` inside the namespace
/// (where the agent runs, through `launcher`). Addresses come from 198.18.0.0/15 (RFC 2544, benchmark
/// testing), one /30 per pair. Removed with this object (deleting the namespace deletes the pair).
///
/// Needs root and iproute2 (`ip`); used from one test thread.
final class NetworkNamespacePair {
    let name: String
    let hostLink: String
    let agentLink: String
    let hostAddress: String
    let agentAddress: String

    /// True when this process can create a network namespace with a veth pair: root, `ip` installed,
    /// and the kernel lets it (a container without CAP_NET_ADMIN does not): probed once.
    static let available: Bool = {
        guard getuid() == 0, ip != nil else { return false }
        let probe = "wcsprobe\(getpid())"
        defer { try? run(["netns", "del", probe]) }
        return (try? run(["netns", "add", probe])) != nil
            && (try? run(["-n", probe, "link", "add", "wcsp0", "type", "veth", "peer", "name", "wcsp1"])) != nil
    }()
    static let ip: String? = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }

    init() throws {
        let id = String(format: "%05d%03d", getpid() % 100_000, Int.random(in: 0..<1000))
        let subnet = Int.random(in: 0..<256) * 4
        name = "wcsagent\(id)"
        hostLink = "wcsh\(id)"
        agentLink = "wcsa\(id)"
        hostAddress = "198.19.\(subnet / 256 + 200).\(subnet % 256 + 1)"
        agentAddress = "198.19.\(subnet / 256 + 200).\(subnet % 256 + 2)"
        try Self.run(["netns", "add", name])
        do {
            try Self.run(["link", "add", hostLink, "type", "veth", "peer", "name", agentLink])
            try Self.run(["link", "set", agentLink, "netns", name])
            try Self.run(["addr", "add", "\(hostAddress)/30", "dev", hostLink])
            try Self.run(["link", "set", hostLink, "up"])
            try Self.run(["-n", name, "link", "set", "lo", "up"])
            try addAgentAddress()
            try Self.run(["-n", name, "link", "set", agentLink, "up"])
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    /// Prefix that runs a program inside the namespace.
    var launcher: [String] { [Self.ip ?? "ip", "netns", "exec", name] }

    /// Removes the agent's address (its routes go with it).
    func removeAgentAddress() throws { try Self.run(["-n", name, "addr", "del", "\(agentAddress)/30", "dev", agentLink]) }

    /// Adds the agent's address back.
    func addAgentAddress() throws { try Self.run(["-n", name, "addr", "add", "\(agentAddress)/30", "dev", agentLink]) }

    /// Takes the host end of the pair down or up: from the agent's side the path goes dead (or comes
    /// back) with no address or route change in its namespace.
    func setHostLink(up: Bool) throws { try Self.run(["link", "set", hostLink, up ? "up" : "down"]) }

    private func remove() {
        try? Self.run(["netns", "del", name])
        try? Self.run(["link", "del", hostLink])  // gone with the namespace already, unless that failed
    }

    /// Runs `ip arguments`; throws with its output when it fails.
    static func run(_ arguments: [String]) throws {
        let log = NSTemporaryDirectory() + "/ip-\(UUID().uuidString).err"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let child = try ChildProcess(executable: ip ?? "ip", arguments: arguments, stderrPath: log)
        let code = child.waitForExit(timeout: 10)
        guard code == 0 else {
            throw HarnessError("ip \(arguments.joined(separator: " ")) exited \(code.map(String.init) ?? "late"): "
                + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? ""))
        }
    }
}
