import CGLib
import Glibc

/// Starts threads whose names the kernel knows too, so `/proc/PID/task/*/comm`, `top -H`, `ps -L`
/// and gdb show what each thread is. The threads are plain detached pthreads (what Foundation's
/// `Thread` made underneath), started here directly so the daemon does not link Foundation.
///
/// Runs on: any thread; the name is set by the new thread itself, first thing.
public enum NamedThread {
    /// The longest name the kernel keeps (16 bytes with the terminating zero).
    public static let maximumNameLength = 15

    /// Starts `body` on a new detached thread called `name` (cut to `maximumNameLength` bytes for
    /// the kernel). `stackSize` in bytes, or the system's default (the `ulimit -s` size).
    /// A thread that cannot be made (the process is out of threads or memory) stops the process
    /// with the reason: every caller needs its thread to make progress.
    public static func start(_ name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        let start = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize {
            let status = pthread_attr_setstacksize(&attributes, max(stackSize, Int(PTHREAD_STACK_MIN)))
            precondition(status == 0, "NamedThread \(name): stack size \(stackSize) refused (error \(status))")
        }
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { raw in
            let start = Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue()
            NamedThread.nameCurrentThread(start.name)
            start.body()
            return nil
        }, start)
        if status != 0 {
            Unmanaged<ThreadStart>.fromOpaque(start).release()
            fatalError("NamedThread \(name): pthread_create failed: \(String(cString: strerror(status)))")
        }
    }

    /// Gives the calling thread `name` for the kernel (cut to `maximumNameLength` bytes).
    public static func nameCurrentThread(_ name: String) {
        let kept = String(decoding: name.utf8.prefix(maximumNameLength), as: UTF8.self)
        _ = cglib_set_current_thread_name(kept)
    }
}

/// What a new thread runs, handed through `pthread_create`'s one pointer (retained until the
/// thread takes it). Immutable, so it crosses to the new thread safely.
private final class ThreadStart: Sendable {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}
