import Foundation

/// The emulator's fault switches, node down/up and token ledger (Tests/Emulator README "Faults").
extension EmulatorControl {
    /// `POST /faults`: e.g. `["registrar_fail_next": 1]`, `["upgrade_refuse_next": 1, "upgrade_retry_after": 2]`,
    /// `["close_1013_next": 2]`, `["registrar_silent_next": 1]`, `["handshake_stall": true]`.
    @discardableResult
    public func setFaults(_ changes: [String: EmulatorJSON]) throws -> EmulatorJSON {
        try post("/faults", changes)
    }

    /// How many times the fault `name` fired (`upgrade_refused`, `closed_1013`, `registrar_failed`,
    /// `registrar_silent`).
    public func faultCount(_ name: String) throws -> Int {
        try get("/faults")["fired"]?[name]?["count"]?.intValue ?? 0
    }

    /// `POST /down`: the node dies (sockets dropped, port refuses); `forget` also loses every session.
    public func down(forget: Bool = false) throws {
        try post("/down", ["forget": .bool(forget)])
    }

    /// `POST /up`: the node serves again on the same port.
    public func up() throws {
        try post("/up")
    }

    /// `GET /tokens`: tokens presented here: `presented`, `known`, `own_unknown`, `foreign` (issued by
    /// another node; needs `--name`).
    public func tokenCounts() throws -> [String: Int] {
        let view = try get("/tokens")
        var counts: [String: Int] = [:]
        for key in ["presented", "known", "own_unknown", "foreign"] { counts[key] = view[key]?.intValue ?? 0 }
        return counts
    }
}
