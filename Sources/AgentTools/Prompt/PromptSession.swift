import AgentCore
import FoundationEssentials
import MainLoop
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import WCSSession

/// One attached prompt: an event thread (subscribed connection: events, then a fresh `status`),
/// the calling thread reading keys or lines (its own connection for requests), and one render
/// path. Everything blocks on its own thread, never on the Swift cooperative pool.
///
/// Runs on: those two threads (and the signal queue's `resized`). The state, the screen and the
/// exit code are one value in a `Mutex`, so every change and its rendering happen together and
/// the type is checked Sendable.
final class PromptSession: Sendable {
    /// What the threads share: changed and drawn only inside `display`'s lock.
    private struct Display {
        var state: PromptState
        let screen: PromptScreen  // not thread-safe: only touched inside the lock
        var exitCode: Int32?
        var exitMessage = ""
    }

    private let display: Mutex<Display>
    private let live: Bool
    private let connection: PromptConnection  // events: event thread; requests: input thread
    private let input: Int32
    private let wake: [Int32]  // self-pipe: the event thread wakes the input thread to stop

    /// Takes the connected pair: `events` for the subscription, `requests` for verbs.
    init(connection: PromptConnection, input: Int32, output: Int32, live: Bool, ringTimeout: Double) {
        self.connection = connection
        self.input = input
        self.live = live
        display = Mutex(Display(state: PromptState(defaultRingTimeout: ringTimeout), screen: PromptScreen(fd: output, live: live)))
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        wake = fds
    }

    deinit { wake.forEach(FileDescriptorIO.close) }

    /// Subscribes, shows the state and runs until detached (q) or stdin ends. When the daemon
    /// goes away it says so, waits for it and attaches again. Blocks the calling thread; returns
    /// the exit code.
    func run() throws -> Int32 {
        try attach()
        NamedThread.start("prompt-events", stackSize: 1 << 20) { [self] in eventLoop() }
        if live { readKeys() } else { readLines() }
        return display.withLock { display in
            display.screen.finish(display.exitMessage)
            return display.exitCode ?? 0
        }
    }

    /// Redraws after a terminal resize.
    func resized() {
        display.withLock { $0.screen.redraw(clearScreen: false) }
    }

    // MARK: - Event thread

    /// Says `hello` on both connections, subscribes on the events one and shows a fresh status.
    private func attach() throws {
        try connection.withEvents { client in _ = try client.hello() }
        try connection.withRequests { client in _ = try client.hello() }
        try connection.withEvents { try $0.subscribe(timeout: 5) }
        let status = try statusJSON()
        update { $0.apply(status: status, now: Date()) }
    }

    /// After the daemon went away: says so, waits until it is back and attaches again.
    private func reattach(after error: Error) {
        notes(["wcs-agent went away (\(error)); waiting for it to come back (q quits)"])
        while connection.reconnect(stopped: { stopped }) {
            do {
                try attach()
                notes(["wcs-agent is back: attached again"])
                return
            } catch ControlClientError.protocolMismatch(let message) {
                return stop(code: ExitCode.protocolMismatch.rawValue, message: "wcs-agent prompt: \(message)")
            } catch {
                continue  // it went away again while we attached
            }
        }
    }

    private func eventLoop() {
        while !stopped {
            do {
                let event = try connection.withEvents { try $0.nextEvent(timeout: 0.5) }
                var outcome = PromptState.EventOutcome()
                update {
                    outcome = $0.apply(event: event, now: Date())
                    return outcome.ring
                }
                notes(outcome.notes)
                if outcome.refresh {
                    let status = try statusJSON()
                    update { $0.apply(status: status, now: Date()) }
                }
            } catch ControlClientError.timedOut {
                update { _ in false }  // countdowns and durations tick
            } catch {
                if !stopped { reattach(after: error) }
            }
        }
        connection.closeEvents()
    }

    // MARK: - Input thread

    private func readKeys() {
        var decoder = PromptKeyDecoder()
        while let bytes = nextInput() {
            for key in decoder.feed(bytes) {
                let typing = locked { $0.transferInput != nil }  // t switches to typing mid-read
                if let action = PromptKeyDecoder.action(key, typing: typing) { perform(action) }
            }
        }
    }

