import CGLib
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts threads whose names the kernel knows too, so `/proc/PID/task/*/comm`, `top -H`, `ps -L`
/// and gdb show what each thread is. Foundation's `Thread.name` does not get there on Linux: a
/// named `Thread` shows the name of the thread that created it (often a Dispatch worker,
/// `…root.default-qos`), which made the agent's own threads indistinguishable in a thread count.
///
/// Runs on: any thread; the name is set by the new thread itself, first thing.
public enum NamedThread {
    /// The longest name the kernel keeps (16 bytes with the terminating zero).
    public static let maximumNameLength = 15

    /// Starts `body` on a new thread called `name` (cut to `maximumNameLength` bytes for the
    /// kernel; Foundation's `Thread.name` keeps it whole). `stackSize` in bytes, or the default.
    public static func start(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            nameCurrentThread(name)
            body()
        }
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }

    /// Gives the calling thread `name` for the kernel (cut to `maximumNameLength` bytes).
    public static func nameCurrentThread(_ name: String) {
        let kept = String(decoding: name.utf8.prefix(maximumNameLength), as: UTF8.self)
        _ = cglib_set_current_thread_name(kept)
    }
}
