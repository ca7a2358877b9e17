extension JitterBuffer {
    /// How long a target delay is remembered when the delay could shrink (see `heldTarget`).
    static let targetHoldTime = 3.0
    /// How far above the bottom of the delay window an underrun still holds the timeline.
    static let underrunHoldMargin = 0.005

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
        let shrinkTarget = heldTarget(target, now: now)
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
                if isBelowWindow(delay, target: target) && !startingAtOnce { return stretch() }
                startingAtOnce = false
                if shouldSkip(delay: delay, target: shrinkTarget), ring.timestamp(of: nextSequence + 1) != nil {
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
                if isBelowWindow(delay, target: target) { return stretch() }
                markLost()
                let repairable = later == nextSequence && laterTimestamp == playout + frame
                if isAboveWindow(delay, target: shrinkTarget) && !repairable {
                    // Too much delay anyway, and nothing to rebuild the frame from: let the loss
                    // shrink the delay instead of concealing.
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
            // At the bottom of the delay window the packet is most likely just late (a sender
            // clock slower than ours: it comes a little later every time): hold the timeline for
            // it. Higher up it is lost or far behind: conceal and move on. (Holding in the whole
            // lower half made 0-30 ms of jitter stretch here and drop a frame later, again and
            // again: each 20 ms jump costs more speech quality than the concealed frame.)
            if delay < target - frameDuration + Self.underrunHoldMargin - Self.epsilon { return stretch() }
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

    /// Below the delay window (`target` minus one frame): the slot's packet (with
    /// `nextPacketRepairsLoss`, also the one after it) would often not be in hand in time.
    private func isBelowWindow(_ delay: Double, target: Double) -> Bool {
        delay < target - frameDuration - Self.epsilon
    }

    /// Above the delay window: one frame less would still leave the delay above `target` minus
    /// half a frame, so a shrink is not undone by the next stretch.
    private func isAboveWindow(_ delay: Double, target: Double) -> Bool {
        delay >= target + frameDuration / 2 - Self.epsilon
    }

    /// The highest target of the last `targetHoldTime` seconds: what the delay may shrink to.
    /// The target can dip for a moment (its quantile at the edge between two delays that the
    /// 20 ms ticks quantise); shrinking on such a dip was undone by a stretch a moment later, and
    /// each such 20 ms jump costs speech quality (PESQ), unlike a constant delay.
    mutating func heldTarget(_ target: Double, now: Double) -> Double {
        if target >= peakTarget || now - peakTargetTime > Self.targetHoldTime {
            peakTarget = target
            peakTargetTime = now
        }
        return max(target, peakTarget)
    }

    private func shouldSkip(delay: Double, target: Double) -> Bool {
        guard isAboveWindow(delay, target: target) else { return false }
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
