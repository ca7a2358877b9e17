import TestSupport
import Foundation
import Testing
import WCSSession
@testable import AgentCore

/// Parsing pushes, deduplication, the secret comparison, listen addresses and the webhook's
/// request heads: pure logic, no daemon.
@Suite struct PushPayloadTests {
    @Test func parsesTheWCSPushAndIgnoresExtraFields() throws {
        let p = try PushPayload(data: Data(#"{"id":"c-1","uuid":"u-1","handle":"1002","extra":{"x":[1]}}"#.utf8))
        #expect(p == PushPayload(callId: "c-1", uuid: "u-1", handle: "1002"))
        let spaced = try PushPayload(data: Data(" {\"id\": \"42\", \"handle\": \"1002\"}\n".utf8))
        #expect(spaced.callId == "42" && spaced.handle == "1002" && spaced.uuid == nil)
        #expect(try PushPayload(json: p.json) == p)
    }

    @Test(arguments: [
        ("", "empty"), ("garbage", "not valid JSON"), ("[1,2]", "not a JSON object"), ("{\"uuid\":\"u\"}", "no \"id\""),
        ("{\"id\":\"\"}", "non-empty call id"), ("{\"id\":{\"a\":1}}", "must be a string"), ("{\"id\":\"x\",\"handle\":[1]}", "must be a string"),
        ("{\"id\": null}", "no \"id\""), ("{\"id\":1}", "\"id\" must be a string"), ("{\"id\":true}", "must be a string"),
        ("{\"id\":\"c\",\"uuid\":7}", "\"uuid\" must be a string"), ("{\"id\":\"c\",\"handle\":1002}", "\"handle\" must be a string"),
    ])
    func refusesGarbageWithAClearMessage(_ input: String, _ expected: String) {
        #expect {
            try PushPayload(data: Data(input.utf8))
        } throws: { error in
            (error as? PushPayloadError)?.description.contains(expected) == true
        }
    }

    @Test func refusesOversizePayloadsAndInvalidUTF8() {
        let big = Data(("{\"id\":\"" + String(repeating: "x", count: PushPayload.maximumSize) + "\"}").utf8)
        #expect(throws: PushPayloadError.self) { try PushPayload(data: big) }
        #expect(throws: PushPayloadError.self) { try PushPayload(data: Data([0x7B, 0xFF, 0xFE, 0x7D])) }
    }

    @Test func deduplicatorRemembersABoundedNumberOfIds() {
        var d = PushDeduplicator(capacity: 3)
        let first = d.insert("a"), again = d.insert("a")
        #expect(first && !again)
        let b = d.insert("b"), c = d.insert("c"), e = d.insert("d")
        #expect(b && c && e)
        #expect(d.count == 3)
        #expect(!d.contains("a"), "the oldest id is forgotten first")
        #expect(d.contains("d"))
        d.remove("c")
        #expect(!d.contains("c"))
        let reinserted = d.insert("c")
        #expect(reinserted)
        var many = PushDeduplicator(capacity: 100)
        for i in 0..<10_000 { _ = many.insert("call-\(i)") }
        #expect(many.count == 100)
    }

    @Test func constantTimeComparison() {
        #expect(ConstantTimeComparison.equal(Array("secret".utf8), Array("secret".utf8)))
        #expect(!ConstantTimeComparison.equal(Array("secret".utf8), Array("secreT".utf8)))
        #expect(!ConstantTimeComparison.equal(Array("secret".utf8), Array("secret2".utf8)))
        #expect(!ConstantTimeComparison.equal(Array("".utf8), Array("s".utf8)))
        #expect(ConstantTimeComparison.equal([UInt8](), [UInt8]()))
    }

    @Test func listenAddresses() throws {
        #expect(try PushListenAddress(parsing: "127.0.0.1:8089") == PushListenAddress(host: "127.0.0.1", port: 8089))
        let v6 = try PushListenAddress(parsing: "[::1]:0")
        #expect(v6.host == "::1" && v6.port == 0 && v6.isIPv6 && v6.description == "[::1]:0")
        for bad in ["localhost:80", "127.0.0.1", "127.0.0.1:70000", "::1:80", "[::1]80", "1.2.3:80", ":80"] {
            #expect(throws: ConfigError.self, "\(bad)") { try PushListenAddress(parsing: bad) }
        }
    }

    @Test func requestHeads() throws {
        let text = "POST /push?x=1 HTTP/1.1\r\nHost: a\r\nX-WCS-Push-Secret:  s3 \r\nContent-Length: 5"
        let head = try #require(PushHTTPRequestHead(Array(text.utf8)))
        #expect(head.method == "POST" && head.path == "/push")
        #expect(head.headers["x-wcs-push-secret"] == "s3" && head.headers["content-length"] == "5")
        #expect(PushHTTPRequestHead(Array("garbage".utf8)) == nil)
        #expect(PushHTTPRequestHead(Array("GET / HTTP/1.1\r\nno colon".utf8)) == nil)
        #expect(PushHTTPRequestHead.endOfHead(in: Array("a\r\n\r\nbody".utf8)) == 5)
        #expect(PushHTTPRequestHead.endOfHead(in: Array("a\r\n".utf8)) == nil)
    }
}

/// The `[push]` config section.
@Suite struct PushConfigTests {
    @Test func readsListenAndSecretFile() throws {
        let dir = ScratchDirectory()
        let secret = dir.write("secret", "s3cret-push\n", mode: 0o600)
        let conf = dir.write("a.conf", "[server]\nurl = ws://127.0.0.1:1\n[push]\nlisten = [::1]:8089\nsecret_file = \(secret)\n")
        let config = try ConfigLoader.load(arguments: ["--config", conf], environment: [:])
        #expect(config.pushListen == PushListenAddress(host: "::1", port: 8089))
        #expect(config.pushSecret == "s3cret-push")
        #expect(!config.description.contains("s3cret-push"))
    }

    @Test func refusesABadAddressOrAMissingSecret() throws {
        let dir = ScratchDirectory()
        let bad = dir.write("b.conf", "[server]\nurl = ws://127.0.0.1:1\n[push]\nlisten = example.com:80\nsecret_file = /nonexistent\n")
        #expect { try ConfigLoader.load(arguments: ["--config", bad], environment: [:]) } throws: {
            "\($0)".contains("b.conf:4:") && "\($0)".contains("push listen address")
        }
        let noSecret = dir.write("c.conf", "[server]\nurl = ws://127.0.0.1:1\n[push]\nlisten = 127.0.0.1:80\n")
        #expect { try ConfigLoader.load(arguments: ["--config", noSecret], environment: [:]) } throws: {
            "\($0)".contains("[push] listen needs secret_file")
        }
    }
}
