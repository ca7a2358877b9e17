import TestSupport
import Foundation
import Testing

/// Product modules ship product code only: nothing under Sources/ declares a benchmark, replay or
/// analysis type (they live in Benchmarks/MediaBenchmarks; test-only helpers under Tests/), and no
/// `WCS_AGENT_TEST_*` switch is read outside `#if DEBUG` (benchmarks and tests set configuration
/// instead: `CallMediaConfiguration.receivesOnLoopOnly`, `ICEConfiguration.sendsThroughLibniceOnly`,
/// `CallMediaConfiguration.codecFactory`).
@Suite struct ProductModulesTests {
    /// Types that only the benchmarks, the replay tool or the tests use.
    static let benchmarkOnlyTypes: Set<String> = ["CodecBenchmark", "CodecCadenceBenchmark", "CallMediaBenchmark", "ICESendBenchmark",
                                                  "CallReceiveReplay", "SpectrumAnalysis", "RecordingLevelMeter", "AudioLevels",
                                                  "SRTPSession", "ReplayEncoder", "SampledOpusDecoder"]

    /// The type a declaration line declares (`public final class X: Y`, `enum X {`), or nil.
    static func declaredType(_ line: Substring) -> String? {
        let modifiers: Set<Substring> = ["public", "package", "internal", "fileprivate", "private", "final", "indirect",
                                         "nonisolated", "@MainLoopActor"]
        var words = line.split(whereSeparator: \.isWhitespace)[...]
        while let first = words.first, modifiers.contains(first) || first.hasPrefix("@") { words = words.dropFirst() }
        guard let kind = words.first, ["class", "struct", "enum", "actor", "protocol", "typealias"].contains(kind),
              let name = words.dropFirst().first else { return nil }
        return String(name.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
    }

    /// Lines of `text` (1-based numbers) that mention `needle` in code outside every `#if DEBUG` block.
    static func linesOutsideDebug(_ text: String, mentioning needle: String) -> [Int] {
        var conditions: [Bool] = []  // per open #if: whether it is a DEBUG block
        var found: [Int] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#if") {
                conditions.append(line.split(separator: " ").dropFirst().first == "DEBUG")
            } else if line.hasPrefix("#else") || line.hasPrefix("#elseif") {
                if !conditions.isEmpty { conditions[conditions.count - 1] = false }
            } else if line.hasPrefix("#endif") {
                _ = conditions.popLast()
            } else if !line.hasPrefix("//"), line.contains(needle), !conditions.contains(true) {
                found.append(index + 1)
            }
        }
        return found
    }

    static var sourceFiles: [(path: String, text: String)] {
        get throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let sources = root.appendingPathComponent("Sources")
            let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            return try files.sorted().map { ($0, try String(contentsOfFile: sources.appendingPathComponent($0).path, encoding: .utf8)) }
        }
    }

    @Test func declarationsAndDebugBlocksAreRecognised() {
        #expect(Self.declaredType("public final class SRTPSession {") == "SRTPSession")
        #expect(Self.declaredType("    package struct CallPlayout {") == "CallPlayout")
        #expect(Self.declaredType("enum CodecBenchmark: Sendable {") == "CodecBenchmark")
        #expect(Self.declaredType("// enum CodecBenchmark") == nil)
        #expect(Self.declaredType("let x = 1") == nil)
        let text = "a(\"X\")\n#if DEBUG\nb(\"X\")\n#else\nc(\"X\")\n#endif\n// d(\"X\")\n#if os(Linux)\ne(\"X\")\n#endif"
        #expect(Self.linesOutsideDebug(text, mentioning: "X") == [1, 5, 9])
    }

    @Test func noProductModuleDeclaresABenchmarkOnlyType() throws {
        let files = try Self.sourceFiles
        #expect(files.count > 200, "found \(files.count) Swift files under Sources/")
        var offenders: [String] = []
        for (path, text) in files {
            for line in text.split(separator: "\n") {
                guard let name = Self.declaredType(line) else { continue }
                if Self.benchmarkOnlyTypes.contains(name) || name.contains("Benchmark") { offenders.append("\(path): \(name)") }
            }
            if text.contains("benchmarkCodecs") { offenders.append("\(path): benchmarkCodecs") }
        }
        #expect(offenders.isEmpty, "benchmark or test code in product modules (move it to Benchmarks/ or Tests/): \(offenders)")
    }

    @Test func noTestSwitchIsReadOutsideDebugBuilds() throws {
        var offenders: [String] = []
        for (path, text) in try Self.sourceFiles {
            for needle in ["WCS_AGENT_TEST", "getenv(\"WCS_AGENT"] {
                offenders += Self.linesOutsideDebug(text, mentioning: needle).map { "\(path):\($0)" }
            }
        }
        #expect(offenders.isEmpty, "test switches on release paths (make them configuration): \(offenders)")
    }
}
