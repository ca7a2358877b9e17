import CMosquitto
import DecimalText
import Dispatch
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import MainLoop
import Synchronization

/// The native MQTT intake's connection: libmosquitto (opened on first use, Sources/CMosquitto)
/// driven from the shared main loop through its socket: a readable watch (`mosquitto_loop_read`),
/// a writable watch while it has output (`mosquitto_loop_write`), and a timer for keepalive
/// (`mosquitto_loop_misc`); no thread of its own. Only the connect (`mosquitto_connect_async`,
/// which resolves the host name with a blocking `getaddrinfo`) runs off the loop, on a global queue.
///
/// Persistent session (clean session off, a stable client id), QoS 1, keepalive, a retained
/// `online` on the availability topic once connected, `offline` as the last will and before a
/// clean stop, and reconnects with backoff (full jitter, 1 s doubling to 30 s).
///
/// Acknowledged only once taken: the client is in libmosquitto's "threaded" mode
/// (`mosquitto_threaded_set`), which only queues outgoing packets; they are written by
/// `mosquitto_loop_write`, after `mosquitto_loop_read` and its `on_message` callbacks have
/// returned. libmosquitto queues a QoS 1 message's PUBACK before calling `on_message`, so
/// `onMessage` must make the push durable before it returns; when it cannot (returns false) the
/// socket is shut down before the PUBACK goes out, and the broker delivers the message again.
///
/// Runs on: the loop thread (`@MainLoopActor`); libmosquitto's callbacks fire inside our calls
/// into it, on the loop (the log callback also during the off-loop connect).
@MainLoopActor
final class MQTTPushClient {
    enum Phase { case idle, connecting, connected, online, waitingToRetry, stopping, stopped }

    let settings: MQTTPushSettings
    /// A message on the topic (raw payload), before its acknowledgement; returns whether it was taken durably.
    private let onMessage: @MainLoopActor (Data) -> Bool
    /// The connection came up (nil) or went down (the reason).
    private let onState: @MainLoopActor (_ connected: Bool, _ error: String?) -> Void
    private(set) var phase = Phase.idle
    private(set) var lastError: String?
    private var mosq: OpaquePointer?
    private var watchedFD: Int32 = -1
    private var readWatch: LoopFDWatch?
    private var writeWatch: LoopFDWatch?
    private var keepaliveTimer: LoopTimer?
    private var retryTimer: LoopTimer?
    private var backoff = Backoff(base: 1, cap: 30)
    private var offlineMid: Int32 = -1
    private var stopped: [@MainLoopActor () -> Void] = []
    /// libmosquitto's last error-level log line (e.g. OpenSSL's "certificate verify failed"), set
    /// by its log callback, which may run off the loop during the connect.
    nonisolated let libraryError = Mutex<String?>(nil)

    /// A connection check (`doctor`): its own client id and a clean session (it never touches the
    /// line's session and its queued pushes), no last will, no availability, no subscription.
    let isProbe: Bool

    init(settings: MQTTPushSettings, probe: Bool = false, onMessage: @escaping @MainLoopActor (Data) -> Bool,
         onState: @escaping @MainLoopActor (Bool, String?) -> Void) {
        var settings = settings
        if probe { settings.clientId += "-doctor" }
        self.isProbe = probe
        self.settings = settings
        self.onMessage = onMessage
        self.onState = onState
    }

    /// Loads libmosquitto, sets the client up and connects. Returns an error when the library or
    /// the settings cannot be used at all (nothing to retry).
    func start() -> String? {
        guard cmosquitto_library_load() != 0 else {
            return cmosquitto_library_error().map { String(cString: $0) } ?? "libmosquitto cannot be loaded"
        }
        _ = mosquitto_lib_init()
        guard let mosq = mosquitto_new(settings.clientId, isProbe, Unmanaged.passUnretained(self).toOpaque()) else {
            return "mosquitto_new failed: \(String(cString: strerror(errno)))"
        }
        self.mosq = mosq
        if let failure = configure(mosq) { return failure }
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        _ = mosquitto_lib_version(&major, &minor, &revision)
        Log.notice("push", "mqtt: libmosquitto \(major).\(minor).\(revision) loaded in "
                   + "\(Int(cmosquitto_library_load_milliseconds().rounded())) ms; connecting to \(settings.broker) as \(settings.clientId)")
        connect()
        return nil
    }

