/// Fades concealed audio out over consecutive lost slots, and back in on the first real frame,
/// so a loss burst ends in silence instead of a buzz or a hard cut.
///
/// The codec's own concealment (libopus PLC) plays the first `fullSlots` lost slots at full
/// level; over the next `fadeSlots` the gain falls linearly, sample by sample, to zero and stays
/// there. The defaults reach zero at the end of the third lost slot, exactly when `JitterBuffer`
/// (`concealmentLimit` 3) gives up concealing and outputs `.silence`, so that switch makes no
/// click. After concealment the first decoded frame (or FEC-recovered frame) ramps from the
/// reached gain back to full level over its length, as NetEQ's "merge" does.
///
/// Runs where playout runs (the media clock thread): a value type with no locks, fed every slot.
public struct ConcealmentFade: Sendable, Equatable {
    /// Lost slots played at full level before the fade starts.
    public let fullSlots: Int
    /// Lost slots over which the gain falls from 1 to 0.
    public let fadeSlots: Int
    /// Lost slots in a row so far (0 after a real frame).
    public private(set) var consecutive = 0
    /// The gain reached at the end of the latest slot, 0...1.
    public private(set) var gain = 1.0

    /// A fade holding `fullSlots` (at least 0) and fading over `fadeSlots` (at least 1).
    public init(fullSlots: Int = 1, fadeSlots: Int = 2) {
        self.fullSlots = max(0, fullSlots)
        self.fadeSlots = max(1, fadeSlots)
    }

    /// Applies the fade to one concealed slot's samples, in place.
    public mutating func conceal(_ samples: UnsafeMutableBufferPointer<Int16>) {
        consecutive += 1
        let fading = consecutive - fullSlots
        let target = fading <= 0 ? 1.0 : max(0, 1 - Double(fading) / Double(fadeSlots))
        Self.ramp(samples, from: gain, to: target)
        gain = target
    }

    /// A decoded frame: ramps it back in when the previous slots were faded, in place.
    public mutating func play(_ samples: UnsafeMutableBufferPointer<Int16>) {
        consecutive = 0
        guard gain < 1 else { return }
        Self.ramp(samples, from: gain, to: 1)
        gain = 1
    }

    /// A silent slot (nothing expected). After a fade-out the gain stays where it got to, so the
    /// next frame fades in; after real audio (a DTX gap) nothing changes.
    public mutating func silence() {
        consecutive = 0
    }

    /// Multiplies by a gain moving linearly from `start` to `end` over the buffer (the last sample
    /// gets `end`); a constant 1 leaves the samples untouched.
    static func ramp(_ samples: UnsafeMutableBufferPointer<Int16>, from start: Double, to end: Double) {
        guard !(start == 1 && end == 1), !samples.isEmpty else { return }
        let step = (end - start) / Double(samples.count)
        for index in samples.indices {
            let gain = start + step * Double(index + 1)
            samples[index] = Int16(clamping: Int((Double(samples[index]) * gain).rounded()))
        }
    }
}
