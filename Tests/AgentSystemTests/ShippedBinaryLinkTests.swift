import TestSupport
import Testing

/// How the two shipped executables are linked (Package.swift: lld with packed relative relocations,
/// the C++ runtime linked in), checked on the builds the tests run; PackageInstallTests checks the
/// installed release builds the same way.
@Suite struct ShippedBinaryLinkTests {
    /// Both stay position-independent (ASLR: `-no-pie` stays out) and carry their relative
    /// relocations packed (DT_RELR), none listed one by one in .rela.dyn.
    @Test(arguments: [AgentHarness.binary, AgentHarness.fullBinary])
    func packedRelocationsInAPositionIndependentExecutable(binary: String) throws {
        let facts = try ELFLinkFacts(binary)
        #expect(facts.isPositionIndependent, "\(binary) is not a PIE")
        #expect(facts.hasPackedRelocations, "\(binary) has no DT_RELR")
        #expect(facts.unpackedRelativeRelocations == 0, "\(binary): \(facts.unpackedRelativeRelocations) R_*_RELATIVE in .rela.dyn")
    }

    /// The front links the Swift runtime statically in every build, and with it the C++ runtime,
    /// whose symbols it must not export (see CxxRuntimeExports).
    @Test func theFrontKeepsItsCxxRuntimeToItself() throws {
        #expect(try CxxRuntimeExports.of(AgentHarness.binary).isEmpty)
    }
}
