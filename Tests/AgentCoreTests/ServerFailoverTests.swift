import Foundation
import Testing
import TestSupport
import WCSSession
@testable import AgentCore

/// The failover policy of a server list (`ServerFailover`, pure) and what it is built on: per-server
/// tokens (`TokenStore`), the `[server] url` list, the failure classes of the transport.
@Suite struct ServerFailoverTests {
    static let servers = ["ws://a:1", "ws://b:2", "ws://c:3"]

    @Test func aDeadServerMovesToTheNextAndWrapsAround() {
        var f = ServerFailover(servers: Self.servers, failbackAfter: 60)
        #expect(f.activeServer == "ws://a:1" && !f.onBackup)
        let moved1 = f.failed(.unreachable)
        #expect(moved1 && f.activeServer == "ws://b:2")
        let moved2 = f.failed(.busy)
        #expect(moved2 && f.activeServer == "ws://c:3")
        let moved3 = f.failed(.unreachable)
        #expect(moved3 && f.activeServer == "ws://a:1")
        #expect(f.moves == 3)
    }

    @Test func aDroppedSocketIsResumedOnceOnTheSameServerFirst() {
        var f = ServerFailover(servers: Self.servers, failbackAfter: 60)
        let moved4 = f.failed(.dropped)
        #expect(!moved4 && f.activeServer == "ws://a:1")
        let moved5 = f.failed(.dropped)
        #expect(moved5 && f.activeServer == "ws://b:2")
        let moved6 = f.failed(.dropped)
        #expect(!moved6, "a new server gets its own resume")
        f.online()
        let moved7 = f.failed(.dropped)
        #expect(!moved7, "and again after being online")
    }

    @Test func theResumeAfterADropIsBoundedWhenABackupCouldTakeTheSession() {
        var f = ServerFailover(servers: Self.servers, failbackAfter: 60)
        #expect(f.connectTimeout(configured: 10) == 10)
        _ = f.failed(.dropped)
        #expect(f.connectTimeout(configured: 10) == ServerFailover.resumeAfterDropConnectTimeout)
        #expect(f.connectTimeout(configured: 2) == 2)
        f.online()
        #expect(f.connectTimeout(configured: 10) == 10)
        var lone = ServerFailover(servers: ["ws://a:1"], failbackAfter: 60)
        _ = lone.failed(.dropped)
        #expect(lone.connectTimeout(configured: 10) == 10, "a lone server keeps its full timeout")
    }

    @Test func anAliveServerAndALoneServerNeverMove() {
        var f = ServerFailover(servers: Self.servers, failbackAfter: 60)
        for _ in 0..<10 {
            let moved = f.failed(.alive)
            #expect(!moved)
        }
        var lone = ServerFailover(servers: ["ws://a:1"], failbackAfter: 60)
        for failure in [ServerFailover.Failure.unreachable, .busy, .dropped, .dropped, .alive] {
            let moved = lone.failed(failure)
            #expect(!moved)
        }
        #expect(lone.activeServer == "ws://a:1")
    }

    @Test func theKeptSessionsServerIsWhereItStarts() {
        #expect(ServerFailover(servers: Self.servers, failbackAfter: 1, start: "ws://c:3").activeServer == "ws://c:3")
        #expect(ServerFailover(servers: Self.servers, failbackAfter: 1, start: "ws://gone:9").activeServer == "ws://a:1")
    }

    @Test func backToThePrimaryOnlyAfterItAnsweredForAWhileAndNoCallIsUp() {
        var f = ServerFailover(servers: Self.servers, failbackAfter: 10)
        _ = f.failed(.unreachable)
        f.primaryProbe(answered: true, at: 100)
        #expect(!f.shouldFailBack(at: 105, callsUp: false), "not yet 10 s of answers")
        f.primaryProbe(answered: false, at: 106)
        f.primaryProbe(answered: true, at: 107)
        #expect(!f.shouldFailBack(at: 112, callsUp: false), "a missed probe starts the hold-down over")
        #expect(f.shouldFailBack(at: 117, callsUp: false))
        #expect(!f.shouldFailBack(at: 500, callsUp: true), "never during a call")
        f.failBack()
        #expect(f.activeServer == "ws://a:1" && !f.shouldFailBack(at: 1000, callsUp: false))
        var never = ServerFailover(servers: Self.servers, failbackAfter: 0)
        _ = never.failed(.unreachable)
        never.primaryProbe(answered: true, at: 0)
        #expect(!never.shouldFailBack(at: 1e9, callsUp: false), "failback_after 0: stay on the backup")
        #expect(ServerFailover(servers: Self.servers, failbackAfter: 300).probeInterval == 30)
        #expect(ServerFailover(servers: Self.servers, failbackAfter: 1).probeInterval == 0.5)
    }

    /// 200 random failovers through the policy and the real token store: every attempt presents only
    /// the token its server issued, and a moved session never carries a token across.
    @Test func twoHundredRandomFailoversNeverPresentATokenToTheWrongServer() throws {
        let dir = ScratchDirectory()
        let store = TokenStore(directory: dir.path)
        var generator = RTPSeededGenerator(seed: 19)
        var f = ServerFailover(servers: Self.servers, failbackAfter: 5)
        var issued: [String: String] = [:]  // token -> server that issued it
        var presentedToWrongServer = 0, resumes = 0, logins = 0, now = 0.0
        while f.moves < 200 {
            now += 1
            let server = f.activeServer
            if let kept = try store.load(server: server) {
                resumes += 1
                if issued[kept.token] != server { presentedToWrongServer += 1 }
                if Bool.random(using: &generator) { try store.clear(server: server) }  // the server lost it
            } else {
                logins += 1
                let token = "\(server)#\(UInt32.random(in: 0...UInt32.max, using: &generator))"
                issued[token] = server
                try store.save(StoredToken(server: server, token: token))
            }
            switch Int.random(in: 0..<5, using: &generator) {
            case 0: _ = f.failed(.unreachable)
            case 1: _ = f.failed(.busy)
            case 2: _ = f.failed(.dropped)
            case 3: f.primaryProbe(answered: Bool.random(using: &generator), at: now)
                if f.shouldFailBack(at: now, callsUp: Bool.random(using: &generator)) { f.failBack() }
            default: f.online()
            }
        }
        print("policy: 200 failovers, \(resumes) resumes by token, \(logins) logins, \(presentedToWrongServer) tokens to the wrong server")
        #expect(presentedToWrongServer == 0)
        #expect(resumes > 50 && logins > 50)
    }

