import MainLoop
import Synchronization

/// Watches the host's links, addresses and routes (netlink) and reports each batch of changes.
///
/// Runs on: the shared main loop (a GLib fd source, `NetlinkChangeWatch`), with no thread of its
/// own; `onChange` is called on the loop thread, once per batch of messages read together (an
/// address removal and the routes that go with it arrive as one batch), and must return quickly
/// (the daemon hands it to the agent actor). Sendable: the owner creates and closes it from its task.
public final class NetworkChangeMonitor: Sendable {
    private let watch: NetlinkChangeWatch
    private let closed = Mutex(false)

    /// Opens the netlink socket and starts watching. Throws when netlink is not available.
    public init(onChange: @escaping @Sendable (NetworkChange) -> Void) throws(SystemCallError) {
        let socket = try NetlinkRouteSocket()
        let watch = NetlinkChangeWatch(socket: socket, onChange: onChange)
        self.watch = watch
        MainLoop.shared.post { MainLoopActor.assumeIsolated { watch.start() } }
    }

    /// Stops watching and closes the socket. Idempotent, never blocks.
    public func close() {
        let first = closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        let watch = self.watch
        MainLoop.shared.post { MainLoopActor.assumeIsolated { watch.stop() } }
    }

    deinit {
        close()
    }
}

/// The loop-side half of `NetworkChangeMonitor`: the fd watch on the netlink socket.
@MainLoopActor
final class NetlinkChangeWatch: Sendable {
    private let socket: NetlinkRouteSocket
    private let onChange: @Sendable (NetworkChange) -> Void
    private var watch: LoopFDWatch?
    private var stopped = false

    nonisolated init(socket: NetlinkRouteSocket, onChange: @escaping @Sendable (NetworkChange) -> Void) {
        self.socket = socket
        self.onChange = onChange
    }

    func start() {
        guard !stopped, watch == nil else { return }
        watch = LoopFDWatch(fd: socket.fd, events: .readable) { [weak self] _ in self?.readable() }
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        watch?.cancel()
        watch = nil
        socket.close()
    }

    private func readable() {
        let change = socket.drain()
        guard !change.isEmpty else { return }
        onChange(change)
    }
}
