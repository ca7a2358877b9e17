import SystemSupport
import FoundationEssentials

/// A parsed INI-like configuration file: `[section]` headers and `key = value` lines.
///
/// Syntax (one item per line; leading and trailing blanks are ignored):
/// - empty lines and lines starting with `#` or `;` are comments;
/// - `[name]` starts a section (letters, digits, `_`, `-`, `.`);
/// - `key = value` belongs to the current section; keys use letters, digits and `_`;
/// - a value may be wrapped in double quotes (`\"` and `\\` escapes) or single quotes (taken literally);
/// - an unquoted value ends at ` #` (a `#` preceded by a blank starts a trailing comment).
///
/// The parser knows nothing about which sections or keys exist: callers validate with
/// `validate(schema:)` and read typed values with `ConfigFile.Section`, so new sections are a
/// schema entry away. Every entry keeps its line number for error messages.
public struct ConfigFile: Sendable, Equatable {
    /// One `key = value` line.
    public struct Entry: Sendable, Equatable {
        /// The section name without brackets.
        public let section: String
        /// The key as written.
        public let key: String
        /// The value with quotes removed.
        public let value: String
        /// 1-based line number.
        public let line: Int
    }

    /// The path used in error messages (as the user gave it).
    public let path: String
    /// Every entry in file order.
    public let entries: [Entry]
    /// Section names in order of first appearance (including empty sections).
    public let sections: [String]
    /// The line of each section's first header.
    public let sectionLines: [String: Int]

