import TestSupport
@testable import AgentCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import WCSSession

@Suite struct ControlAccessTests {
    @Test func authorizerAllowsRootOwnUserAndGroupMembers() {
        let own = PeerAuthorizer(ownUID: 1000, groupID: nil)
        #expect(own.allows(PeerCredentials(pid: 0, uid: 0, gid: 0)))
        #expect(own.allows(PeerCredentials(pid: 0, uid: 1000, gid: 1000)))
        #expect(!own.allows(PeerCredentials(pid: 0, uid: 1001, gid: 1001)))
        let grouped = PeerAuthorizer(ownUID: 1000, groupID: 4242)
        #expect(grouped.allows(PeerCredentials(pid: 0, uid: 1001, gid: 4242)))
        #expect(!grouped.allows(PeerCredentials(pid: 0, uid: 1001, gid: 1001)))
    }

    @Test func supplementaryGroupsComeFromProc() {
        let groups = PeerAuthorizer.processGroups(pid: getpid())
        var expected = [gid_t](repeating: 0, count: 256)
        let count = getgroups(Int32(expected.count), &expected)
        #expect(groups.map(Set.init) == Set(expected.prefix(Int(max(count, 0)))))
        #expect(PeerAuthorizer.groupID(named: "0") == 0)
        #expect(PeerAuthorizer.groupID(named: "root") == 0)
        #expect(PeerAuthorizer.groupID(named: "no-such-group-wcs") == nil)
    }

    /// Whether another user can be impersonated: root with /usr/bin/setpriv.
    static let canActAsAnotherUser = geteuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0

    /// Connects from another user (nobody) with `setpriv`; needs root. Returns the first reply line.
    func replyToOtherUser(serverGroup: String?, setprivGroups: [String]) async throws -> String {
        let dir = ScratchDirectory()
        chmod(dir.path, 0o755)
        let path = dir.file("control.sock")
        let server = try ControlServer(path: path, group: serverGroup, handler: { _ in .ok("allowed") })
        defer { server.close() }
        chmod(path, 0o666)  // let the kernel pass the connect so SO_PEERCRED decides
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(20)
            s.connect(sys.argv[1])
            try:
                s.sendall(b'{"id": 1, "verb": "status"}\\n')
            except (BrokenPipeError, ConnectionResetError):
                pass  # refused and closed before our request arrived: the reply is still readable
            data = b''
            while not data.endswith(b'\\n'):
                chunk = s.recv(4096)
                if not chunk: break
                data += chunk
            print(data.decode().strip())
            """
        let arguments = ["--reuid=65534", "--regid=65534"] + setprivGroups + ["/usr/bin/python3", "-c", script, path]
        let result = try await onThread { try run("/usr/bin/setpriv", arguments) }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(.enabled(if: canActAsAnotherUser, "needs root and /usr/bin/setpriv to connect as user nobody"))
    func strangersGetPermissionDeniedAndAreDisconnected() async throws {
        let reply = try await replyToOtherUser(serverGroup: nil, setprivGroups: ["--clear-groups"])
        let value = try #require(try? JSONValue.parse(reply), "reply: \(reply)")
        #expect(value["ok"] == false)
        #expect(value["id"] == .null)
        #expect(value["error"] == "permission denied")
        #expect(value["code"] == .string(ControlErrorCode.permissionDenied))
    }

    @Test(.enabled(if: canActAsAnotherUser, "needs root and /usr/bin/setpriv to connect as user nobody"))
    func primaryGroupMembersAreAllowed() async throws {
        let reply = try await replyToOtherUser(serverGroup: "nogroup", setprivGroups: ["--clear-groups"])
        #expect(try JSONValue.parse(reply) == ["id": 1, "ok": true, "result": "allowed"])
    }

    @Test(.enabled(if: canActAsAnotherUser, "needs root and /usr/bin/setpriv to connect as user nobody"))
    func supplementaryGroupMembersAreAllowed() async throws {
        // nobody with primary group nogroup and supplementary group "daemon" (gid 1).
        let reply = try await replyToOtherUser(serverGroup: "1", setprivGroups: ["--groups=1"])
        #expect(try JSONValue.parse(reply) == ["id": 1, "ok": true, "result": "allowed"])
    }

    @Test func clientReportsARefusalByTheDaemon() async throws {
        // A listener that behaves like the daemon facing a stranger: one denial line, then close.
        let dir = ScratchDirectory()
        let path = dir.file("control.sock")
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        #expect(try UnixSocketAddress(path).withSockaddr { bind(listener, $0, $1) } == 0)
        #expect(listen(listener, 4) == 0)
        let denial = ControlWire.encodeResponse(id: .null, .failure(code: ControlErrorCode.permissionDenied, message: "permission denied"))
        let refuser = Thread {
            for _ in 0..<2 {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { return }
                _ = denial.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(fd)
            }
        }
        refuser.start()
        await #expect(throws: ControlClientError.permissionDenied(path)) {
            try await onThread { try ControlClient.connect(path: path, timeout: 5).request("status", timeout: 20) }
        }
        await #expect(throws: ControlClientError.permissionDenied(path)) {
            try await onThread {
                let client = try ControlClient.connect(path: path, timeout: 5)
                usleep(100_000)  // let the refusal and close happen before we write
                return try client.request("status", timeout: 20)
            }
        }
    }

    @Test(.disabled(if: geteuid() == 0, "root connects to any socket; the refusal is checked as root by the setpriv tests"))
    func clientReportsPermissionDeniedOnAnInaccessibleSocket() throws {
        let dir = ScratchDirectory()
        let path = dir.file("control.sock")
        let server = try ControlServer(path: path, group: nil, handler: { _ in .ok(nil) })
        defer { server.close() }
        chmod(path, 0o000)
        #expect(throws: ControlClientError.permissionDenied(path)) { try ControlClient.connect(path: path, timeout: 2) }
    }
}
