/// Big-endian reads and writes shared by the RTP and RTCP codecs.
///
/// Callers check bounds before reading; these helpers only assemble and split integers.
enum RTPWire {
    @inline(__always)
    static func uint16(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    @inline(__always)
    static func uint32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
            | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    @inline(__always)
    static func append(_ value: UInt16, to buffer: inout [UInt8]) {
        buffer.append(UInt8(truncatingIfNeeded: value >> 8))
        buffer.append(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always)
    static func append(_ value: UInt32, to buffer: inout [UInt8]) {
        buffer.append(UInt8(truncatingIfNeeded: value >> 24))
        buffer.append(UInt8(truncatingIfNeeded: value >> 16))
        buffer.append(UInt8(truncatingIfNeeded: value >> 8))
        buffer.append(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always)
    static func store(_ value: UInt16, at offset: Int, in buffer: inout [UInt8]) {
        buffer[offset] = UInt8(truncatingIfNeeded: value >> 8)
        buffer[offset + 1] = UInt8(truncatingIfNeeded: value)
    }

    /// Throws `truncated` unless `bytes` holds at least `needed` bytes.
    @inline(__always)
    static func require(_ needed: Int, in available: Int, _ what: @autoclosure () -> String) throws(RTPError) {
        if available < needed { throw .truncated(what: what(), needed: needed, available: available) }
    }

    /// Runs a typed-throwing parser over an array's bytes (`Array.withUnsafeBytes` rethrows
    /// untyped errors, so the error travels out in a `Result`).
    static func withBytes<R>(
        _ array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(RTPError) -> R
    ) throws(RTPError) -> R {
        let result: Result<R, RTPError> = array.withUnsafeBytes { raw in
            Result { () throws(RTPError) in try body(raw) }
        }
        return try result.get()
    }

    /// Appends zero bytes until the buffer's length from `start` is a multiple of four.
    static func padToWord(_ buffer: inout [UInt8], from start: Int) {
        while (buffer.count - start) % 4 != 0 { buffer.append(0) }
    }
}