    /// Reads and parses the file at `path`.
    public static func load(path: String) throws -> ConfigFile {
        let data: Data
        do {
            data = try FileReading.readAll(path: path)
        } catch {
            throw ConfigError("\(path): cannot read config file: \(error.reason)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError("\(path): config file is not valid UTF-8")
        }
        return try parse(text, path: path)
    }

    /// Parses `text`; `path` only names the file in error messages.
    public static func parse(_ text: String, path: String) throws -> ConfigFile {
        var entries: [Entry] = []
        var sections: [String] = []
        var sectionLines: [String: Int] = [:]
        var current: String?
        var seen: [String: Int] = [:]  // "section\u{0}key" -> line
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                let name = try parseSectionHeader(line, path: path, line: number)
                if sectionLines[name] == nil {
                    sections.append(name)
                    sectionLines[name] = number
                }
                current = name
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw ConfigError.at(path, line: number, "expected \"key = value\" or \"[section]\"")
            }
            let key = line[..<equals].trimmingSpaces()
            guard isValidKey(key) else {
                throw ConfigError.at(path, line: number, "invalid key \"\(key)\" (use letters, digits and _)")
            }
            guard let section = current else {
                throw ConfigError.at(path, line: number, "key \"\(key)\" appears before any [section]")
            }
            let value = try parseValue(line[line.index(after: equals)...], path: path, line: number, key: key)
            let identity = section + "\u{0}" + key
            if let first = seen[identity] {
                throw ConfigError.at(path, line: number, "duplicate key \"\(key)\" in [\(section)] (first set on line \(first))")
            }
            seen[identity] = number
            entries.append(Entry(section: section, key: key, value: value, line: number))
        }
        return ConfigFile(path: path, entries: entries, sections: sections, sectionLines: sectionLines)
    }

    /// Throws for a section not in `schema` or a key not listed for its section.
    /// `schema` maps each known section name to its known keys.
    public func validate(schema: [String: Set<String>]) throws {
        for name in sections where schema[name] == nil {
            let known = schema.keys.sorted().map { "[\($0)]" }.joined(separator: ", ")
            throw ConfigError.at(path, line: sectionLines[name] ?? 0, "unknown section [\(name)] (known: \(known))")
        }
        for entry in entries where !(schema[entry.section]?.contains(entry.key) ?? false) {
            throw ConfigError.at(path, line: entry.line, "unknown key \"\(entry.key)\" in [\(entry.section)]")
        }
    }

    /// A typed reader for one section.
    public func section(_ name: String) -> Section { Section(file: self, name: name) }

    /// Typed, located access to the values of one section. Absent keys read as `nil`.
    public struct Section: Sendable {
        /// The file the section belongs to.
        public let file: ConfigFile
        /// The section name.
        public let name: String

        /// The entry for `key`, if present.
        public func entry(_ key: String) -> Entry? {
            file.entries.first { $0.section == name && $0.key == key }
        }

        /// The raw string value.
        public func string(_ key: String) -> String? { entry(key)?.value }

        /// A non-empty string value (an empty value is an error).
        public func nonEmptyString(_ key: String) throws -> String? {
            guard let entry = entry(key) else { return nil }
            guard !entry.value.isEmpty else { throw located(entry, "\(key) in [\(name)] must not be empty") }
            return entry.value
        }

        /// A path value; a relative path is resolved against the config file's directory.
        public func path(_ key: String) throws -> String? {
            guard let value = try nonEmptyString(key) else { return nil }
            if value.hasPrefix("/") { return value }
            let directory = ConfigFile.directory(of: file.path)
            return directory.isEmpty ? value : directory + (directory.hasSuffix("/") ? "" : "/") + value
        }

        /// A boolean: `true/false`, `yes/no`, `on/off`, `1/0` (case-insensitive).
        public func bool(_ key: String) throws -> Bool? {
            guard let entry = entry(key) else { return nil }
            guard let value = ConfigValue.bool(entry.value) else {
                throw located(entry, "invalid boolean \"\(entry.value)\" for \(key) in [\(name)] (use true/false, yes/no, on/off, 1/0)")
            }
            return value
        }

        /// An integer within `range`.
        public func int(_ key: String, in range: ClosedRange<Int>) throws -> Int? {
            guard let entry = entry(key) else { return nil }
            guard let value = Int(entry.value), range.contains(value) else {
                throw located(entry, "invalid integer \"\(entry.value)\" for \(key) in [\(name)] (expected \(range.lowerBound)...\(range.upperBound))")
            }
            return value
        }

        /// A number of seconds within `range` (decimals allowed).
        public func seconds(_ key: String, in range: ClosedRange<Double>) throws -> Double? {
            guard let entry = entry(key) else { return nil }
            guard let value = ConfigValue.seconds(entry.value), range.contains(value) else {
                throw located(entry, "invalid duration \"\(entry.value)\" for \(key) in [\(name)] (seconds, \(ConfigValue.format(range)))")
            }
            return value
        }

        /// A value converted by `parse`; `expected` describes valid values in the error message.
        public func custom<T>(_ key: String, expected: String, _ parse: (String) -> T?) throws -> T? {
            guard let entry = entry(key) else { return nil }
            guard let value = parse(entry.value) else {
                throw located(entry, "invalid value \"\(entry.value)\" for \(key) in [\(name)] (expected \(expected))")
            }
            return value
        }

        /// An error located at `entry`'s line.
        public func located(_ entry: Entry, _ message: String) -> ConfigError {
            ConfigError.at(file.path, line: entry.line, message)
        }
    }

    private static func parseSectionHeader(_ line: String, path: String, line number: Int) throws -> String {
        guard line.hasSuffix("]") else {
            throw ConfigError.at(path, line: number, "malformed section header \(line) (expected [name])")
        }
        let name = line.dropFirst().dropLast().trimmingSpaces()
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ isASCIIAlphanumeric($0) || "_-.".unicodeScalars.contains($0) }) else {
            throw ConfigError.at(path, line: number, "malformed section header \(line) (expected [name])")
        }
        return name
    }

    private static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && key.unicodeScalars.allSatisfy { isASCIIAlphanumeric($0) || $0 == "_" }
    }

    private static func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// The directory part of `path` as `NSString.deletingLastPathComponent` gives it: `""` for a
    /// bare name, `/` for a file in the root, trailing slashes ignored.
    static func directory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    private static func parseValue(_ raw: Substring, path: String, line: Int, key: String) throws -> String {
        let text = raw.trimmingSpaces()
        guard let quote = text.first, quote == "\"" || quote == "'" else {
            return stripTrailingComment(text)
        }
        var value = ""
        var index = text.index(after: text.startIndex)
        var closed = false
        while index < text.endIndex {
            let c = text[index]
            if c == quote {
                closed = true
                index = text.index(after: index)
                break
            }
            if quote == "\"" && c == "\\" {
                let next = text.index(after: index)
                guard next < text.endIndex, text[next] == "\"" || text[next] == "\\" else {
                    throw ConfigError.at(path, line: line, "invalid escape in quoted value of \"\(key)\" (only \\\" and \\\\ are allowed)")
                }
                value.append(text[next])
                index = text.index(after: next)
                continue
            }
            value.append(c)
            index = text.index(after: index)
        }
        guard closed else { throw ConfigError.at(path, line: line, "unterminated quoted value for \"\(key)\"") }
        let rest = text[index...].trimmingSpaces()
        guard rest.isEmpty || rest.hasPrefix("#") || rest.hasPrefix(";") else {
            throw ConfigError.at(path, line: line, "unexpected text after the quoted value of \"\(key)\"")
        }
        return value
    }

    private static func stripTrailingComment(_ text: String) -> String {
        var previous: Character = " "
        for index in text.indices {
            let c = text[index]
            if c == "#" && (previous == " " || previous == "\t") {
                return text[..<index].trimmingSpaces()
            }
            previous = c
        }
        return text
    }
}
