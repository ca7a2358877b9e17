import Foundation

/// A strict reader of the Prometheus text exposition format (0.0.4), written from the format's
/// specification, so the tests check the agent's output independently of the code that writes
/// it: HELP/TYPE before samples, each family once and contiguous, legal names, escapes and values,
/// no duplicate series, histograms cumulative with `+Inf` equal to `_count`, counters >= 0.
public struct PrometheusExposition {
    public struct Sample: Equatable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public private(set) var types: [String: String] = [:]
    public private(set) var samples: [Sample] = []

    /// The value of the series `name` with exactly `labels`.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    public init(_ text: String) throws {
        guard text.hasSuffix("\n") else { throw Failure(description: "the exposition does not end with a newline") }
        var help: Set<String> = [], closed: Set<String> = [], current: String?, seen: Set<String> = []
        for (index, line) in text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            func fail(_ why: String) -> Failure { Failure(description: "line \(index + 1) \"\(line)\": \(why)") }
            if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                guard parts.count >= 3, Self.isMetricName(parts[2]) else { throw fail("bad metric name") }
                let family = String(parts[2])
                if family != current {
                    if let current { closed.insert(current) }
                    guard !closed.contains(family) else { throw fail("family \(family) appears twice") }
                    current = family
                }
                if parts[1] == "HELP" {
                    guard help.insert(family).inserted else { throw fail("second HELP") }
                } else {
                    guard parts.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]) else { throw fail("bad TYPE") }
                    guard types[family] == nil, !samples.contains(where: { Self.family(of: $0.name, types) == family }) else { throw fail("TYPE after samples or twice") }
                    types[family] = String(parts[3])
                }
                continue
            }
            guard !line.hasPrefix("#") else { continue }
            guard !line.isEmpty else { throw fail("empty line") }
            let sample = try Self.sample(line).get()
            let family = Self.family(of: sample.name, types)
            guard family == current else { throw fail("sample outside its family's block (\(family))") }
            let key = sample.name + sample.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            guard seen.insert(key).inserted else { throw fail("duplicate series") }
            if types[family] == "counter" || sample.name.hasSuffix("_bucket") || sample.name.hasSuffix("_count") {
                guard sample.value >= 0 else { throw fail("negative counter") }
            }
            samples.append(sample)
        }
        try checkHistograms()
    }

    private func checkHistograms() throws {
        for (family, type) in types where type == "histogram" {
            let buckets = samples.filter { $0.name == family + "_bucket" }
            guard buckets.allSatisfy({ $0.labels["le"] != nil }) else { throw Failure(description: "\(family): bucket without le") }
            let ordered = buckets.sorted { (Double($0.labels["le"]!.replacingOccurrences(of: "+Inf", with: "inf")) ?? 0) < (Double($1.labels["le"]!.replacingOccurrences(of: "+Inf", with: "inf")) ?? 0) }
            guard zip(ordered, ordered.dropFirst()).allSatisfy({ $0.value <= $1.value }) else { throw Failure(description: "\(family): buckets not cumulative") }
            guard let inf = ordered.last, inf.labels["le"] == "+Inf", value(family + "_count") == inf.value, value(family + "_sum") != nil
            else { throw Failure(description: "\(family): no +Inf bucket equal to _count, or no _sum") }
        }
    }

    private static func family(of name: String, _ types: [String: String]) -> String {
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if types[base] == "histogram" || types[base] == "summary" { return base }
        }
        return name
    }

    public static func isMetricName<S: StringProtocol>(_ s: S) -> Bool {
        guard let first = s.first, first.isASCII, first.isLetter || first == "_" || first == ":" else { return false }
        return s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") }
    }

    /// `name{label="value",...} value [timestamp]`, with the label value escapes `\\`, `\"`, `\n`.
    private static func sample(_ line: Substring) -> Result<Sample, Failure> {
        var rest = line[...]
        let name = rest.prefix { $0 != "{" && $0 != " " }
        guard isMetricName(name) else { return .failure(Failure(description: "bad sample name in \"\(line)\"")) }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let label = rest.prefix { $0 != "=" }
                guard !label.isEmpty, label.first!.isLetter || label.first == "_", label.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }),
                      rest.dropFirst(label.count).hasPrefix("=\"") else { return .failure(Failure(description: "bad label in \"\(line)\"")) }
                rest = rest.dropFirst(label.count + 2)
                var value = "", escaped = false
                while let c = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        guard let unescaped = ["\\": "\\", "\"": "\"", "n": "\n"][String(c)] else { return .failure(Failure(description: "bad escape in \"\(line)\"")) }
                        value += unescaped
                        escaped = false
                    } else if c == "\\" { escaped = true } else if c == "\"" { break } else { value.append(c) }
                }
                guard labels.updateValue(value, forKey: String(label)) == nil else { return .failure(Failure(description: "label twice in \"\(line)\"")) }
                if rest.first == "," { rest = rest.dropFirst() } else if rest.first != "}" { return .failure(Failure(description: "unterminated labels in \"\(line)\"")) }
            }
            rest = rest.dropFirst()
        }
        let fields = rest.split(separator: " ")
        guard rest.first == " ", (1...2).contains(fields.count) else { return .failure(Failure(description: "no value in \"\(line)\"")) }
        let valueText = String(fields[0])
        guard let value = ["NaN": Double.nan, "+Inf": .infinity, "-Inf": -.infinity][valueText] ?? Double(valueText), fields.count == 1 || Int64(fields[1]) != nil
        else { return .failure(Failure(description: "bad value in \"\(line)\"")) }
        return .success(Sample(name: String(name), labels: labels, value: value))
    }
}
