import TestSupport
import Foundation

/// The C++ runtime in the shipped executables is linked statically (packaging/static-libstdc++):
/// safe only while the executable exports none of its symbols, so that a libstdc++.so.6 a library
/// loads later (libnice -> ICU at the first call) binds its own `operator new`, exceptions and
/// type_info, never the executable's copy. Used by LeanFrontTests and PackageInstallTests.
enum CxxRuntimeExports {
    /// Mangled-name prefixes of libstdc++/libsupc++: operator new/delete, the ABI (__cxa_*,
    /// __cxxabiv1 type_info), the personality routine, std:: and __gnu_cxx:: entities.
    static let prefixes = ["_Znw", "_Zna", "_Zdl", "_Zda", "__cxa_", "__gxx_personality", "_ZSt", "_ZNSt", "_ZNKSt",
                           "_ZTISt", "_ZTSSt", "_ZTVSt", "_ZN9__gnu_cxx", "_ZN10__cxxabiv1", "_ZTIN10__cxxabiv1",
                           "_ZTVN10__cxxabiv1"]

    /// Empty constexpr tag objects of the standard library: no state and no code, so which copy a
    /// later libstdc++.so.6 binds to cannot change behaviour. `std::piecewise_construct` is emitted
    /// (weak, default visibility from libstdc++'s headers) by the echo canceller's C++ shim through
    /// webrtc::Config's std::map. To do: hide it at link time rather than allow it here.
    static let statelessTags: Set<String> = ["_ZSt19piecewise_construct"]

    /// The C++ runtime symbols `binary` defines in its dynamic symbol table (`nm -D --defined-only`;
    /// binutils is in the Makefile's APT_PACKAGES). Throws when nm fails or finds no symbol at all.
    static func of(_ binary: String) throws -> [String] {
        let result = try run("/usr/bin/nm", ["-D", "--defined-only", binary])
        guard result.status == 0 else { throw HarnessError("nm -D \(binary): \(result.output)") }
        let names = result.output.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
        guard !names.isEmpty else { throw HarnessError("nm -D \(binary) listed no symbol") }
        return names.filter { name in prefixes.contains { name.hasPrefix($0) } && !statelessTags.contains(name) }
    }
}
