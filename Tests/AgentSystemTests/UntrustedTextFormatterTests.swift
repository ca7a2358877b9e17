import TestSupport
import Foundation
import Testing
import WCSSession
@testable import AgentCore
@testable import AgentTools

/// Issue 19, invariant (b), at each formatter that turns far-end text into output (pure functions):
/// the `calls` and `status` renderings, `history`'s table, log lines, `STATUS=` for systemctl,
/// Prometheus label values. Each shows the attack escaped, on its own line, never raw.
struct UntrustedTextFormatterTests {
    static let name = UntrustedTextSurfaceTests.hostileName
    static let raw = UntrustedTextSurfaceTests.rawAttack

    static var call: JSONValue {
        ["call_id": "id\n\u{1b}[2J", "direction": "incoming", "status": "RING\u{202e}", "state": "ringing",
         "caller": "10\u{9b}02", "display_name": .string(name)]
    }

    @Test func callsAndStatusRenderings() {
        let table = CallTableFormatter.table([Self.call])
        #expect(Self.raw(table).isEmpty && table.split(separator: "\n").count == 2, "\(table.debugDescription)")
        #expect(table.contains("id\\n\\x1b[2J") && table.contains("10\\x9b02"))
        #expect(Self.raw(StatusFormatter.party(Self.call)).isEmpty)
        let event = StatusFormatter.event(["type": "incoming_call", "time": "2026-12-08T00:00:00.000Z", "call_id": "x\u{1b}]52;c;eA==\u{7}",
                                           "caller": "1", "display_name": .string(Self.name)])
        #expect(Self.raw(event).isEmpty, "\(event.debugDescription)")
    }

    @Test func historyTable() {
        let record = CallRecord(callId: "c", direction: "incoming", caller: "1\u{202e}0", callee: "2", displayName: Self.name,
                                started: Date(), answered: nil, ended: Date(), endResult: .declined, info: nil)
        let table = HistoryCommand.table([record])
        #expect(Self.raw(table).isEmpty && table.split(separator: "\n").count == 2, "\(table.debugDescription)")
    }

    @Test func logLinesSystemdStatusAndMetricLabels() {
        let line = LogLineFormatter(style: .journal).format(level: .info, subsystem: "calls", message: "call from \(Self.name)", time: 0)
        #expect(Self.raw(line).isEmpty && line.hasSuffix("\n") && line.split(separator: "\n").count == 1, "\(line.debugDescription)")
        let status = SystemdNotifier.oneLine("call from \(Self.name)\nnext")
        #expect(Self.raw(status).isEmpty && !status.contains("\n"), "\(status.debugDescription)")
        let label = PrometheusText.escape("id\u{1b}[2J\u{202e}\nx")
        #expect(Self.raw(label).isEmpty && label == "id\\\\x1b[2J\\\\u{202e}\\nx", "\(label.debugDescription)")
    }
}
