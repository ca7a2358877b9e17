@testable import AgentCore
import Testing
import TestSupport
import WCSSession

/// The reconnect spread policy (`ReconnectSpread`, `ReconnectCause`, `ReconnectSchedule`): pure, seeded.
@Suite struct ReconnectSpreadTests {
    /// A schedule; `established`: the agent has had a session (the spread is for losing one).
    static func schedule(window: Double, cap: Double = 60, seed: UInt64 = 7, established: Bool = true) -> ReconnectSchedule<RTPSeededGenerator> {
        var schedule = ReconnectSchedule(spread: ReconnectSpread(window: window), backoff: Backoff(cap: cap),
                                         generator: RTPSeededGenerator(seed: seed))
        if established { schedule.online() }
        return schedule
    }

    @Test func atStartARefusedTokenWaitsOnlyTheStartJitterAndNothingElseWaitsForTheSpread() {
        for seed in UInt64(1)...50 {
            var schedule = Self.schedule(window: 3600, seed: seed, established: false)
            #expect(!schedule.logsInRightAfterRefusedToken)
            let closed = schedule.next(after: .serverClosed)
            #expect(!closed.isSpread && !closed.isStartJitter && closed.seconds <= 0.5)
            let refused = schedule.next(after: .tokenRefused)
            #expect(refused.isStartJitter && !refused.isSpread)
            #expect(refused.seconds >= 0 && refused.seconds < ReconnectSchedule<RTPSeededGenerator>.startJitterLimit)
            #expect(schedule.logsInRightAfterRefusedToken)
        }
        // A lone agent (W = 0) has no start jitter either; a short W bounds it.
        var lone = Self.schedule(window: 0, established: false)
        #expect(lone.logsInRightAfterRefusedToken && !lone.next(after: .tokenRefused).isStartJitter)
        var short = Self.schedule(window: 2, established: false)
        #expect(short.startJitter == 2 && short.next(after: .tokenRefused).seconds < 2)
    }

    @Test func aLossWhileACallIsUpNeverWaitsForTheSpread() {
        var schedule = Self.schedule(window: 3600)
        let wait = schedule.next(after: .serverClosed, callUp: true)
        #expect(!wait.isSpread && wait.seconds <= 0.5)
        // The call is over by the next failure: that one may still wait for the spread.
        #expect(schedule.next(after: .serverClosed).isSpread)
    }

    @Test func spreadDelaysFillTheWindowAndStayBelowIt() {
        let spread = ReconnectSpread(window: 60)
        var generator = RTPSeededGenerator(seed: 1)
        let delays = (0..<10_000).map { _ in spread.delay(using: &generator) }
        #expect(delays.allSatisfy { $0 >= 0 && $0 < 60 })
        // Uniform: each tenth of the window gets about a tenth of the draws.
        for slice in 0..<10 {
            let count = delays.filter { Int($0 / 6) == slice }.count
            #expect((850...1150).contains(count), "slice \(slice): \(count)")
        }
    }

    @Test func zeroAndNonsenseWindowsMeanNoSpread() {
        var generator = RTPSeededGenerator(seed: 2)
        #expect(ReconnectSpread(window: 0).delay(using: &generator) == 0)
        #expect(!ReconnectSpread(window: -5).isOn && !ReconnectSpread(window: .nan).isOn)
        #expect(ReconnectSpread(window: 1e9).window == ReconnectSpread.maximumWindow)
    }

    @Test func whatTheServerCausedIsToldFromWhatWeCaused() {
        #expect(ReconnectCause(.closedByServer(code: 1002, reason: "Service restart")) == .serverClosed)
        #expect(ReconnectCause(.closedByServer(code: 1001, reason: "")) == .serverClosed)
        #expect(ReconnectCause(.rejected("Session not found")) == .serverClosed)
        #expect(ReconnectCause(.connectionLost("connection dropped")) == .localLoss)
        #expect(ReconnectCause(.pingTimeout(seconds: 15)) == .localLoss)
        #expect(ReconnectCause(failure: .tryLater) == .serverBusy)
        #expect(ReconnectCause(failure: .loginDeferred) == .tokenRefused)
        #expect(ReconnectCause(failure: .connect) == .localLoss)
        #expect(ReconnectCause(failure: .timeout) == .localLoss)
        #expect([ReconnectCause.serverClosed, .tokenRefused, .serverBusy].allSatisfy { $0.isServerCaused })
        #expect(!ReconnectCause.localLoss.isServerCaused)
    }

