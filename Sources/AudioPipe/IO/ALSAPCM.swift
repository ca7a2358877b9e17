import CALSA
import FoundationEssentials
import Glibc
import MainLoop

/// One open ALSA PCM (alsa-lib), configured for 48 kHz mono s16le interleaved. alsa-lib's plug
/// layer converts to and from the device's own rate, format and channels (`soft_resample`), so a
/// 44.1 kHz card or a PipeWire/PulseAudio ALSA plugin works unchanged. The period size is the one
/// the device grants (`snd_pcm_get_params`); transfers are done a period at a time, and an xrun
/// (-EPIPE), a suspend (-ESTRPIPE) or an interrupted call is recovered with `snd_pcm_recover`
/// and counted.
///
/// Used by one thread at a time: the I/O thread of `ALSASource` or `ALSASink` (blocking calls),
/// then the closing thread once that I/O thread has finished.
final class ALSAPCM: @unchecked Sendable {  // unchecked: wraps a snd_pcm_t* (C handle) that one thread at a time uses, handed from the I/O thread to close() after it ends
    /// The PCM name as given (`default`, `hw:1,0`, `plughw:CARD=USB`, a name from an asoundrc).
    let name: String
    /// Frames per period granted by the device.
    let periodFrames: Int
    /// Frames in the device buffer.
    let bufferFrames: Int
    private var handle: OpaquePointer?
    /// Xruns and suspends recovered so far.
    private(set) var recoveries = 0

    /// Opens and configures `name` for capture or playback, asking for `latencyMicroseconds` of buffer.
    init(name: String, capture: Bool, latencyMicroseconds: UInt32 = 100_000) throws(AudioIOError) {
        self.name = name
        try Self.requireLibrary()
        var pcm: OpaquePointer?
        let direction = capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK
        var status = snd_pcm_open(&pcm, name, direction, 0)
        guard status >= 0, let pcm else { throw Self.error("snd_pcm_open \(name)", status) }
        status = snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1,
                                    UInt32(AudioPipe.sampleRate), 1, latencyMicroseconds)
        guard status >= 0 else {
            snd_pcm_close(pcm)
            throw Self.error("configure \(name) for 48 kHz mono s16le", status)
        }
        var buffer: snd_pcm_uframes_t = 0, period: snd_pcm_uframes_t = 0
        status = snd_pcm_get_params(pcm, &buffer, &period)
        guard status >= 0, period > 0 else {
            snd_pcm_close(pcm)
            throw Self.error("read the period size of \(name)", status)
        }
        handle = pcm
        periodFrames = Int(period)
        bufferFrames = Int(buffer)
        Log.info("audio", "ALSA \(capture ? "capture" : "playback") \(name): period \(periodFrames) frames, buffer \(bufferFrames) frames at 48 kHz")
    }

    deinit { close() }

    /// Reads up to `frames` frames (blocking). Returns the count, 0 after a recovered xrun, or
    /// throws when the device failed for good.
    func read(_ buffer: UnsafeMutablePointer<Int16>, frames: Int) throws(AudioIOError) -> Int {
        guard let handle else { throw .closed }
        let got = snd_pcm_readi(handle, buffer, snd_pcm_uframes_t(frames))
        return got >= 0 ? Int(got) : try recover(Int32(got), "read from")
    }

    /// Writes up to `frames` frames (blocking). Returns the count written, 0 after a recovered xrun.
    func write(_ buffer: UnsafePointer<Int16>, frames: Int) throws(AudioIOError) -> Int {
        guard let handle else { throw .closed }
        let put = snd_pcm_writei(handle, buffer, snd_pcm_uframes_t(frames))
        return put >= 0 ? Int(put) : try recover(Int32(put), "write to")
    }

    /// The device's delay in frames (`snd_pcm_delay`): for playback, how long a frame written now
    /// takes to be heard; for capture, how many captured frames wait to be read. nil when the
    /// device cannot tell (not running, or an xrun being recovered).
    func delay() -> Int? {
        guard let handle else { return nil }
        var frames: snd_pcm_sframes_t = 0
        return snd_pcm_delay(handle, &frames) >= 0 && frames >= 0 ? Int(frames) : nil
    }

    /// Lets queued playback finish (at most what the buffer holds).
    func drain() {
        if let handle { snd_pcm_drain(handle) }
    }

    /// Closes the PCM. Idempotent.
    func close() {
        guard let handle else { return }
        self.handle = nil
        snd_pcm_close(handle)
    }

    private func recover(_ status: Int32, _ what: String) throws(AudioIOError) -> Int {
        guard let handle else { throw .closed }
        if status == -EAGAIN { return 0 }
        guard snd_pcm_recover(handle, status, 1) >= 0 else { throw Self.error("\(what) \(name)", status) }
        recoveries += 1
        if status == -EPIPE { Log.debug("audio", "ALSA \(name): xrun recovered") }
        return 0
    }

    /// Loads alsa-lib (once, at the first `alsa:` device; see Sources/CALSA) or throws
    /// `libraryUnavailable` with the loader's reason.
    static func requireLibrary() throws(AudioIOError) {
        guard calsa_library_load() == 0 else { return }
        let reason = calsa_library_error().map { String(cString: $0) } ?? "unknown reason"
        Log.error("audio", "alsa-lib cannot be loaded: \(reason)")
        throw .libraryUnavailable(reason)
    }

    static func error(_ operation: String, _ status: Int32) -> AudioIOError {
        .system(operation: "ALSA " + operation, errno: -status, message: String(cString: snd_strerror(status)))
    }
}

/// Keeps an I/O thread from running ahead of real time by more than `slack` frames. A real card
/// blocks in `readi`/`writei` and never needs it; ALSA's timer-less plugins (`null`, `file` on
/// `null`) return at once and would otherwise spin, filling rings and files as fast as the CPU goes.
struct ALSARealTimePacer {
    private let start = MonotonicTime.now()
    private var frames = 0
    let slack: Int

    init(slack: Int) { self.slack = slack }

    /// Counts `count` frames moved, and sleeps while more than `slack` frames ahead of the clock.
    mutating func moved(_ count: Int) {
        frames += count
        let ahead = Double(frames - slack) / Double(AudioPipe.sampleRate) - (MonotonicTime.now() - start)
        if ahead > 0 { usleep(UInt32(min(ahead, 1) * 1_000_000)) }
    }
}
