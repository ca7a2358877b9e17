import TestSupport
import Foundation

/// A thread-safe value box for tests.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withValue<R>(_ body: (inout Value) -> R) -> R {
        lock.lock(); defer { lock.unlock() }
        return body(&value)
    }

    var current: Value { withValue { $0 } }
}


struct ExpectedFailure: Error, Equatable {}
