#if canImport(Glibc)
import Glibc
#endif
import MainLoop

/// Accepts connections on a listening socket from a GLib source on the shared main loop.
///
/// Runs on: the loop thread (`@MainLoopActor`); no thread of its own. Accepted descriptors are
/// close-on-exec and non-blocking. When the process runs out of descriptors (EMFILE, ENFILE,
/// ENOBUFS, ENOMEM) the listener pauses: the watch is removed (a level-triggered watch on a
/// full backlog would otherwise spin), one warning is logged for the whole episode, and accepting
/// is retried every `retryDelay` seconds or as soon as the owner reports a freed descriptor.
/// Episodes that follow within `warningInterval` (the pressure flapping while descriptors are
/// freed) log at debug level only.
@MainLoopActor
final class LoopAcceptor {
    /// Seconds between accept retries while paused.
    static let retryDelay = 0.25
    /// Connections accepted per wake-up, so a flood cannot starve the other sources.
    static let batch = 64
    /// Seconds after a warning during which new episodes are not warned about again.
    static let warningInterval = 30.0

    let fd: Int32
    private let subsystem: String
    private let label: String
    private let onAccept: @MainLoopActor (Int32) -> Void
    private var watch: LoopFDWatch?
    private var retryTimer: LoopTimer?
    private var stopped = false
    private var lastWarning: Double?
    /// True from the first failed accept of an episode until an accept succeeds again.
    private(set) var isPaused = false

    /// A paused acceptor for listening socket `fd`; `label` names it in the log line.
    init(fd: Int32, subsystem: String, label: String, onAccept: @escaping @MainLoopActor (Int32) -> Void) {
        self.fd = fd
        self.subsystem = subsystem
        self.label = label
        self.onAccept = onAccept
    }

    /// Starts (or resumes) watching the listening socket.
    func start() {
        guard !stopped, watch == nil else { return }
        retryTimer?.cancel()
        retryTimer = nil
        watch = LoopFDWatch(fd: fd, events: .readable) { [weak self] _ in self?.acceptPending() }
    }

    /// Stops accepting for good (the owner closes the descriptor).
    func stop() {
        stopped = true
        watch?.cancel()
        watch = nil
        retryTimer?.cancel()
        retryTimer = nil
    }

    /// The owner closed a connection: retry at once if the listener is paused.
    func descriptorFreed() {
        guard isPaused, watch == nil, !stopped else { return }
        start()
    }

    private func acceptPending() {
        for _ in 0..<Self.batch {
            // accept4 is not visible from Swift: set the flags right after accept.
            let client = accept(fd, nil, nil)
            if client >= 0 {
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                FileDescriptorIO.setNonBlocking(client)
                if isPaused {
                    isPaused = false
                    Log.debug(subsystem, "accepting \(label) again")
                }
                onAccept(client)
                continue
            }
            let code = errno
            switch code {
            case EINTR, ECONNABORTED, EPROTO:
                continue
            case EAGAIN, EWOULDBLOCK:
                return
            default:
                pause(code)
                return
            }
        }
    }

    private func pause(_ code: Int32) {
        watch?.cancel()
        watch = nil
        if !isPaused {
            isPaused = true
            let reason = SystemCallError("accept", path: label, code: code).reason
            let now = MonotonicTime.now()
            if let last = lastWarning, now - last < Self.warningInterval {
                Log.debug(subsystem, "\(label): out of descriptors again (\(reason)); pausing")
            } else {
                lastWarning = now
                Log.warning(subsystem, "cannot accept \(label): \(reason); pausing the listener until descriptors are free")
            }
        }
        retryTimer = MainLoop.shared.schedule(after: Self.retryDelay) { [weak self] in
            MainLoopActor.assumeIsolated { self?.start() }
        }
    }
}
