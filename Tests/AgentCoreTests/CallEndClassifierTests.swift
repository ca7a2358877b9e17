import TestSupport
import Foundation
import Testing
import WCSSession
@testable import AgentCore

/// The mapping from what the agent saw to a call record's end result.
@Suite struct CallEndClassifierTests {
    func facts(_ direction: CallEntry.Direction = .incoming, _ status: CallStatus = .finish, info: String? = "Normal call clearing",
               answered: Bool = false, ring: Double = 3, _ adjust: (inout CallEndFacts) -> Void = { _ in }) -> CallEndResult {
        var f = CallEndFacts(direction: direction, status: status, info: info, answered: answered)
        f.ringSeconds = ring
        f.ringTimeout = 30
        adjust(&f)
        return CallEndClassifier.classify(f)
    }

    @Test func eachResult() {
        #expect(facts(answered: true) == .completed)
        #expect(facts { $0.declinedByUs = true } == .declined)
        #expect(facts(ring: 3) == .canceled)
        #expect(facts(ring: 29.5) == .noAnswer)
        #expect(facts(info: "Call completed elsewhere") == .answeredElsewhere)
        #expect(facts { $0.rejectedAsBusy = true } == .busy)
        #expect(facts(.outgoing, .busy) == .busy)
        #expect(facts(.outgoing, .failed, info: "Failed by request timeout") == .failed)
        #expect(facts(answered: true) { $0.mediaFailure = "Failed by DTLS error" } == .failed)
        #expect(facts(.outgoing) { $0.hungUpByUs = true } == .canceled)
        #expect(facts(.outgoing) == .noAnswer)
        #expect(facts(answered: true) { $0.connectionLost = true } == .connectionLost)
    }

    /// The server's ESTABLISHED before our answer: another device's call, never `completed` as ours.
    @Test func answeredByAnotherDeviceIsNeverCompleted() {
        #expect(facts(.incoming, .finish, info: "Normal call clearing") { $0.answeredElsewhere = true } == .answeredElsewhere)
        #expect(facts(.incoming, .finish, info: nil, ring: 40) { $0.answeredElsewhere = true } == .answeredElsewhere)
    }

    @Test func busyRejectionWinsOverDecline() {
        #expect(facts { $0.rejectedAsBusy = true; $0.declinedByUs = true } == .busy)
    }
}
