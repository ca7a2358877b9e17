@testable import AudioPipe
import CNice
import Foundation
import Testing
import TestSupport

/// The libnice loader (`NiceLibrary`, Sources/CNice): it opens the real libnice.so.10 and reports
/// where from and how long it took, and it refuses, by name, a library that lacks any function the
/// agent calls or a file that is not a library, so no forwarder ever calls through NULL.
@Suite struct NiceLibraryTests {
    @Test func theLoaderOpensLibniceAndReportsItsFileAndLoadTime() throws {
        let loaded = try NiceLibrary.load().get()
        #expect(loaded.path.hasPrefix("/") && loaded.path.contains("/libnice.so.10"), "\(loaded.path)")
        #expect(loaded.fileVersion?.hasPrefix("10.") == true, "\(loaded.path)")
        #expect(loaded.milliseconds > 0 && loaded.milliseconds < 10_000)
        #expect(NiceLibrary.isLoaded)
        try NiceLibrary.require()
        #expect(NiceLibrary.headerVersion.split(separator: ".").count == 3)
        #expect(try MappedFiles.paths().contains(loaded.path))
        // A second load is the first one's outcome (pthread_once / a static's initializer).
        #expect(try NiceLibrary.load().get() == loaded)
    }

    @Test func theRealLibraryHasEveryFunctionTheAgentCalls() {
        let (complete, reason) = Self.probe(NiceLibrary.soname)
        #expect(complete, "\(reason)")
    }

    @Test func aLibraryWithoutTheFunctionsIsRefusedByName() {
        let (complete, reason) = Self.probe("libglib-2.0.so.0")
        #expect(!complete)
        #expect(reason == "libglib-2.0.so.0 lacks nice_agent_new_full (libnice 0.1.19 or newer is needed)", "\(reason)")
    }

    /// A library with the first function but not the others: the check covers the whole list,
    /// the GObject functions included (found through the library's own dependencies).
    @Test func aLibraryMissingALaterFunctionIsRefused() throws {
        let scratch = try TemporaryDirectory(prefix: "nice-loader")
        let source = scratch.file("partial.c")
        try "void *nice_agent_new_full(void *c, int a, int b) { return 0; }\n".write(toFile: source, atomically: true, encoding: .utf8)
        let library = scratch.file("libpartial.so")
        let clang = try #require(Self.findInPath("clang"), "clang (the Swift toolchain's) not in PATH")
        let build = Process()
        build.executableURL = URL(fileURLWithPath: clang)
        build.arguments = ["-shared", "-fPIC", "-o", library, source]
        try build.run()
        build.waitUntilExit()
        try #require(build.terminationStatus == 0)
        let (complete, reason) = Self.probe(library)
        #expect(!complete)
        #expect(reason == "\(library) lacks nice_agent_add_local_address (libnice 0.1.19 or newer is needed)", "\(reason)")
    }

    @Test func aFileThatIsNotALibraryIsRefusedWithTheLoadersReason() throws {
        let scratch = try TemporaryDirectory(prefix: "nice-loader")
        let file = scratch.file("libnice.so.10")
        try "not an ELF file\n".write(toFile: file, atomically: true, encoding: .utf8)
        let (complete, reason) = Self.probe(file)
        #expect(!complete)
        #expect(reason.hasPrefix("cannot load \(file): "), "\(reason)")
        #expect(Self.probe(scratch.file("absent.so")).reason.contains("No such file"))
    }

    static func probe(_ file: String) -> (complete: Bool, reason: String) {
        var buffer = [CChar](repeating: 0, count: 512)
        let complete = cnice_library_probe(file, &buffer, buffer.count) != 0
        return (complete, buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    static func findInPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return (path.split(separator: ":").map { "\($0)/\(name)" } + ["/opt/swift/usr/bin/\(name)", "/usr/bin/\(name)"])
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