    // MARK: - Tokens per server

    @Test func tokensAreKeptPerServerInACompatibleFile() throws {
        let dir = ScratchDirectory()
        let store = TokenStore(directory: dir.path)
        // A one-server file of an earlier version loads as that server's token.
        _ = dir.write("token.json", "{\"server\":\"ws://a:1\",\"token\":\"tok-a\",\"savedAt\":\"2026-11-29T18:00:00.000Z\"}")
        #expect(try store.load(server: "ws://a:1")?.token == "tok-a")
        #expect(try store.load(server: "ws://b:2") == nil, "never another server's token")
        try store.save(StoredToken(server: "ws://b:2", token: "tok-b", sessionId: "s-b"))
        #expect(try store.load()?.token == "tok-b", "the newest at the top level")
        #expect(try store.load(server: "ws://a:1")?.token == "tok-a")
        #expect(try store.loadAll().map(\.server) == ["ws://b:2", "ws://a:1"])
        // The top level is still the one-server format (earlier versions read the newest token).
        let top = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: store.path))) as? [String: Any]
        #expect(top?["server"] as? String == "ws://b:2" && top?["token"] as? String == "tok-b")
        #expect((top?["others"] as? [[String: Any]])?.first?["token"] as? String == "tok-a")
        try store.save(StoredToken(server: "ws://a:1", token: "tok-a2"))
        #expect(try store.loadAll().map(\.token) == ["tok-a2", "tok-b"], "one record per server")
        try store.clear(server: "ws://a:1")
        #expect(try store.loadAll().map(\.token) == ["tok-b"])
        try store.clear(server: "ws://b:2")
        #expect(try store.load() == nil && !FileManager.default.fileExists(atPath: store.path))
    }

    // MARK: - The list in the configuration

    @Test func urlMayListSeveralServersInPriorityOrder() throws {
        let one = try ConfigLoader.load(arguments: ["--server", "ws://127.0.0.1:1"], environment: [:])
        #expect(one.server == "ws://127.0.0.1:1" && one.fallbackServers.isEmpty && one.failbackAfter == 300)
        let dir = ScratchDirectory()
        let path = dir.write("a.conf", "[server]\nurl = ws://127.0.0.1:1, wss://backup.example:8443/ws\nfailback_after = 45\n")
        let two = try ConfigLoader.load(arguments: ["--config", path], environment: [:])
        #expect(two.servers == ["ws://127.0.0.1:1", "wss://backup.example:8443/ws"] && two.failbackAfter == 45)
        let flag = try ConfigLoader.load(arguments: ["--server", "ws://127.0.0.1:1,ws://127.0.0.1:2"], environment: [:])
        #expect(flag.fallbackServers == ["ws://127.0.0.1:2"])
        #expect(throws: ConfigError.self) { try ConfigLoader.load(arguments: ["--server", "ws://h:1,ws://h:1"], environment: [:]) }
        #expect(throws: ConfigError.self) { try ConfigLoader.load(arguments: ["--server", "ws://h:1,http://h:2"], environment: [:]) }
    }

    // MARK: - Failure classes

    @Test func failuresMapToWhatTheySayAboutTheServer() {
        #expect(Agent.failoverFailure(SessionError(.connect, "refused")) == .unreachable)
        #expect(Agent.failoverFailure(SessionError(.timeout, "slow")) == .unreachable)
        #expect(Agent.failoverFailure(SessionError(.unavailable, "503", retryAfter: 5)) == .busy)
        #expect(Agent.failoverFailure(SessionError(.tryLater, "1013")) == .busy)
        #expect(Agent.failoverFailure(SessionError(.loginDeferred, "token")) == .alive)
        #expect(Agent.failoverFailure(.pingTimeout(seconds: 15)) == .unreachable)
        #expect(Agent.failoverFailure(.connectionLost("RST")) == .dropped)
        #expect(Agent.failoverFailure(.closedByServer(code: 1001, reason: "")) == .alive)
        #expect(RegistrationRefusal.isDefinite(status: "AUTHENTICATION_FAIL", info: nil))
        #expect(RegistrationRefusal.isDefinite(status: "FAILED", info: "403 Forbidden"))
        #expect(!RegistrationRefusal.isDefinite(status: "CONNECTION_ERROR", info: "Registrar did not answer"))
        #expect(!RegistrationRefusal.isDefinite(status: nil, info: "no registration reply"))
        #expect(Agent.honouring(0.2, cause: .serverBusy, serverSaid: nil) == Agent.busyServerFloor)
        #expect(Agent.honouring(0.2, cause: .localLoss, serverSaid: nil) == 0.2)
        let honoured = Agent.honouring(0.2, cause: .serverBusy, serverSaid: 5)
        #expect(honoured >= 5 && honoured <= 5.5)
    }
}
