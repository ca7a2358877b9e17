/// Which flags a command (verb) accepts; see `ParsedArguments`.
public struct ArgumentSpec: Sendable, Equatable {
    /// Flags that take a value, as `--flag value` or `--flag=value` (e.g. `--server`).
    public var valueFlags: Set<String>
    /// Flags without a value (e.g. `--insecure-tls`, `--no-register`).
    public var booleanFlags: Set<String>
    /// Flags that are rejected with the given explanation, in any form (e.g. `--sip-password`).
    public var refusedFlags: [String: String]

    /// Creates a spec. Flag names include their dashes (`--server`, `-h`).
    public init(valueFlags: Set<String> = [], booleanFlags: Set<String> = [], refusedFlags: [String: String] = [:]) {
        self.valueFlags = valueFlags
        self.booleanFlags = booleanFlags
        self.refusedFlags = refusedFlags
    }

    /// The union of two specs (e.g. the config flags plus a verb's own flags).
    public func merging(_ other: ArgumentSpec) -> ArgumentSpec {
        ArgumentSpec(
            valueFlags: valueFlags.union(other.valueFlags),
            booleanFlags: booleanFlags.union(other.booleanFlags),
            refusedFlags: refusedFlags.merging(other.refusedFlags) { _, new in new })
    }
}

/// A command-line mistake (unknown flag, missing value...). The message names flags but never
/// repeats flag values, so a secret typed by mistake does not end up in logs.
public struct UsageError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The human-readable message.
    public let description: String

    /// Creates an error with a formatted message.
    public init(_ description: String) { self.description = description }
}

/// Command-line arguments split into positional arguments and flags, checked against an `ArgumentSpec`.
///
/// Rules: `--flag value` and `--flag=value` for value flags; boolean flags take no value; `--` ends
/// flag parsing; a lone `-` is positional; any other argument starting with `-` must be in the spec.
/// A separate value that itself starts with `--` is refused (it is almost always a forgotten value).
/// Flags may repeat; `value(_:)` returns the last one.
public struct ParsedArguments: Sendable, Equatable {
    /// One flag as it appeared.
    public struct Occurrence: Sendable, Equatable {
        /// The flag name with dashes.
        public let flag: String
        /// The value for value flags, `nil` for boolean flags.
        public let value: String?
    }

    /// Arguments that are not flags or flag values, in order.
    public private(set) var positional: [String] = []
    /// Every flag in order of appearance.
    public private(set) var occurrences: [Occurrence] = []

    /// Parses `arguments` (without the program name and verb). Throws `UsageError`.
    public init(_ arguments: [String], spec: ArgumentSpec) throws {
        var index = 0
        var flagsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if flagsEnded || argument == "-" || !argument.hasPrefix("-") {
                positional.append(argument)
                continue
            }
            if argument == "--" {
                flagsEnded = true
                continue
            }
            let name: String
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            } else {
                name = argument
            }
            if let explanation = spec.refusedFlags[name] {
                throw UsageError("\(name) is not accepted: \(explanation)")
            }
            if spec.booleanFlags.contains(name) {
                guard inlineValue == nil else { throw UsageError("\(name) does not take a value") }
                occurrences.append(Occurrence(flag: name, value: nil))
            } else if spec.valueFlags.contains(name) {
                if let inlineValue {
                    occurrences.append(Occurrence(flag: name, value: inlineValue))
                } else {
                    guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                        throw UsageError("\(name) needs a value")
                    }
                    occurrences.append(Occurrence(flag: name, value: arguments[index]))
                    index += 1
                }
            } else {
                throw UsageError("unknown option \(name)")
            }
        }
    }

    /// The value of the last occurrence of `flag`.
    public func value(_ flag: String) -> String? {
        occurrences.last { $0.flag == flag }?.value
    }

    /// The values of every occurrence of `flag`, in order.
    public func values(_ flag: String) -> [String] {
        occurrences.filter { $0.flag == flag }.compactMap(\.value)
    }

    /// Whether `flag` appeared at least once.
    public func has(_ flag: String) -> Bool {
        occurrences.contains { $0.flag == flag }
    }

    /// The last of `flags` to appear (for pairs like `--register`/`--no-register`).
    public func lastFlag(among flags: Set<String>) -> String? {
        occurrences.last { flags.contains($0.flag) }?.flag
    }
}
