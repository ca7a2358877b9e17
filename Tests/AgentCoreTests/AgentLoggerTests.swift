import TestSupport
@testable import AgentCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MainLoop
import Testing

@Suite struct AgentLoggerTests {
    let time = 1_795_975_200.123  // 2026-11-29T18:00:00.123Z

    @Test func journalStyleUsesSyslogPriorities() {
        let formatter = LogLineFormatter(style: .journal)
        #expect(formatter.format(level: .warning, subsystem: "session", message: "token expired", time: time) == "<4>session: token expired\n")
        #expect(formatter.format(level: .debug, subsystem: "ice", message: "x", time: time) == "<7>ice: x\n")
        #expect(formatter.format(level: .error, subsystem: "a", message: "b", time: time).hasPrefix("<3>"))
    }

    @Test func timestampedStyleForTerminals() {
        let formatter = LogLineFormatter(style: .timestamped)
        #expect(formatter.format(level: .warning, subsystem: "session", message: "hello", time: time)
            == "2026-11-29T18:00:00.123Z WARN session: hello\n")
        #expect(formatter.format(level: .info, subsystem: "s", message: "m", time: 0) == "1970-01-01T00:00:00.000Z INFO s: m\n")
    }

    @Test func multiLineMessagesBecomeCompletePrefixedLines() {
        let formatter = LogLineFormatter(style: .journal)
        #expect(formatter.format(level: .notice, subsystem: "sdp", message: "v=0\r\no=- 1\n", time: time)
            == "<5>sdp: v=0\n<5>sdp: o=- 1\n<5>sdp: \n")
    }

    @Test func styleFollowsTheSystemdEnvironment() {
        #expect(LogLineFormatter.style(for: [:]) == .timestamped)
        #expect(LogLineFormatter.style(for: ["JOURNAL_STREAM": "8:12345"]) == .journal)
        #expect(LogLineFormatter.style(for: ["INVOCATION_ID": "abc"]) == .journal)
    }

    @Test func registeredSecretsAreMaskedInEveryLine() {
        let secret = "pw-\(UUID().uuidString)"
        SecretRedactor.register(secret)
        let line = LogLineFormatter(style: .journal).format(level: .info, subsystem: "sip", message: "REGISTER with \(secret)!", time: time)
        #expect(line == "<6>sip: REGISTER with [redacted]!\n")
    }

    @Test func handlerWritesWholeLinesFromManyThreads() async throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let handler = AgentLogger.makeHandler(style: .journal, fileDescriptor: fds[1])
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for n in 0..<50 { handler(.info, "w\(writer)", "message number \(n) " + String(repeating: "x", count: 40)) }
                }
            }
        }
        close(fds[1])
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n <= 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 400)
        #expect(lines.allSatisfy { $0.hasPrefix("<6>w") && $0.hasSuffix(String(repeating: "x", count: 40)) })
    }
}

@Suite struct SecretRedactorTests {
    @Test func shortSecretsAreIgnored() {
        SecretRedactor.register("abc")
        #expect(SecretRedactor.redact("abc abc") == "abc abc")
    }

    @Test func longerSecretsWinOverTheirPrefixes() {
        let base = "k\(UUID().uuidString.prefix(8))"
        SecretRedactor.register(base)
        SecretRedactor.register(base + "-longer")
        #expect(SecretRedactor.redact("a \(base)-longer b \(base) c") == "a [redacted] b [redacted] c")
        SecretRedactor.unregister(base)
        SecretRedactor.unregister(base + "-longer")
        #expect(SecretRedactor.redact(base) == base)
    }

    @Test func onlyWholeOccurrencesAreMasked() {
        let token = "t\(UUID().uuidString.prefix(8))"
        SecretRedactor.register(token)
        defer { SecretRedactor.unregister(token) }
        #expect(SecretRedactor.redact("x\(token) \(token)9 \(token)") == "x\(token) \(token)9 [redacted]")
        #expect(SecretRedactor.redact("(\(token)), \"\(token)\"") == "([redacted]), \"[redacted]\"")
    }

    @Test func aPasswordFileIsNotRegisteredSoOrdinaryWordsStay() throws {
        let dir = ScratchDirectory()
        let path = dir.write("pw", "secret\n", mode: 0o600)
        #expect(try ConfigLoader.readSecret(path: path, what: "SIP password file") == "secret")
        #expect(SecretRedactor.redact("the token file holds a secret") == "the token file holds a secret")
    }
}
