import Foundation

/// The seed corpora of the fuzz harnesses (Tests/Fuzz/NAME/corpus), for the tests that replay
/// them through the normal, uninstrumented build: every crash input the fuzzers found is kept
/// there, so `make test` feeds it to the fixed parser again.
public enum FuzzCorpus {
    /// The corpus directory of harness `name`.
    public static func directory(_ name: String) -> URL {
        TestSupport.repositoryRoot.appendingPathComponent("Tests/Fuzz/\(name)/corpus")
    }

    /// One input of harness `name`'s corpus.
    public static func input(_ name: String, _ file: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory(name).appendingPathComponent(file)))
    }

    /// Every input of harness `name`'s corpus, by file name (sorted).
    public static func inputs(_ name: String) throws -> [(name: String, bytes: [UInt8])] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory(name).path).sorted()
        return try files.map { ($0, try input(name, $0)) }
    }
}
