import Foundation
import Testing
import TestSupport
@testable import AgentCore

/// The .deb from `make deb`, installed for real with dpkg: its units verify, the installed binary
/// needs nothing from the Swift toolchain (it answers a call with /opt/swift hidden), remove keeps
/// the configuration and the state, purge drops both and leaves none of the package's files.
///
/// Needs root (dpkg). Changes the host while it runs, so it holds a host-wide lock and refuses
/// to start when wcs-agent state or configuration it did not create is already there.
@Suite(.serialized) struct PackageInstallTests {
    static let units = ["/usr/lib/systemd/system/wcs-agent.service", "/usr/lib/systemd/system/wcs-agent@.service"]

    @Test(.enabled(if: getuid() == 0, "needs root: installs the package with dpkg"),
          .enabled(if: InstalledPackage.debPath != nil, "no .deb for this version: run `make deb` (make test does)"))
    func installRunRemovePurge() async throws {
        try await onThread {
            let deb = try #require(InstalledPackage.debPath)
            #expect(FileManager.default.fileExists(atPath: deb), "\(deb) is missing: make deb failed?")
            let lock = try InstalledPackage.lock()
            defer { close(lock) }
            if InstalledPackage.isKnown { try InstalledPackage.dpkg(["--purge", InstalledPackage.name]) } // a failed run's leftovers
            for path in ["/etc/wcs-agent"] + InstalledPackage.stateDirectories {
                guard !FileManager.default.fileExists(atPath: path) else { throw HarnessError("refusing to run: \(path) already exists on this host") }
            }
            defer { _ = try? InstalledPackage.dpkg(["--purge", InstalledPackage.name]) }

            try InstalledPackage.dpkg(["--install", deb])
            #expect(InstalledPackage.isInstalled)
            #expect(InstalledPackage.query("${Version}") == AgentCore.version)
            try Self.checkContents()
            try Self.checkUnitsVerify()
            try Self.checkRunsWithoutToolchain()
            let files = try Self.packagedFiles()
            try Self.checkRemoveKeepsStateAndPurgeDropsIt(files: files)
        }
    }

