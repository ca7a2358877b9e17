/// The global actor of the process-wide `MainLoop.shared` thread.
///
/// Runs on: the shared loop thread, always. Its executor is `MainLoop.shared`, so anything
/// marked `@MainLoopActor` runs on the thread that drives libwebsockets and libnice, and the
/// compiler (not comments) keeps other threads out. Async code hops in with `await`; C
/// callbacks, which GLib already calls on the loop thread, enter with `assumeIsolated`.
@globalActor
public actor MainLoopActor {
    /// The one instance; its jobs run on `MainLoop.shared`.
    public static let shared = MainLoopActor()

    /// The loop this actor runs on.
    public static var loop: MainLoop { MainLoop.shared }

    private init() {}

    /// `MainLoop.shared` as this actor's executor.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        MainLoop.shared.asUnownedSerialExecutor()
    }

    /// Runs `body` on the loop thread and returns its result.
    public static func run<T: Sendable>(_ body: @MainLoopActor () throws -> T) async rethrows -> T {
        try await body()
    }

    /// Runs `body` as isolated to this actor when the caller is already on the loop thread
    /// (a GLib or C-library callback); traps with a clear message anywhere else.
    public static func assumeIsolated<T: Sendable>(_ body: @MainLoopActor () throws -> T,
                                                   file: StaticString = #fileID, line: UInt = #line) rethrows -> T {
        try MainLoopActor.shared.assumeIsolated({ _ in
            // The actor is checked above (via `MainLoop.checkIsolated`), so dropping the
            // global-actor attribute of `body` is sound here; this is what MainActor does.
            try withoutActuallyEscaping(body) { escapable in
                try unsafeBitCast(escapable, to: (() throws -> T).self)()
            }
        }, file: file, line: line)
    }

    /// Runs `work` soon on the loop thread, isolated to this actor, after work posted earlier.
    /// Never runs it inline, even on the loop thread (so a C callback can post safely).
    public static func post(_ work: @escaping @MainLoopActor () -> Void) {
        loop.post { assumeIsolated(work) }
    }

    /// Runs `work` on the loop thread, isolated to this actor, after `seconds` (then every
    /// `seconds` if `repeating`). Returns the handle that cancels it.
    @discardableResult
    public static func schedule(after seconds: Double, repeating: Bool = false,
                                _ work: @escaping @MainLoopActor () -> Void) -> LoopTimer {
        loop.schedule(after: seconds, repeating: repeating) { assumeIsolated(work) }
    }

    /// True when the caller runs on the shared loop thread (so `assumeIsolated` is allowed).
    public static var isCurrent: Bool { MainLoop.shared.isIsolatedHere }
}
