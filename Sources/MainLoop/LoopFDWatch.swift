import CGLib

/// What a `LoopFDWatch` waits for and what it saw.
public struct LoopFDEvents: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Data to read, or a connection to accept (G_IO_IN).
    public static let readable = LoopFDEvents(rawValue: G_IO_IN.rawValue)
    /// Room to write (G_IO_OUT).
    public static let writable = LoopFDEvents(rawValue: G_IO_OUT.rawValue)
    /// The peer hung up (G_IO_HUP); always reported.
    public static let hangUp = LoopFDEvents(rawValue: G_IO_HUP.rawValue)
    /// An error condition (G_IO_ERR); always reported.
    public static let error = LoopFDEvents(rawValue: G_IO_ERR.rawValue)
    /// The descriptor is not open (G_IO_NVAL).
    public static let invalid = LoopFDEvents(rawValue: G_IO_NVAL.rawValue)
}

/// A GLib unix-fd source on `MainLoop.shared`: calls `handler` on the loop thread whenever the
/// descriptor is ready for `events`, until `cancel()`.
///
/// Runs on: the shared loop thread only (`@MainLoopActor`), so socket servers built on it need
/// no locks and no threads of their own. It does not own the descriptor: cancel the watch
/// before closing the fd.
@MainLoopActor
public final class LoopFDWatch {
    /// The watched descriptor.
    public let fd: Int32
    /// The conditions asked for.
    public let events: LoopFDEvents
    private var source: UnsafeMutablePointer<GSource>?

    /// Starts watching `fd` for `events` (hang-ups and errors are always reported).
    public init(fd: Int32, events: LoopFDEvents, handler: @escaping @MainLoopActor (LoopFDEvents) -> Void) {
        self.fd = fd
        self.events = events
        let box = FDWatchHandler(handler)
        source = cglib_unix_fd_source_attach(MainLoop.shared.context, fd, GIOCondition(rawValue: events.rawValue),
                                             fdWatchDispatch, Unmanaged.passRetained(box).toOpaque(), fdWatchDestroy)
    }

    /// Whether the watch still runs.
    public var isActive: Bool { source != nil }

    /// Stops the watch; the handler is not called again. Idempotent.
    public func cancel() {
        guard let source else { return }
        self.source = nil
        g_source_destroy(source)
        g_source_unref(source)
    }

    isolated deinit {
        cancel()
    }
}

/// The handler of one watch, owned (retained) by its GLib source.
@MainLoopActor
private final class FDWatchHandler {
    let handler: @MainLoopActor (LoopFDEvents) -> Void
    init(_ handler: @escaping @MainLoopActor (LoopFDEvents) -> Void) { self.handler = handler }
}

/// GUnixFDSourceFunc of a watch: GLib calls it on the loop thread, so it enters the actor.
private let fdWatchDispatch: @convention(c) (Int32, GIOCondition, gpointer?) -> gboolean = { _, condition, data in
    guard let data else { return 0 }
    let box = Unmanaged<FDWatchHandler>.fromOpaque(data).takeUnretainedValue()
    MainLoopActor.assumeIsolated {
        box.handler(LoopFDEvents(rawValue: condition.rawValue))
    }
    return 1 // G_SOURCE_CONTINUE: the watch ends with cancel()
}

/// GDestroyNotify of a watch: releases the handler (on the loop thread or in `cancel()`).
private let fdWatchDestroy: @convention(c) (gpointer?) -> Void = { data in
    guard let data else { return }
    Unmanaged<FDWatchHandler>.fromOpaque(data).release()
}
