import TestSupport
import Testing
@testable import AgentCore

/// Call ids of any length and bytes become unique, safe file names (issue 19, invariant b).
struct SafeFileNameTests {
    @Test func ordinaryIdsKeepTheirNames() {
        for id in ["3f2a9c1e-7d1b-4f8e-9a3b-2c4d5e6f7a8b", "a_b", "CALL-1", String(repeating: "x", count: 64)] {
            #expect(SafeFileName.stem(for: id) == id)
        }
    }

    @Test func oddIdsGetDistinctSafeNames() {
        let ids = ["a/b", "a_b", "a\\b", "a b", "", ".", "..", "../../etc/passwd", "-rf", "\u{1b}[2J\u{202e}x", "é", "e\u{301}",
                   String(repeating: "x", count: 65), String(repeating: "y", count: 300), String(repeating: "y", count: 299),
                   "a_b-" + SafeFileName.hash("a/b"), "call-" + SafeFileName.hash("")]
        let names = ids.map(SafeFileName.stem(for:))
        #expect(Set(names).count == ids.count, "\(zip(ids, names).map { "\($0.debugDescription) → \($1)" })")
        for name in names {
            #expect(!name.isEmpty && name.utf8.count <= 65, "\(name)")
            #expect(!name.hasPrefix("-") && !name.hasPrefix("."), "\(name)")
            #expect(name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" },
                    "\(name)")
        }
        // A readable prefix stays.
        #expect(SafeFileName.stem(for: "a/b").hasPrefix("a_b-"))
        #expect(SafeFileName.stem(for: "a/b") != SafeFileName.stem(for: "a_b"))
    }
}
