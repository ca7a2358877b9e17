import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Decides which local users may use the control socket: root, the daemon's own user, and
/// members of the configured group (primary or supplementary).
struct PeerAuthorizer: Sendable {
    /// The daemon's effective uid.
    let ownUID: uid_t
    /// The allowed group, if any.
    let groupID: gid_t?

    /// Whether `peer` may talk to the daemon.
    func allows(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 || peer.uid == ownUID { return true }
        guard let groupID else { return false }
        if peer.gid == groupID { return true }
        if let groups = Self.processGroups(pid: peer.pid) { return groups.contains(groupID) }
        return Self.userGroups(uid: peer.uid, primary: peer.gid).contains(groupID)
    }

    /// The credentials of the peer of a connected Unix socket.
    static func credentials(of fd: Int32) -> PeerCredentials? {
        var raw = RawPeerCredentials()
        var length = socklen_t(MemoryLayout<RawPeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &raw, &length) == 0 else { return nil }
        return PeerCredentials(pid: raw.pid, uid: raw.uid, gid: raw.gid)
    }

    /// The supplementary groups of a live process, from the `Groups:` line of /proc/<pid>/status.
    static func processGroups(pid: Int32) -> [gid_t]? {
        guard pid > 0, let data = try? FileReading.readAll(path: "/proc/\(pid)/status", limit: 1 << 20),
              let text = String(data: data, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("Groups:") {
            return line.dropFirst("Groups:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { gid_t($0) }
        }
        return nil
    }

    /// The groups of a user from the group database (fallback when /proc is unavailable).
    static func userGroups(uid: uid_t, primary: gid_t) -> [gid_t] {
        guard let name = userName(uid: uid) else { return [primary] }
        var count: Int32 = 64
        while true {
            var groups = [gid_t](repeating: 0, count: Int(count))
            let capacity = count
            if getgrouplist(name, primary, &groups, &count) >= 0 { return Array(groups.prefix(Int(count))) }
            if count <= capacity { count = capacity * 2 }
            if count > 65536 { return [primary] }
        }
    }

    private static func userName(uid: uid_t) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }

    /// Resolves a group name (or a numeric gid) to a gid.
    static func groupID(named name: String) -> gid_t? {
        if let number = gid_t(name) { return number }
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.gr_gid
    }
}

/// The layout of Linux `struct ucred` (pid, uid, gid).
private struct RawPeerCredentials {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