    @Test func aServerCausedLossWaitsForTheSpreadOnceThenBacksOff() {
        var schedule = Self.schedule(window: 60)
        let first = schedule.next(after: .serverClosed)
        #expect(first.isSpread && first.seconds >= 0 && first.seconds < 60)
        // Repeated failures after the spread: full-jitter backoff, 0.5 s doubling.
        let ceilings = [0.5, 1, 2, 4, 8]
        for ceiling in ceilings {
            let wait = schedule.next(after: .serverBusy)
            #expect(!wait.isSpread && wait.seconds >= 0 && wait.seconds <= ceiling)
        }
    }

    @Test func theSameSeedGivesTheSameWaits() {
        var a = Self.schedule(window: 30, seed: 42), b = Self.schedule(window: 30, seed: 42)
        let causes: [ReconnectCause] = [.serverClosed, .serverBusy, .localLoss, .serverBusy]
        #expect(causes.map { a.next(after: $0) } == causes.map { b.next(after: $0) })
        var c = Self.schedule(window: 30, seed: 43)
        #expect(causes.map { a.next(after: $0) } != causes.map { c.next(after: $0) })
    }

    @Test func aLossOnOurSideGoesAtOnceAsBefore() {
        var schedule = Self.schedule(window: 60)
        let wait = schedule.next(after: .localLoss)
        #expect(!wait.isSpread && wait.seconds <= 0.5)
        // ...and a server-caused failure later in the same outage still gets its one spread wait.
        #expect(schedule.next(after: .tokenRefused).isSpread)
        #expect(!schedule.next(after: .tokenRefused).isSpread)
    }

    @Test func aLoneAgentNeverWaitsForASpread() {
        var schedule = Self.schedule(window: 0)
        for cause in [ReconnectCause.serverClosed, .tokenRefused, .serverBusy] {
            #expect(!schedule.next(after: cause).isSpread)
        }
        #expect(Self.schedule(window: 0).logsInRightAfterRefusedToken)
    }

    @Test func aRefusedTokenLogsInRightAwayOnlyAfterTheSpread() {
        var schedule = Self.schedule(window: 60)
        #expect(!schedule.logsInRightAfterRefusedToken)
        _ = schedule.next(after: .serverClosed)
        #expect(schedule.logsInRightAfterRefusedToken)
        schedule.online()
        #expect(!schedule.logsInRightAfterRefusedToken && schedule.backoff.attempt == 0)
    }

    @Test func pushbackInARowGivesUpTheTokenAndOnlineForgetsIt() {
        var schedule = Self.schedule(window: 0)
        for _ in 1..<ReconnectSchedule<RTPSeededGenerator>.pushbacksBeforeLogin {
            _ = schedule.next(after: .serverBusy)
            #expect(!schedule.givesUpToken)
        }
        _ = schedule.next(after: .serverBusy)
        #expect(schedule.givesUpToken)
        schedule.online()
        #expect(!schedule.givesUpToken && schedule.pushbacks == 0)
    }

    @Test func pushbackNeverLoopsTightly() {
        var schedule = Self.schedule(window: 0, cap: 60)
        let waits = (0..<12).map { _ in schedule.next(after: .serverBusy) }
        // The ceilings grow: by the 8th refusal the agent may wait up to a minute.
        #expect(schedule.backoff.currentCeiling == 60)
        #expect(waits.map(\.seconds).reduce(0, +) > 10)
    }

    @Test func aReloadChangesTheSpreadAndRestartsTheBackoffOnlyForANewCap() {
        var schedule = Self.schedule(window: 60, cap: 60)
        _ = schedule.next(after: .serverClosed); _ = schedule.next(after: .localLoss)
        schedule.configure(spreadWindow: 0, backoffCap: 60)
        #expect(!schedule.spread.isOn && schedule.backoff.attempt == 1)
        schedule.configure(spreadWindow: 10, backoffCap: 30)
        #expect(schedule.spread.window == 10 && schedule.backoff.attempt == 0 && schedule.backoff.cap == 30)
    }

    @Test func configFileAndFlagSetTheSpread() throws {
        #expect(AgentConfig(server: "ws://a").reconnectSpread == ReconnectSpread.defaultWindow)
        let flag = try ConfigLoader.load(arguments: ["--server", "ws://a", "--reconnect-spread", "0"], environment: [:])
        #expect(flag.reconnectSpread == 0)
        #expect(throws: ConfigError.self) {
            try ConfigLoader.load(arguments: ["--server", "ws://a", "--reconnect-spread", "-1"], environment: [:])
        }
    }
}
