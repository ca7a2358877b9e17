import CSSL

/// A custom OpenSSL BIO, written in Swift, that connects an `SSL*` to a `DatagramChannel`.
///
/// OpenSSL 3.0's memory BIOs merge datagrams (c-interop-notes §3, pitfall 8); this BIO keeps one
/// datagram per read and lets the channel pack records into MTU-sized datagrams on write. The BIO
/// holds a retained reference to its channel and releases it when OpenSSL frees the BIO.
enum DatagramBIO {
    /// Creates a BIO bound to `channel`, or nil if OpenSSL refuses. Pass it to `SSL_set_bio`
    /// as both read and write BIO (which hands over the one reference).
    static func make(channel: DatagramChannel) -> OpaquePointer? {
        guard let method = datagramBIOMethod, let bio = BIO_new(method) else { return nil }
        BIO_set_data(bio, Unmanaged.passRetained(channel).toOpaque())
        return bio
    }
}

/// The one `BIO_METHOD` of this process (built once, on first use, and never freed).
private nonisolated(unsafe) let datagramBIOMethod: OpaquePointer? = {
    let type = BIO_get_new_index() | BIO_TYPE_SOURCE_SINK
    guard let method = BIO_meth_new(type, "wcs DTLS datagram") else { return nil }
    BIO_meth_set_write(method, datagramBIOWrite)
    BIO_meth_set_read(method, datagramBIORead)
    BIO_meth_set_ctrl(method, datagramBIOControl)
    BIO_meth_set_create(method, datagramBIOCreate)
    BIO_meth_set_destroy(method, datagramBIODestroy)
    return method
}()

private func channel(of bio: OpaquePointer?) -> DatagramChannel? {
    guard let bio, let data = BIO_get_data(bio) else { return nil }
    return Unmanaged<DatagramChannel>.fromOpaque(data).takeUnretainedValue()
}

private let datagramBIOWrite: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = { bio, data, length in
    guard let bio, let channel = channel(of: bio), let data, length >= 0 else { return -1 }
    cssl_bio_clear_retry_flags(bio)
    channel.write(UnsafeRawBufferPointer(start: data, count: Int(length)))
    return length
}

private let datagramBIORead: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int32) -> Int32 = { bio, data, length in
    guard let bio, let channel = channel(of: bio), let data, length >= 0 else { return -1 }
    cssl_bio_clear_retry_flags(bio)
    guard let count = channel.readIncoming(into: UnsafeMutableRawBufferPointer(start: data, count: Int(length))) else {
        cssl_bio_set_retry_read(bio)
        return -1
    }
    return Int32(count)
}

private let datagramBIOControl: @convention(c) (OpaquePointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int = { bio, command, _, _ in
    guard let channel = channel(of: bio) else { return 0 }
    switch command {
    case BIO_CTRL_FLUSH:
        channel.flush()
        return 1
    case BIO_CTRL_WPENDING:
        return channel.pendingOutgoing
    case BIO_CTRL_PENDING:
        return channel.nextIncomingSize
    case BIO_CTRL_DGRAM_QUERY_MTU, BIO_CTRL_DGRAM_GET_FALLBACK_MTU:
        return channel.mtu
    default:
        // Includes BIO_CTRL_DGRAM_GET_MTU_OVERHEAD (0: the link MTU is the datagram payload size)
        // and the socket-only dgram controls (peer address, timeouts), which do not apply.
        return 0
    }
}

private let datagramBIOCreate: @convention(c) (OpaquePointer?) -> Int32 = { bio in
    BIO_set_init(bio, 1)
    return 1
}

private let datagramBIODestroy: @convention(c) (OpaquePointer?) -> Int32 = { bio in
    guard let bio else { return 0 }
    if let data = BIO_get_data(bio) {
        Unmanaged<DatagramChannel>.fromOpaque(data).release()
        BIO_set_data(bio, nil)
    }
    return 1
}
