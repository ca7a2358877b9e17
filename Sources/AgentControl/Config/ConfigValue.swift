/// Parsing of the scalar value kinds shared by the config file and command-line flags.
public enum ConfigValue {
    /// `true/false`, `yes/no`, `on/off`, `1/0`, case-insensitive.
    public static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    /// A finite number of seconds; an optional `s` suffix is accepted (`2.5`, `10s`).
    public static func seconds(_ text: String) -> Double? {
        let trimmed = text.hasSuffix("s") ? String(text.dropLast()) : text
        guard let value = Double(trimmed), value.isFinite else { return nil }
        return value
    }

    /// A TCP/UDP port number.
    public static func port(_ text: String) -> Int? {
        guard let value = Int(text), (1...65535).contains(value) else { return nil }
        return value
    }

    /// `a...b` without a trailing `.0` for whole numbers.
    public static func format(_ range: ClosedRange<Double>) -> String {
        "\(format(range.lowerBound))...\(format(range.upperBound))"
    }

    public static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
