import Foundation
import Testing
import TestSupport
import WCSSession
@testable import AgentCore
#if canImport(Glibc)
import Glibc
#endif

/// The native MQTT intake (`[push] mqtt`) against a real mosquitto on 127.0.0.1: nothing lost and
/// nothing rung twice across broker and agent restarts, a push to a sleeping agent rings the call
/// (over TLS with the test CA, user and password), the availability topic follows the agent, the
/// password appears nowhere but its file, libmosquitto is mapped only with the intake.
@Suite(.serialized) struct MQTTPushIntakeTests {
    static let topic = "wcs/test/\(AgentHarness.login)/push"

    /// A config with the intake on `url` and `extra` lines in [push].
    static func config(_ h: AgentHarness, url: String, extra: String = "") throws -> String {
        let path = h.scratch.file("mqtt.conf")
        try "[push]\nmqtt = \(url)\nmqtt_keepalive = 5\n\(extra)".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// 1,000 pushes for 200 call ids, published in batches while the broker restarts 3 times and
    /// the agent twice: each call id wakes the agent exactly once (one missed-call record, one
    /// `push for call` wake line in the agent's logs), none is lost (every call id the broker
    /// acknowledged reached the agent), and the redeliveries and repeats are answered `duplicate`.
    @Test func thousandPushesThroughBrokerAndAgentRestarts() async throws {
        try await onThread {
            let started = Date()
            let h = try AgentHarness()
            let broker = try MosquittoBroker(directory: h.scratch.file("broker"))
            defer { broker.stop() }
            let conf = try Self.config(h, url: "mqtt://127.0.0.1:\(broker.port)/\(Self.topic)")
            try h.start(extra: ["--config", conf, "--log-level", "debug"])
            var agentLogs = ""
            try h.waitFor("the intake subscribed") { broker.log().contains("\(Self.topic) (QoS 1)") }

            let ids = (0..<200).map { "mqtt-call-\($0)" }
            // Each call id 5 times, the repeats spread over the run (as a sender retrying would).
            let pushes = (0..<5).flatMap { round in ids.map { #"{"id":"\#($0)","uuid":"u-\#($0)","handle":"2000","round":\#(round)}"# } }
            var published = 0
            for (batch, lines) in stride(from: 0, to: pushes.count, by: 50).map({ (Int($0) / 50, Array(pushes[$0..<min($0 + 50, pushes.count)])) }) {
                switch batch {
                case 3, 9, 15: try broker.restart()
                case 6, 12:
                    #expect(h.stop() == 0)
                    agentLogs += h.log()
                    if batch == 12 { #expect(try broker.publish(lines: lines, topic: Self.topic, file: h.scratch.file("batch-down"))) }
                    try h.start(extra: ["--config", conf, "--log-level", "debug"])
                default: break
                }
                var attempts = 0
                while !(try broker.publish(lines: lines, topic: Self.topic, file: h.scratch.file("batch-\(batch)"))) {
                    attempts += 1
                    #expect(attempts < 20, "the broker never took batch \(batch)")
                    usleep(200_000)
                }
                published += lines.count
            }
            try h.waitFor("every call id handled", timeout: 60) {
                Set(h.callRecords().compactMap { $0["call_id"]?.stringValue }).isSuperset(of: ids)
            }
            Thread.sleep(forTimeInterval: 1)  // late redeliveries, if any, would show now
            agentLogs += h.log()

            // Every call id: one record (missed_while_asleep: the emulator has no such call), one wake.
            let records = h.callRecords().compactMap { $0["call_id"]?.stringValue }
            #expect(records.count == ids.count, "records: \(records.count)")
            let wakeLines = agentLogs.split(separator: "\n").filter { $0.contains("push for call mqtt-call-") && $0.contains(" from 2000 (mqtt)") }
            var wakes: [String: Int] = [:]
            for line in wakeLines {
                if let id = ids.first(where: { line.contains("push for call \($0) from") }) { wakes[id, default: 0] += 1 }
            }
            #expect(wakes.count == ids.count && wakes.values.allSatisfy { $0 == 1 }, "wakes: \(wakes.filter { $0.value != 1 })")
            // From the broker's log: what it took from the publisher and what it sent to the agent.
            let brokerLog = broker.log()
            let received = brokerLog.components(separatedBy: "Received PUBLISH from wcs-test-publisher").count - 1
            let sent = brokerLog.components(separatedBy: "Sending PUBLISH to wcs-agent-").count - 1
            let redelivered = brokerLog.split(separator: "\n").filter { $0.contains("Sending PUBLISH to wcs-agent-") && $0.contains("(d1,") }.count
            let duplicates = agentLogs.components(separatedBy: "(mqtt): already seen").count - 1
            #expect(received >= pushes.count)
            #expect(sent >= received - 60, "broker sent \(sent) of \(received)")  // at most one batch published while the agent was down may queue
            print("MQTT restarts: \(pushes.count) pushes (\(received) publishes acknowledged by the broker, \(sent) sent to the agent, "
                  + "\(redelivered) redelivered with DUP), \(ids.count) call ids, \(wakes.count) woke the agent once each, "
                  + "\(duplicates) answered duplicate; 3 broker and 2 agent restarts; \(Int(Date().timeIntervalSince(started))) s")
        }
    }

    /// Over TLS (the test CA) with a user and a password file: a push published while the agent
    /// sleeps rings the call; the availability topic says online, offline on a clean stop, online
    /// again, offline by the last will when the agent is killed; the password is nowhere but its file.
    @Test func aPushToASleepingAgentRingsOverTLSAndAvailabilityFollows() async throws {
        try await onThread {
            let certificates = try TestCertificates.shared()
            let password = "mqtt-PW-\(UUID().uuidString.prefix(8))"
            let h = try AgentHarness()
            let broker = try MosquittoBroker(directory: h.scratch.file("broker"), tls: certificates, users: ["door": password])
            defer { broker.stop() }
            let passwordFile = h.scratch.file("mqtt-password")
            try (password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
            let conf = try Self.config(h, url: "mqtts://localhost:\(broker.tlsPort!)/\(Self.topic)", extra: """
                mqtt_ca_file = \(certificates.caFile)
                mqtt_username = door
                mqtt_password_file = \(passwordFile)

                """)
            let availability = Self.topic + "/availability"
            try h.start(extra: ["--config", conf])
            try h.waitFor("online on the availability topic") { try broker.retained(availability) == "online" }
            let pid = try LazyLibniceTests.daemonPid(h)
            #expect(try LazyLibniceTests.mappedFiles(pid).contains { $0.hasPrefix("libmosquitto.so") })

            try h.setPushCommand("/usr/bin/mosquitto_pub -h 127.0.0.1 -p \(broker.port) -q 1 -t '\(Self.topic)' -s")
            let callId = try PushExamplesTests.ringWhileAsleepAndExpectTheWake(h, caller: "2031")
            try h.waitFor("the push event") { h.log().contains("push for call \(callId) from 2031 (mqtt)") }

            // The password: not in the agent's argv or environment, its log, its state files or the broker's log.
            let cmdline = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .isoLatin1)) ?? ""
            let environ = (try? String(contentsOfFile: "/proc/\(pid)/environ", encoding: .isoLatin1)) ?? ""
            #expect(!cmdline.isEmpty && !cmdline.contains(password))
            #expect(!environ.contains(password))
            #expect(!h.log().contains(password))
            #expect(!broker.log().contains(password))
            for name in listing(h.stateDir) { #expect(!(contents(h.stateDir + "/" + name) ?? "").contains(password), "\(name)") }

            #expect(h.stop() == 0)
            #expect(try broker.retained(availability) == "offline")
            try h.start(extra: ["--config", conf])
            try h.waitFor("online again") { try broker.retained(availability) == "online" }
            // doctor checks the broker under its own client id: the line's session stays as it is.
            let doctor = try LazyLibniceTests.run(["doctor", "--timeout", "5", "--config", conf, "--server", h.emulator.url,
                                                   "--sip-login", AgentHarness.login, "--sip-password-file", h.passwordFile,
                                                   "--state-dir", h.stateDir], environment: [:])
            let verdict = DoctorTests.line(doctor.lines, "ok", "mqtt")
            #expect(verdict?.contains("mqtts://localhost:\(broker.tlsPort!): connected") == true && verdict?.contains("TLS verified") == true,
                    "\(doctor.lines)")
            #expect(try broker.retained(availability) == "online")
            h.daemon?.signal(SIGKILL)
            _ = h.daemon?.waitForExit(timeout: 10)
            try h.waitFor("offline by the last will") { try broker.retained(availability) == "offline" }

            // A CA that did not sign the broker's certificate: refused, said in the log.
            let other = try TestCertificates.generate()
            let wrongCA = try Self.config(h, url: "mqtts://localhost:\(broker.tlsPort!)/\(Self.topic)", extra: """
                mqtt_ca_file = \(other.caFile)
                mqtt_username = door
                mqtt_password_file = \(passwordFile)

                """)
            try h.start(extra: ["--config", wrongCA])
            do {
                try h.waitFor("the TLS refusal in the log") {
                    h.log().split(separator: "\n").contains { $0.contains("WARN push: mqtt:") && $0.contains("certificate verify failed") }
                }
            } catch {
                Issue.record("no TLS refusal: \(h.log().split(separator: "\n").filter { $0.contains("mqtt") }.suffix(20).joined(separator: "\n"))")
            }
            #expect(try broker.retained(availability) == "offline")
            let refused = try LazyLibniceTests.run(["doctor", "--timeout", "5", "--config", wrongCA, "--server", h.emulator.url,
                                                    "--sip-login", AgentHarness.login, "--sip-password-file", h.passwordFile,
                                                    "--state-dir", h.stateDir], environment: [:])
            #expect(refused.code == 1)
            #expect(DoctorTests.line(refused.lines, "FAIL", "mqtt")?.contains("certificate verify failed") == true, "\(refused.lines)")
        }
    }

    /// A push the agent cannot record is not acknowledged: the broker delivers it again (DUP), and
    /// once recorded it is answered as a duplicate, never rung twice.
    @Test func aPushThatCannotBeRecordedIsDeliveredAgain() async throws {
        try await onThread {
            let h = try AgentHarness()
            let broker = try MosquittoBroker(directory: h.scratch.file("broker"))
            defer { broker.stop() }
            let conf = try Self.config(h, url: "mqtt://127.0.0.1:\(broker.port)/\(Self.topic)")
            try h.start(extra: ["--config", conf])
            try h.waitFor("the intake subscribed") { broker.log().contains("\(Self.topic) (QoS 1)") }
            // A directory where the ledger file should be: every append fails.
            try FileManager.default.createDirectory(atPath: h.stateDir + "/pushes.jsonl", withIntermediateDirectories: true)
            #expect(try broker.publish(lines: [#"{"id":"unrecorded-1","handle":"2000"}"#], topic: Self.topic, file: h.scratch.file("one")))
            try h.waitFor("the broker delivering it again") {
                broker.log().split(separator: "\n").contains { $0.contains("Sending PUBLISH to wcs-agent-") && $0.contains("(d1,") }
            }
            #expect(h.log().contains("mqtt: the push could not be recorded; dropping the connection"))
            try h.waitFor("the call handled") { h.callRecords().contains { $0["call_id"] == "unrecorded-1" } }
            Thread.sleep(forTimeInterval: 1)
            #expect(h.callRecords().filter { $0["call_id"] == "unrecorded-1" }.count == 1)
        }
    }

    /// Without a loadable libmosquitto the agent runs on (calls ring while its session is up) and says why.
    @Test func withoutLibmosquittoTheAgentRunsOnAndSaysWhy() async throws {
        try await onThread {
            let h = try AgentHarness()
            let (brokenDir, environment) = try LazyLibniceTests.brokenLibrary("libmosquitto.so.1", in: h)
            let conf = try Self.config(h, url: "mqtt://127.0.0.1:1/\(Self.topic)")
            try h.start(extra: ["--config", conf], environment: environment)
            #expect(h.log().contains("cannot load libmosquitto.so.1: \(brokenDir)/libmosquitto.so.1"), "\(h.log().suffix(2000))")
            #expect(h.log().contains("(install libmosquitto1); running WITHOUT the MQTT intake"))
            #expect(try h.status()["state"]?.stringValue == "online")
        }
    }
}