    private func configure(_ mosq: OpaquePointer) -> String? {
        func check(_ rc: Int32, _ what: String) -> String? {
            rc == MOSQ_ERR_SUCCESS.rawValue ? nil : "\(what): \(String(cString: mosquitto_strerror(rc)))"
        }
        mosquitto_connect_callback_set(mosq, onConnectCallback)
        mosquitto_disconnect_callback_set(mosq, onDisconnectCallback)
        mosquitto_message_callback_set(mosq, onMessageCallback)
        mosquitto_publish_callback_set(mosq, onPublishCallback)
        mosquitto_log_callback_set(mosq, onLogCallback)
        let offline = Array(MQTTPushSettings.offline.utf8)
        let steps: [() -> String?] = [
            { check(mosquitto_threaded_set(mosq, true), "threaded mode") },
            { check(mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311)), "protocol version") },
            { self.settings.username == nil ? nil
                : check(mosquitto_username_pw_set(mosq, self.settings.username, self.settings.password), "user name") },
            { self.isProbe ? nil
                : check(mosquitto_will_set(mosq, self.settings.availabilityTopic, Int32(offline.count), offline, 1, true), "last will") },
            { self.settings.tls ? self.configureTLS(mosq, check) : nil },
        ]
        for step in steps { if let failure = step() { return failure } }
        return nil
    }

    /// Verified TLS as the server connection: the CA file, else the system store; the host name checked.
    private func configureTLS(_ mosq: OpaquePointer, _ check: (Int32, String) -> String?) -> String? {
        if let ca = settings.caFile {
            if let failure = check(mosquitto_tls_set(mosq, ca, nil, nil, nil, nil), "CA file \(ca)") { return failure }
        } else if let failure = check(mosquitto_int_option(mosq, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "system CA store") {
            return failure
        }
        if let failure = check(mosquitto_tls_opts_set(mosq, settings.insecureTLS ? 0 : 1, nil, nil), "TLS options") { return failure }
        return check(mosquitto_tls_insecure_set(mosq, settings.insecureTLS), "TLS host name check")
    }

    // MARK: - Connecting

    private func connect() {
        guard let mosq, phase != .stopping, phase != .stopped else { return }
        phase = .connecting
        let handle = MosquittoHandle(mosq)
        let settings = self.settings
        DispatchQueue.global().async {
            let rc = mosquitto_connect_async(handle.pointer, settings.host, Int32(settings.port), Int32(settings.keepAlive))
            let reason = rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(rc))
            MainLoopActor.post { [weak self] in self?.connectStarted(rc, reason) }
        }
    }

    private func connectStarted(_ rc: Int32, _ reason: String) {
        guard phase == .connecting else {
            if phase == .stopping { finishStop() }
            return
        }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { return lost("cannot connect to \(settings.broker): \(detailed(reason))") }
        phase = .connected
        keepaliveTimer?.cancel()
        keepaliveTimer = MainLoopActor.schedule(after: max(1, Double(settings.keepAlive) / 4), repeating: true) { [weak self] in
            self?.tick()
        }
        afterIO()
    }

    // MARK: - Socket I/O on the loop

    /// Re-watches the socket when it changed, and watches for writability while there is output.
    /// `rc`: what the call into libmosquitto returned; a socket it closed without calling
    /// `on_disconnect` (a failed TLS handshake) is a lost connection too.
    private func afterIO(_ rc: Int32 = 0) {
        guard let mosq else { return }
        let fd = mosquitto_socket(mosq)
        if fd != watchedFD {
            unwatch()
            guard fd >= 0 else {
                if phase == .connected || phase == .online {
                    let reason = rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(rc))
                    lost("connection to \(settings.broker) failed: \(detailed(reason))")
                }
                return
            }
            watchedFD = fd
            readWatch = LoopFDWatch(fd: fd, events: .readable) { [weak self] _ in self?.readable() }
        }
        if mosquitto_want_write(mosq) {
            if writeWatch == nil { writeWatch = LoopFDWatch(fd: fd, events: .writable) { [weak self] _ in self?.writable() } }
        } else {
            writeWatch?.cancel()
            writeWatch = nil
        }
    }

    private func unwatch() {
        readWatch?.cancel()
        readWatch = nil
        writeWatch?.cancel()
        writeWatch = nil
        watchedFD = -1
    }

    private func readable() {
        guard let mosq else { return }
        afterIO(mosquitto_loop_read(mosq, 1))
    }

    private func writable() {
        guard let mosq else { return }
        // A TLS handshake in progress advances in loop_read (loop_write waits for it); otherwise this
        // reads nothing more than what is there.
        var rc = mosquitto_loop_read(mosq, 1)
        if mosquitto_socket(mosq) >= 0 { rc = mosquitto_loop_write(mosq, 1) }
        afterIO(rc)
    }

    private func tick() {
        guard let mosq, phase == .connected || phase == .online || phase == .stopping else { return }
        afterIO(mosquitto_loop_misc(mosq))
    }

    // MARK: - libmosquitto's callbacks (inside our calls, on the loop)

    fileprivate func connected(_ rc: Int32) {
        guard rc == 0 else {
            lastError = "the broker refused the connection: \(String(cString: mosquitto_connack_string(rc)))"
            Log.error("push", "mqtt: \(lastError!)")
            return  // the broker closes the connection; on_disconnect follows
        }
        guard let mosq else { return }
        phase = .online
        backoff.reset()
        lastError = nil
        if isProbe { return onState(true, nil) }
        let online = Array(MQTTPushSettings.online.utf8)
        _ = mosquitto_publish(mosq, nil, settings.availabilityTopic, Int32(online.count), online, 1, true)
        let rcSubscribe = mosquitto_subscribe(mosq, nil, settings.topic, 1)
        if rcSubscribe != MOSQ_ERR_SUCCESS.rawValue {
            Log.error("push", "mqtt: cannot subscribe to \(settings.topic): \(String(cString: mosquitto_strerror(rcSubscribe)))")
        }
        Log.notice("push", "mqtt: connected to \(settings.broker) as \(settings.clientId); pushes on \(settings.topic), "
                   + "availability on \(settings.availabilityTopic)")
        onState(true, nil)
    }

    fileprivate func disconnected(_ rc: Int32) {
        unwatch()
        if phase == .stopping { return finishStop() }
        let reason = lastError ?? (rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(rc)))
        lost("connection to \(settings.broker) lost: \(detailed(reason))")
    }

    fileprivate func message(_ message: UnsafePointer<mosquitto_message>) {
        let m = message.pointee
        let topic = m.topic.map { String(cString: $0) } ?? ""
        guard topic == settings.topic else { return Log.debug("push", "mqtt: ignoring a message on another topic") }
        let payload = m.payload.map { Data(bytes: $0, count: Int(m.payloadlen)) } ?? Data()
        if !onMessage(payload), let mosq {
            // Not taken durably: the PUBACK queued for it must not go out. The broker redelivers.
            Log.error("push", "mqtt: the push could not be recorded; dropping the connection so the broker delivers it again")
            Glibc.shutdown(mosquitto_socket(mosq), Int32(SHUT_RDWR))
        }
    }

    fileprivate func published(_ mid: Int32) {
        guard phase == .stopping, mid == offlineMid, let mosq else { return }
        _ = mosquitto_disconnect(mosq)
        afterIO()
    }

    /// `reason` with libmosquitto's last logged error, if any (said once).
    private func detailed(_ reason: String) -> String {
        guard let detail = libraryError.withLock({ error in defer { error = nil }; return error }) else { return reason }
        return "\(reason) (\(detail))"
    }

    // MARK: - Loss, retry, stop

    private func lost(_ reason: String) {
        unwatch()
        keepaliveTimer?.cancel()
        keepaliveTimer = nil
        let wasOnline = phase == .online
        lastError = reason
        phase = .waitingToRetry
        let delay = max(0.2, backoff.next())
        Log.warning("push", "mqtt: \(reason); reconnecting in \(DecimalText.fixed(delay, decimals: 1)) s")
        if wasOnline || isProbe { onState(false, reason) }
        retryTimer?.cancel()
        retryTimer = MainLoopActor.schedule(after: delay) { [weak self] in self?.connect() }
    }

    /// Publishes `offline` (retained) and disconnects cleanly (no last will), within `timeout`
    /// seconds; then frees the client and calls `done` on the loop.
    func stop(timeout: Double = 1, _ done: @escaping @MainLoopActor () -> Void) {
        stopped.append(done)
        guard phase != .stopping else { return }
        if phase == .stopped { return finishStop() }
        let wasOnline = phase == .online
        let wasConnecting = phase == .connecting
        phase = .stopping
        retryTimer?.cancel()
        retryTimer = nil
        if isProbe, wasOnline, let mosq {
            _ = mosquitto_disconnect(mosq)
            afterIO()
            return
        }
        guard let mosq, wasOnline else {
            if !wasConnecting { finishStop() }  // else connectStarted finishes once the connect returned
            return
        }
        let offline = Array(MQTTPushSettings.offline.utf8)
        var mid: Int32 = 0
        if mosquitto_publish(mosq, &mid, settings.availabilityTopic, Int32(offline.count), offline, 1, true) == MOSQ_ERR_SUCCESS.rawValue {
            offlineMid = mid
        } else {
            _ = mosquitto_disconnect(mosq)
        }
        afterIO()
        MainLoopActor.schedule(after: timeout) { [weak self] in
            guard let self, self.phase == .stopping else { return }
            Log.warning("push", "mqtt: the broker did not confirm \"offline\" within \(timeout) s; closing")
            self.finishStop()
        }
    }

    private func finishStop() {
        guard phase != .stopped else { return }
        phase = .stopped
        unwatch()
        keepaliveTimer?.cancel()
        keepaliveTimer = nil
        retryTimer?.cancel()
        if let mosq {
            self.mosq = nil
            // Not from inside one of its callbacks: later on the loop.
            MainLoopActor.post { mosquitto_destroy(mosq) }
        }
        let waiting = stopped
        stopped = []
        for done in waiting { done() }
    }
}

