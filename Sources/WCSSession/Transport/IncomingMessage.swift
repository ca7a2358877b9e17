/// A message being reassembled from fragments (binary ones are only counted).
struct IncomingMessage {
    var isBinary = false
    private var text: [UInt8] = []
    private var byteCount = 0
    private var started = false

    var isEmpty: Bool { !started }

    /// Appends a fragment; false if the message would exceed `limit`.
    mutating func append(_ fragment: UnsafeRawBufferPointer, limit: Int) -> Bool {
        started = true
        guard byteCount + fragment.count <= limit else { return false }
        byteCount += fragment.count
        if !isBinary { text.append(contentsOf: fragment) }
        return true
    }

    /// The complete message as an event; resets for the next one.
    mutating func take() -> WebSocketEvent {
        defer { self = IncomingMessage() }
        return isBinary ? .binary(byteCount: byteCount) : .text(String(decoding: text, as: UTF8.self))
    }
}