    private func readLines() {
        var pending: [UInt8] = []
        while let bytes = nextInput() {
            pending += bytes
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                guard let actions = PromptLineCommand.parse(line) else {
                    notes(["Unknown command \"\(line)\": a, d, h, p, m, q, DIGITS, t TARGET"])
                    continue
                }
                actions.forEach(perform)
            }
        }
    }

    /// The next bytes from stdin; nil when stopping or at end of input (which detaches).
    private func nextInput() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 256)
        while !stopped {
            var fds = [pollfd(fd: input, events: Int16(POLLIN), revents: 0), pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, 1000)
            if ready < 0 && errno != EINTR { break }
            guard ready > 0, fds[0].revents != 0 else { continue }
            let count = read(input, &buffer, buffer.count)
            if count > 0 { return Array(buffer[..<count]) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            stop(code: ExitCode.ok.rawValue, message: "detached (end of input); wcs-agent keeps running")
            return nil
        }
        return nil
    }

    private func perform(_ action: PromptAction) {
        let snapshot = locked { $0 }
        switch action {
        case .detach:
            stop(code: ExitCode.ok.rawValue, message: "detached; wcs-agent and its calls keep running")
        case .redraw:
            display.withLock { $0.screen.redraw(clearScreen: true) }
        case .answer, .decline:
            guard let call = snapshot.ringingCall else { return notes(["No call is ringing"]) }
            send(action == .answer ? ControlVerbs.answer : ControlVerbs.decline, CallArguments(callId: call.callId), timeout: action == .answer ? 30 : nil)
        case .hangup:
            if let call = snapshot.activeCall {
                send(ControlVerbs.hangup, CallArguments(callId: call.callId))
            } else if let call = snapshot.ringingCall {
                send(ControlVerbs.decline, CallArguments(callId: call.callId))
            } else {
                notes(["No call to hang up"])
            }
        case .holdToggle:
            guard let call = snapshot.activeCall else { return notes(["No call to hold"]) }
            send(call.isOnHold ? ControlVerbs.resume : ControlVerbs.hold, CallArguments(callId: call.callId))
        case .muteToggle:
            guard let call = snapshot.activeCall else { return notes(["No call to mute"]) }
            send(call.muted == true ? ControlVerbs.unmute : ControlVerbs.mute, CallArguments(callId: call.callId))
        case .dtmf(let digits):
            guard let call = snapshot.activeCall else { return notes(["No call for DTMF \(digits)"]) }
            send(ControlVerbs.dtmf, DTMFArguments(digits: digits, type: nil, callId: call.callId))
        case .startTransfer:
            guard let call = snapshot.activeCall else { return notes(["No call to transfer"]) }
            update {
                $0.transferInput = PromptState.TransferInput(callId: call.callId)
                return false
            }
        case .transfer(let target):
            guard let call = snapshot.activeCall else { return notes(["No call to transfer"]) }
            transfer(call.callId, to: target)
        case .type(let text):
            update {
                $0.transferInput?.text += text
                return false
            }
        case .backspace:
            update {
                if $0.transferInput?.text.isEmpty == false { $0.transferInput?.text.removeLast() }
                return false
            }
        case .cancel:
            update {
                $0.transferInput = nil
                return false
            }
        case .submit:
            guard let input = snapshot.transferInput else { return }
            update {
                $0.transferInput = nil
                return false
            }
            let target = input.text.trimmingSpaces()
            if target.isEmpty { return notes(["Transfer cancelled: no target"]) }
            transfer(input.callId, to: target)
        }
    }

    private func transfer(_ callId: String, to target: String) {
        notes(["Transferring \(locked { $0.describe(callId) }) to \(target)"])
        send(ControlVerbs.transfer, TransferArguments(target: target, callId: callId))
    }

    /// A fresh `status` for the state (event thread only).
    private func statusJSON() throws -> JSONValue {
        try ControlCoding.json(try connection.withEvents { try $0.request(ControlVerbs.status, NoArguments()) })
    }

    /// Sends one typed verb on the requests connection; failures become notes (an older daemon's
    /// `unknown_verb` included). A result carrying `muted` or `held` updates the call at once.
    private func send<Arguments, Result>(_ verb: ControlVerb<Arguments, Result>, _ arguments: Arguments, timeout: Double? = nil)
        where Arguments: CallTargeting
    {
        do {
            let result = try connection.withRequests { try $0.request(verb, arguments, timeout: timeout ?? 15) }
            let json = (try? ControlCoding.json(result)) ?? .null
            update {
                $0.apply(result: json, callId: arguments.callId ?? "")
                return false
            }
        } catch ControlClientError.remote(let code, let message) {
            if code == ControlErrorCode.unknownVerb {
                notes(["This wcs-agent daemon does not support \"\(verb.name)\" (unknown verb); update and restart it"])
            } else {
                notes(["\(verb.name) failed: \(message)"])
            }
        } catch ControlClientError.timedOut {
            notes(["\(verb.name): no answer from wcs-agent yet; watch for the result here"])
        } catch {
            notes(["\(verb) not sent: wcs-agent is not attached (\(error))"])
        }
    }

    // MARK: - State and rendering (one place, under the lock)

    private var stopped: Bool { display.withLock { $0.exitCode != nil } }

    private func stop(code: Int32, message: String) {
        display.withLock { display in
            if display.exitCode == nil {
                display.exitCode = code
                display.exitMessage = message
            }
        }
        var byte: UInt8 = 1
        _ = write(wake[1], &byte, 1)
    }

    private func locked<T: Sendable>(_ body: (PromptState) -> T) -> T {
        display.withLock { body($0.state) }
    }

    /// Changes the state, then renders; `change` returns true to ring the bell (a new incoming call).
    private func update(_ change: (inout PromptState) -> Bool) {
        display.withLock { display in
            let bell = change(&display.state)
            guard display.exitCode == nil else { return }
            let now = Date()
            display.screen.show(PromptView.lines(display.state, now: now), signature: PromptView.signature(display.state, now: now),
                                bell: bell)
        }
    }

    private func notes(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        display.withLock { display in
            for line in lines { display.screen.note(line) }
        }
    }
}