/// The client pointer, handed to the off-loop connect (the loop does not touch it meanwhile).
private struct MosquittoHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

/// The client of a callback's `obj` (passed as an address: the callback runs on the loop, inside our call).
private func client(_ address: UInt) -> MQTTPushClient? {
    UnsafeMutableRawPointer(bitPattern: address).map { Unmanaged<MQTTPushClient>.fromOpaque($0).takeUnretainedValue() }
}

private let onConnectCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, obj, rc in
    let address = UInt(bitPattern: obj)
    MainLoopActor.assumeIsolated { client(address)?.connected(rc) }
}

private let onDisconnectCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, obj, rc in
    let address = UInt(bitPattern: obj)
    MainLoopActor.assumeIsolated { client(address)?.disconnected(rc) }
}

private let onMessageCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?) -> Void = {
    _, obj, message in
    let address = UInt(bitPattern: obj), messageAddress = UInt(bitPattern: message)
    MainLoopActor.assumeIsolated {
        guard let message = UnsafePointer<mosquitto_message>(bitPattern: messageAddress) else { return }
        client(address)?.message(message)
    }
}

private let onPublishCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, obj, mid in
    let address = UInt(bitPattern: obj)
    MainLoopActor.assumeIsolated { client(address)?.published(mid) }
}

/// libmosquitto's own log lines, at debug level (also called during the off-loop connect: no actor).
private let onLogCallback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void = {
    _, obj, level, text in
    guard let text else { return }
    let line = String(cString: text)
    Log.debug("mqtt", line)
    if level == Int32(MOSQ_LOG_ERR), let obj {
        Unmanaged<MQTTPushClient>.fromOpaque(obj).takeUnretainedValue().libraryError.withLock { $0 = line }
    }
}
