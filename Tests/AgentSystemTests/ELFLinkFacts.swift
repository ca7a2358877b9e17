import TestSupport
import Foundation

/// How an executable was linked, read with binutils' readelf (in the Makefile's APT_PACKAGES):
/// whether it is position-independent (ASLR) and whether its relative relocations are packed
/// (DT_RELR) instead of listed one by one in .rela.dyn. Used by ShippedBinaryLinkTests and
/// PackageInstallTests.
struct ELFLinkFacts {
    /// ELF type DYN and FLAGS_1 PIE: the kernel loads it at a random address.
    let isPositionIndependent: Bool
    /// The dynamic section has DT_RELR: the loader applies packed relative relocations.
    let hasPackedRelocations: Bool
    /// Relative relocations still listed one by one (R_*_RELATIVE in .rela.dyn, 24 bytes each).
    let unpackedRelativeRelocations: Int

    init(_ binary: String) throws {
        let header = try run("/usr/bin/readelf", ["-h", "-d", binary])
        guard header.status == 0 else { throw HarnessError("readelf -h -d \(binary): \(header.output)") }
        let lines = header.output.split(separator: "\n")
        isPositionIndependent = lines.contains { $0.contains("Type:") && $0.contains("DYN") }
            && lines.contains { $0.contains("(FLAGS_1)") && $0.split(separator: " ").contains("PIE") }
        hasPackedRelocations = lines.contains { $0.contains("(RELR)") }
        let relocations = try run("/usr/bin/readelf", ["-r", "-W", binary])
        guard relocations.status == 0 else { throw HarnessError("readelf -r \(binary): \(relocations.output)") }
        unpackedRelativeRelocations = relocations.output.split(separator: "\n").filter { line in
            line.split(whereSeparator: \.isWhitespace).dropFirst(2).first?.hasSuffix("_RELATIVE") == true
        }.count
    }
}
