import TestSupport
import Testing
import WCSSession
@testable import AgentCore

/// The call state machine alone: every transition in one pure function.
struct CallLifecycleTests {
    func step(_ state: CallState, _ input: CallInput) -> CallStep? {
        try? CallLifecycle.step(from: state, on: input).get()
    }

    func refusal(_ state: CallState, _ input: CallInput) -> String? {
        if case .failure(let r) = CallLifecycle.step(from: state, on: input) { return r.reason }
        return nil
    }

    @Test func anIncomingCallGoesFromRingingToEstablishedAndEnds() {
        #expect(step(.ringing, .answer) == CallStep(state: .answering))
        #expect(step(.answering, .answerSent) == CallStep(state: .connectingMedia))
        #expect(step(.connectingMedia, .server(.established)) == CallStep(state: .established))
        #expect(step(.established, .server(.hold)) == CallStep(state: .held))
        #expect(step(.held, .server(.established)) == CallStep(state: .established))
        #expect(step(.established, .hangup) == CallStep(state: .ending, effects: [.sendHangup]))
        #expect(step(.ending, .server(.finish)) == CallStep(state: .ended, effects: [.endNow]))
    }

    @Test func aSecondAnswerIsRefusedOnceAnsweringStarted() {
        #expect(refusal(.answering, .answer) == "it is already being answered")
        #expect(refusal(.connectingMedia, .answer) == "it is already being answered")
        #expect(refusal(.established, .answer) == "it is established")
        #expect(refusal(.ending, .answer) != nil)
        #expect(refusal(.answering, .decline) == "it is being answered")
    }

    @Test func hangupIsSentOnceWhateverEndsTheCall() {
        // Only the move into `ending` asks for a hangup; anything after it asks for nothing.
        for first in [CallInput.hangup, .decline, .failed, .rejectBusy] {
            let start: CallState = first == .decline || first == .rejectBusy ? .ringing : .answering
            #expect(step(start, first)?.effects == [.sendHangup], "\(first)")
        }
        #expect(refusal(.ending, .hangup) == "it is already ending")
        #expect(step(.ending, .failed) == CallStep(state: .ending))
        #expect(step(.ending, .unusableOffer) == CallStep(state: .ending))
        #expect(step(.ending, .ringExpired) == CallStep(state: .ending))
        #expect(step(.ending, .server(.established)) == CallStep(state: .ending))
    }

    /// Issue 19 (c): a call another device answered ends here without a hangup (someone talks on
    /// it) and can never be answered by us afterwards; once our answer went out it is ours.
    @Test func aCallAnsweredElsewhereEndsWithoutHangupAndIsNeverAnswered() {
        for state in [CallState.ringing, .answering] {
            #expect(step(state, .answeredElsewhere) == CallStep(state: .ended, effects: [.endNow]), "\(state)")
        }
        for state in [CallState.connectingMedia, .established, .held, .ending, .ended] {
            #expect(step(state, .answeredElsewhere) == CallStep(state: state), "\(state)")
        }
        #expect(refusal(.ended, .answer) != nil)
        #expect(refusal(.ended, .hangup) != nil)
    }

    @Test func anUnusableOfferOrARingExpiryEndsTheCallLocally() {
        #expect(step(.ringing, .unusableOffer) == CallStep(state: .ending, effects: [.sendHangup, .endNow]))
        #expect(step(.ringing, .ringExpired) == CallStep(state: .ending, effects: [.sendHangup, .endNow]))
        // Once answered, an old ring timer changes nothing.
        for state in [CallState.answering, .connectingMedia, .established, .held] {
            #expect(step(state, .ringExpired) == CallStep(state: state), "\(state)")
        }
    }

    @Test func serverStatusesThatDoNotApplyChangeNothing() {
        #expect(step(.ringing, .server(.ring)) == CallStep(state: .ringing))
        #expect(step(.ringing, .server(.established)) == CallStep(state: .ringing))
        #expect(step(.ringing, .server(.hold)) == CallStep(state: .ringing))
        #expect(step(.ended, .server(.finish)) == CallStep(state: .ended))
        #expect(step(.ended, .sessionLost) == CallStep(state: .ended))
        for state in CallState.allCases where state != .ended {
            #expect(step(state, .server(.failed)) == CallStep(state: .ended, effects: [.endNow]), "\(state)")
            #expect(step(state, .sessionLost) == CallStep(state: .ended, effects: [.endNow]), "\(state)")
        }
    }

    @Test func onlyLiveCallsTakeASlot() {
        #expect(CallState.allCases.filter(\.isLive) == [.ringing, .answering, .connectingMedia, .established, .held])
    }
}
