import TestSupport
import Foundation
import Testing

/// Foundation stays out of the shipped binaries: no module under Sources/ (the daemon's and the
/// front's) imports Foundation or its ICU-backed parts, and the built `wcs-agentd` loads none of
/// their libraries. Foundation would bring back ~6.5 MB of resident memory (libFoundation, ICU,
/// FoundationInternationalization) and make answer rules' local time silently differ
/// (see WallClockTime). FoundationEssentials, Glibc and Dispatch are what the modules use.
@Suite struct DaemonFoundationFreeTests {
    /// Modules that are Foundation or ride on it (ICU, networking, XML).
    static let heavyModules: Set<String> = ["Foundation", "FoundationInternationalization", "FoundationNetworking",
                                            "FoundationXML", "_FoundationICU"]
    static let heavyLibraries: Set<String> = ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so",
                                              "libFoundationNetworking.so", "libFoundationXML.so"]

    /// The module an import line names (`import Foundation`, `@preconcurrency import Foundation`,
    /// `import struct Foundation.Date`, `@_exported import Foundation`), or nil for other lines.
    static func importedModule(_ line: Substring) -> String? {
        var words = line.split(whereSeparator: \.isWhitespace)[...]
        while let first = words.first, first.hasPrefix("@") { words = words.dropFirst() }
        guard words.first == "import" else { return nil }
        words = words.dropFirst()
        let kinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let"]
        if let kind = words.first, kinds.contains(kind) { words = words.dropFirst() }
        return words.first.map { String($0.split(separator: ".")[0]) }
    }

    @Test func importLinesAreRecognised() {
        #expect(Self.importedModule("import Foundation") == "Foundation")
        #expect(Self.importedModule("@preconcurrency import  Foundation") == "Foundation")
        #expect(Self.importedModule("import struct Foundation.Date") == "Foundation")
        #expect(Self.importedModule("import FoundationEssentials") == "FoundationEssentials")
        #expect(Self.importedModule("// import Foundation") == nil)
    }

    @Test func noSourceModuleImportsFoundation() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 200, "found \(files.count) Swift files under \(sources.path)")
        var offenders: [String] = []
        for file in files {
            let text = try String(contentsOfFile: sources.appendingPathComponent(file).path, encoding: .utf8)
            for line in text.split(separator: "\n") {
                if let module = Self.importedModule(line), Self.heavyModules.contains(module) { offenders.append("\(file): \(line)") }
            }
        }
        #expect(offenders.isEmpty, "imports Foundation: \(offenders)")
    }

    @Test func theFullBinaryLoadsNoFoundationLibrary() throws {
        let ldd = try run("/usr/bin/ldd", [AgentHarness.fullBinary])
        #expect(ldd.status == 0 && ldd.output.contains("libc.so"), "\(ldd.output)")
        let libraries = Set(ldd.output.split(separator: "\n").compactMap { $0.split(whereSeparator: \.isWhitespace).first.map(String.init) })
        #expect(libraries.isDisjoint(with: Self.heavyLibraries), "wcs-agentd loads \(libraries.intersection(Self.heavyLibraries).sorted())")
    }
}