    /// Depends from dpkg-shlibdeps (Debian libraries, nothing from Swift); the conffile; the files.
    static func checkContents() throws {
        let depends = InstalledPackage.query("${Depends}") ?? ""
        for library in ["libwebsockets17", "libnice10", "libopus0", "libsoxr0", "libasound2", "libssl3", "libglib2.0-0", "libc6"] {
            #expect(depends.contains(library), "Depends lacks \(library): \(depends)")
        }
        #expect(!depends.lowercased().contains("swift") && !depends.contains("libsrtp2"), "Depends: \(depends)")
        // The C++ runtime is linked in (packaging/static-libstdc++), and neither binary exports it.
        #expect(!depends.contains("libstdc++"), "Depends: \(depends)")
        // Packed relative relocations (DT_RELR) need glibc 2.36's loader: Depends says so.
        let libc = try #require(depends.firstMatch(of: /libc6 \(>= ([^)]+)\)/)?.1, "Depends: \(depends)")
        #expect(try run("/usr/bin/dpkg", ["--compare-versions", String(libc), "ge", "2.36"]).status == 0, "Depends: \(depends)")
        #expect(InstalledPackage.query("${Conffiles}")?.contains("/etc/wcs-agent/wcs-agent.conf ") == true)
        let files = try packagedFiles()
        for path in ["/usr/bin/wcs-agent", "/usr/lib/wcs-agent/wcs-agentd", "/usr/share/man/man8/wcs-agent.8.gz", "/usr/share/man/man5/wcs-agent.conf.5.gz",
                     "/usr/share/bash-completion/completions/wcs-agent", "/usr/share/doc/wcs-agent/copyright",
                     "/etc/wcs-agent/wcs-agent.conf"] + units {
            #expect(files.contains(path), "the package lacks \(path)")
        }
        for binary in ["/usr/bin/wcs-agent", "/usr/lib/wcs-agent/wcs-agentd"] {
            let ldd = try run("/usr/bin/ldd", [binary])
            #expect(ldd.status == 0 && !ldd.output.contains("/opt/swift") && !ldd.output.contains("not found"), "ldd \(binary):\n\(ldd.output)")
            #expect(!ldd.output.contains("libstdc++"), "ldd \(binary):\n\(ldd.output)")
            #expect(try CxxRuntimeExports.of(binary).isEmpty, "\(binary) exports its static C++ runtime")
            let facts = try ELFLinkFacts(binary)
            #expect(facts.isPositionIndependent && facts.hasPackedRelocations && facts.unpackedRelativeRelocations == 0, "\(binary): \(facts)")
        }
        // libnice is opened at the first call (dlopen), not linked: Depends names it itself, with a version.
        let daemon = try run("/usr/bin/ldd", ["/usr/lib/wcs-agent/wcs-agentd"]).output
        for library in ["libnice", "libgupnp", "libsoup"] { #expect(!daemon.contains(library), "wcs-agentd links \(library):\n\(daemon)") }
        #expect(depends.contains("libnice10 (>= 0.1."), "Depends: \(depends)")
        // So are alsa-lib (at the first `alsa:` device) and libsoxr with its libgomp (at the first resampler).
        for library in ["libasound", "libsoxr", "libgomp"] { #expect(!daemon.contains(library), "wcs-agentd links \(library):\n\(daemon)") }
        #expect(depends.contains("libasound2 (>= 1.") && depends.contains("libsoxr0 (>= 0."), "Depends: \(depends)")
        // The lean front needs nothing but the C runtime (no GLib, lws, libnice, OpenSSL, ICU, libstdc++).
        let front = try run("/usr/bin/ldd", ["/usr/bin/wcs-agent"]).output.split(separator: "\n").compactMap { line in
            line.split(whereSeparator: \.isWhitespace).first.map(String.init)
        }
        let allowed: Set<String> = ["linux-vdso.so.1", "libc.so.6", "libm.so.6", "libgcc_s.so.1", "/lib64/ld-linux-x86-64.so.2",
                                    "linux-gate.so.1", "/lib/ld-linux-aarch64.so.1", "ld-linux-aarch64.so.1"]
        #expect(front.allSatisfy(allowed.contains), "the front loads more than the C runtime: \(front)")
        let man = try run("/usr/bin/man", ["--warnings", "-l", "/usr/share/man/man5/wcs-agent.conf.5.gz"])
        #expect(man.output.contains("turn_password_file"), "wcs-agent.conf(5) lacks the [media] keys")
    }

    static func checkUnitsVerify() throws {
        let scratch = try TemporaryDirectory(prefix: "wcs-deb")
        for unit in units {
            let result = try runTool(SystemdUnitFileTests.analyze, ["verify", unit], in: scratch)
            let complaints = result.errors.split(separator: "\n").filter { $0.contains("wcs-agent") }
            #expect(result.code == 0 && complaints.isEmpty, "systemd-analyze verify \(unit):\n\(result.errors)")
            let text = try String(contentsOfFile: unit, encoding: .utf8)
            #expect(text.contains("ExecStart=/usr/bin/wcs-agent run --config /etc/wcs-agent/"))
        }
    }

    /// With /opt/swift hidden the test build of the full binary cannot even start, while the
    /// installed front prints its version and (through the installed full binary) answers a WebRTC
    /// call from the emulator with audio both ways.
    static func checkRunsWithoutToolchain() throws {
        let scratch = try TemporaryDirectory(prefix: "wcs-deb")
        let devBuild = try run(try InstalledPackage.withoutSwiftToolchain(AgentHarness.fullBinary, in: scratch), ["--version"])
        #expect(devBuild.status != 0 && devBuild.output.contains("cannot open shared object file"),
                "hiding /opt/swift did not bite: \(devBuild.output)")
        let installed = try InstalledPackage.withoutSwiftToolchain("/usr/bin/wcs-agent", in: scratch)
        let version = try run(installed, ["--version"])
        #expect(version.status == 0 && version.output.hasPrefix("wcs-agent \(AgentCore.version) "), "\(version)")

        let h = try AgentHarness(media: .webrtc, binary: installed)
        try h.start(extra: ["--answer", "auto", "--audio-source", "tone:880", "--audio-sink", "record:\(h.scratch.file("rec"))",
                            "--media-address", "127.0.0.1"])
        let id = try h.emulator.control.ring(login: AgentHarness.login, caller: "2000", source: "tone:440").callId
        try h.waitFor("audio at the emulator", timeout: 25) { (try h.emulator.control.call(id)?.media?.packetsReceived ?? 0) > 50 }
        // Two C++ runtimes in one process: the daemon's own (linked in) and the libstdc++.so.6 that
        // libnice's ICU loads at the first call; the call runs with both.
        let daemon = try #require(h.daemon?.pid)
        #expect(try MappedFiles.names(pid: "\(daemon)").contains { $0.hasPrefix("libstdc++.so.6") }, "libnice's chain loads no libstdc++.so?")
        usleep(1_500_000)  // the agent's direction too: its record counts what it received
        #expect(try h.cli(["hangup", "--socket", h.socketPath]).code == 0)
        try h.waitFor("the call record") { try CallRecordStore(directory: h.stateDir).read().contains { $0.callId == id } }
        let record = try #require(try CallRecordStore(directory: h.stateDir).read().first { $0.callId == id })
        #expect(record.media?.codec == "opus" && (record.media?.packetsReceived ?? 0) > 50, "\(String(describing: record.media))")
        #expect(h.stop() == 0)
    }

    /// Regular files and links the package installed (dpkg -L without directories).
    static func packagedFiles() throws -> [String] {
        try InstalledPackage.dpkg(["-L", InstalledPackage.name]).split(separator: "\n").map(String.init).filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }

    /// State as systemd's DynamicUser= leaves it, an edited conffile, then remove and purge.
    static func checkRemoveKeepsStateAndPurgeDropsIt(files: [String]) throws {
        let privateState = "/var/lib/private/wcs-agent/door"
        try FileManager.default.createDirectory(atPath: privateState, withIntermediateDirectories: true)
        try "{}".write(toFile: privateState + "/token.json", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: "/var/lib/wcs-agent", withDestinationPath: "private/wcs-agent")
        let conf = "/etc/wcs-agent/wcs-agent.conf"
        try (try String(contentsOfFile: conf, encoding: .utf8) + "\n# edited by the test\n").write(toFile: conf, atomically: true, encoding: .utf8)

        try InstalledPackage.dpkg(["--remove", InstalledPackage.name])
        #expect(!InstalledPackage.isInstalled && InstalledPackage.isKnown)
        #expect(!FileManager.default.fileExists(atPath: "/usr/bin/wcs-agent"))
        #expect(contents(conf)?.contains("# edited by the test") == true, "remove must keep the edited configuration")
        #expect(FileManager.default.fileExists(atPath: "/var/lib/wcs-agent/door/token.json"), "remove must keep the state")

        try InstalledPackage.dpkg(["--purge", InstalledPackage.name])
        #expect(!InstalledPackage.isKnown)
        let left = (files + ["/etc/wcs-agent"] + InstalledPackage.stateDirectories).filter {
            FileManager.default.fileExists(atPath: $0) || (try? FileManager.default.destinationOfSymbolicLink(atPath: $0)) != nil
        }
        #expect(left.isEmpty, "left after purge: \(left)")
    }
}
