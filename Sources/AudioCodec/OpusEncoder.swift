import COpus

/// The `CodecError` for a negative libopus return code, with `opus_strerror`'s text.
func opusError(_ code: Int32, _ function: String) -> CodecError {
    .opus(function: function, code: code, message: String(cString: opus_strerror(code)))
}

/// Returns a non-negative libopus return code, or throws the matching `CodecError`.
@discardableResult
func checkOpus(_ code: Int32, _ function: String) throws -> Int32 {
    guard code >= 0 else { throw opusError(code, function) }
    return code
}

/// A libopus encoder for 48 kHz mono, 20 ms frames (see `OpusEncoderConfiguration`).
///
/// Encoding reuses one packet buffer; the only per-frame allocation is the returned payload.
///
/// Runs on: its owner's thread, one call at a time (in a call: the media clock thread, through
/// `CallAudioEngine`). Not Sendable and without a lock: the compiler keeps it with its owner.
public final class OpusEncoder: AudioEncoder {
    /// Largest payload libopus may produce for one frame.
    static let maxPayloadBytes = 1_500

    private let encoder: OpaquePointer
    private let channels: Int
    private var packet = [UInt8](repeating: 0, count: OpusEncoder.maxPayloadBytes)
    private var current: OpusEncoderConfiguration
    private var dtxFrame = false

    /// Creates a mono encoder with the given configuration.
    public convenience init(configuration: OpusEncoderConfiguration = OpusEncoderConfiguration()) throws {
        try self.init(configuration: configuration, channels: 1)
    }

    /// Creates an encoder for `channels` interleaved channels (tests use 2 to make stereo packets).
    init(configuration: OpusEncoderConfiguration, channels: Int) throws {
        try configuration.validate()
        var error: Int32 = OPUS_OK
        guard let encoder = opus_encoder_create(Int32(AudioFormat.sampleRate), Int32(channels),
                                                configuration.application.rawValue, &error), error == OPUS_OK else {
            throw opusError(error == OPUS_OK ? OPUS_ALLOC_FAIL : error, "opus_encoder_create")
        }
        self.encoder = encoder
        self.channels = channels
        self.current = configuration
        do {
            try apply(configuration)
        } catch {
            opus_encoder_destroy(encoder)
            throw error
        }
    }

    deinit { opus_encoder_destroy(encoder) }

    /// Always 48 000: Opus RTP timestamps use a 48 kHz clock whatever the coded bandwidth.
    public var clockRate: Int { AudioFormat.sampleRate }

    /// The configuration in force.
    public var configuration: OpusEncoderConfiguration { current }

    /// The encoder's algorithmic delay in samples at 48 kHz (`OPUS_GET_LOOKAHEAD`).
    public var lookahead: Int {
        var value: Int32 = 0
        _ = wcs_opus_encoder_get_lookahead(encoder, &value)
        return Int(value)
    }

    public var lastFrameWasDTX: Bool { dtxFrame }

    /// A payload of at most 2 bytes is a DTX frame (TOC byte only, or TOC plus padding).
    public static func isDTXFrame(_ payload: [UInt8]) -> Bool { payload.count <= 2 }

    /// Applies a new configuration to the running encoder (the application mode cannot change).
    public func reconfigure(_ configuration: OpusEncoderConfiguration) throws {
        try configuration.validate()
        guard configuration.application == current.application else {
            throw CodecError.invalidConfiguration("the application mode cannot change on a running encoder")
        }
        try apply(configuration)
        current = configuration
    }

    /// Changes the expected packet loss (for example from RTCP receiver reports).
    public func setExpectedPacketLoss(percent: Int) throws {
        var updated = configuration
        updated.expectedPacketLossPercent = percent
        try reconfigure(updated)
    }

    /// Changes the target bitrate in bit/s.
    public func setBitrate(_ bitrate: Int) throws {
        var updated = configuration
        updated.bitrate = bitrate
        try reconfigure(updated)
    }

    public func encode(_ pcm: UnsafeBufferPointer<Int16>) throws -> [UInt8] {
        let samples = AudioFormat.samplesPerFrame * channels
        guard pcm.count == samples, let base = pcm.baseAddress else {
            throw CodecError.wrongFrameSize(expected: samples, got: pcm.count)
        }
        let length = try packet.withUnsafeMutableBufferPointer { out in
            try checkOpus(opus_encode(encoder, base, Int32(AudioFormat.samplesPerFrame),
                                      out.baseAddress!, Int32(out.count)), "opus_encode")
        }
        dtxFrame = length <= 2
        return Array(packet[0..<Int(length)])
    }

    /// Encodes straight into `output`; allocates nothing.
    public func encode(_ pcm: UnsafeBufferPointer<Int16>, into output: UnsafeMutableRawBufferPointer) throws -> Int {
        let samples = AudioFormat.samplesPerFrame * channels
        guard pcm.count == samples, let base = pcm.baseAddress else {
            throw CodecError.wrongFrameSize(expected: samples, got: pcm.count)
        }
        guard let out = output.baseAddress, !output.isEmpty else {
            throw CodecError.invalidConfiguration("empty output buffer")
        }
        let length = try checkOpus(opus_encode(encoder, base, Int32(AudioFormat.samplesPerFrame),
                                               out.assumingMemoryBound(to: UInt8.self), Int32(min(output.count, Int(Int32.max)))),
                                   "opus_encode")
        dtxFrame = length <= 2
        return Int(length)
    }

    /// Clears the encoder's history, as for a new stream.
    public func reset() {
        _ = wcs_opus_encoder_reset_state(encoder)
    }

    private func apply(_ configuration: OpusEncoderConfiguration) throws {
        try checkOpus(wcs_opus_encoder_set_bitrate(encoder, Int32(configuration.bitrate)), "OPUS_SET_BITRATE")
        try checkOpus(wcs_opus_encoder_set_complexity(encoder, Int32(configuration.complexity)), "OPUS_SET_COMPLEXITY")
        try checkOpus(wcs_opus_encoder_set_inband_fec(encoder, configuration.inbandFEC ? 1 : 0), "OPUS_SET_INBAND_FEC")
        try checkOpus(wcs_opus_encoder_set_packet_loss_perc(encoder, Int32(configuration.expectedPacketLossPercent)),
                      "OPUS_SET_PACKET_LOSS_PERC")
        try checkOpus(wcs_opus_encoder_set_dtx(encoder, configuration.dtx ? 1 : 0), "OPUS_SET_DTX")
        try checkOpus(wcs_opus_encoder_set_signal(encoder, configuration.signal.rawValue), "OPUS_SET_SIGNAL")
    }
}
