extension JitterBuffer {
    /// Produces the output for the next 20 ms slot at monotonic time `now` (seconds). Call it
    /// once per frame period.
    public mutating func pop(now: Double) -> JitterOutput {
        switch mode {
        case .empty:
            return silence()
        case .waiting, .silent:
            guard let first = firstBuffered(from: nextSequence), let firstTimestamp = ring.timestamp(of: first) else {
                playout += frame
                return silence()
            }
            var due = framesDue(timestamp: firstTimestamp, now: now)
            if due < 0 && mode == .waiting && configuration.startsAtOnce {
                // The stream's first packet plays now; the delay then grows to the target by
                // stretching (as NetEQ starts), instead of holding the first audio back.
                due = 0
                startingAtOnce = true
            }
            if due < 0 {
                playout = firstTimestamp + Int64(due + 1) * frame
                return silence()
            }
            // A talkspurt starts: anchor playout at the target delay.
            if mode == .silent {
                for sequence in nextSequence..<first { ring.markMissing(sequence) }
                counters.lost += Int(first - nextSequence)
            }
            nextSequence = first
            playout = firstTimestamp + Int64(due) * frame
            mode = .playing
            emptyStreak = 0
            slotsSinceSkip = configuration.skipSpacing
        case .playing:
            break
        }
        return playSlot(now: now)
    }

    /// One slot of a talkspurt.
    private mutating func playSlot(now: Double) -> JitterOutput {
        let target = targetDelay
        var delay = currentDelay(now: now)
        defer { slotDelay = mode == .playing ? delay : nil }
        while true {
            if let timestamp = ring.timestamp(of: nextSequence) {
                if timestamp < playout {
                    if Double(playout - timestamp) / Double(configuration.clockRate) > configuration.resyncThreshold {
                        playout = timestamp  // the sender's timeline moved back: follow it
                        delay = currentDelay(now: now)
                        continue
                    }
                    _ = takeNext()
                    counters.late += 1
                    nextSequence += 1
                    continue
                }
                if timestamp >= playout + frame {
                    if let output = gapSlot(nextTimestamp: timestamp, now: now) { return output }
                    delay = currentDelay(now: now)
                    continue
                }
                if delay < target - frameDuration - Self.epsilon && !startingAtOnce { return stretch() }
                startingAtOnce = false
                if shouldSkip(delay: delay, target: target), ring.timestamp(of: nextSequence + 1) != nil {
                    _ = takeNext()
                    counters.skipped += 1
                    advance()
                    slotsSinceSkip = 0
                    delay -= frameDuration
                    continue
                }
                let payload = takeNext()
                counters.played += 1
                advance()
                emptyStreak = 0
                return .frame(payload)
            }
            if let later = firstBuffered(from: nextSequence + 1), let laterTimestamp = ring.timestamp(of: later) {
                // nextSequence is missing; assume the frames up to `later` were contiguous.
                let presumed = laterTimestamp - (later - nextSequence) * frame
                if presumed < playout {
                    markLost()  // its slot already passed (concealed during an underrun)
                    continue
                }
                if presumed >= playout + frame {
                    if let output = gapSlot(nextTimestamp: presumed, now: now) { return output }
                    delay = currentDelay(now: now)
                    continue
                }
                if delay < target - frameDuration - Self.epsilon { return stretch() }
                markLost()
                if delay >= target + frameDuration / 2 {
                    // Too much delay anyway: let the loss shrink it instead of concealing.
                    playout += frame
                    slotsSinceSkip = 0
                    delay -= frameDuration
                    continue
                }
                playout += frame
                slotsSinceSkip += 1
                emptyStreak = 0
                counters.concealed += 1
                let fec = later == nextSequence && laterTimestamp == playout ? ring.payload(of: later) : nil
                return .lost(nextPayloadForFEC: fec)
            }
            // Nothing buffered: an underrun, or the start of a gap.
            emptyStreak += 1
            if emptyStreak > configuration.concealmentLimit {
                mode = .silent
                playout += frame
                return silence()
            }
            // In the lower half of the delay window the packet is most likely just late (drift,
            // jitter): hold the timeline for it. Otherwise conceal and move on.
            if delay < target - frameDuration / 2 - Self.epsilon { return stretch() }
            playout += frame
            slotsSinceSkip += 1
            counters.concealed += 1
            return .lost(nextPayloadForFEC: nil)
        }
    }

    /// A slot before a packet that is not due yet (DTX gap). The gap absorbs delay changes
    /// for free: playout is re-aligned so the packet plays exactly when the target delay says.
    /// Returns nil when the packet is due now (playout was moved onto it).
    private mutating func gapSlot(nextTimestamp: Int64, now: Double) -> JitterOutput? {
        let due = framesDue(timestamp: nextTimestamp, now: now)
        if due >= 0 {
            playout = nextTimestamp + Int64(due) * frame
            return nil
        }
        playout = nextTimestamp + Int64(due + 1) * frame
        emptyStreak = 0
        return silence()
    }

    /// Whole frames by which the frame at `timestamp` is past the moment the target delay
    /// would play it (negative: frames until then).
    private func framesDue(timestamp: Int64, now: Double) -> Int {
        guard let reference = baseline.reference else { return 0 }
        let delay = now - reference - mediaTime(timestamp)
        let frames = ((delay - (targetDelay - frameDuration)) / frameDuration + Self.epsilon).rounded(.down)
        guard frames.isFinite else { return 0 }
        return Int(min(max(frames, -1_000_000), 1_000_000))
    }

    /// Seconds between the playout slot's earliest possible arrival and `now`.
    private func currentDelay(now: Double) -> Double {
        guard let reference = baseline.reference else { return 0 }
        return now - reference - mediaTime(playout)
    }

    private func shouldSkip(delay: Double, target: Double) -> Bool {
        guard delay >= target + frameDuration / 2 else { return false }
        return slotsSinceSkip >= configuration.skipSpacing || delay >= target + 3 * frameDuration
    }

    private mutating func advance() {
        nextSequence += 1
        playout += frame
        slotsSinceSkip += 1
    }

    /// Removes the packet at `nextSequence` from the buffer and returns its payload.
    private mutating func takeNext() -> [UInt8] {
        bufferedCount -= 1
        return ring.take(nextSequence)
    }

    private mutating func markLost() {
        ring.markMissing(nextSequence)
        counters.lost += 1
        nextSequence += 1
    }

    /// Conceals one slot without advancing playout, growing the delay by a frame.
    private mutating func stretch() -> JitterOutput {
        counters.concealed += 1
        counters.stretched += 1
        slotsSinceSkip += 1
        return .lost(nextPayloadForFEC: nil)
    }

    private mutating func silence() -> JitterOutput {
        counters.silence += 1
        return .silence
    }
}
