// swift-tools-version:6.0
// wcs-agent: a Linux client for a Flashphoner WCS-style server (signaling, WebRTC audio, daemon).
import PackageDescription

/// The C++ runtime linked statically into the two shipped executables where the Swift runtime is
/// (the front always, wcs-agentd with --static-swift-stdlib): packaging/static-libstdc++ holds a
/// linker script named libstdc++.so that names libstdc++.a (see the script). Without -lstdc++ on the
/// link line (a dynamic Swift runtime) the directory changes nothing.
let staticLibstdcxx: LinkerSetting = .unsafeFlags(["-L", Context.packageDirectory + "/packaging/static-libstdc++"])

/// The two shipped executables are linked by lld (the Swift toolchain's) with packed relative
/// relocations (DT_RELR, glibc >= 2.36): a position-independent executable keeps ASLR, and its
/// ~40 000 relative relocations take 8 kB instead of a 1 MB .rela.dyn that the loader reads,
/// and so keeps resident, at every start (gold cannot pack them). Measured: -2.0 MB RSS idle.
let packedRelocations: LinkerSetting = .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"])

/// The daemon's code laid out by use (release builds): every Swift function in a section of its own,
/// and lld places the functions an idle daemon runs (packaging/symbol-order/wcs-agentd.txt,
/// made by scripts/symbol_order.py) together at the start of .text, a call's right after. The kernel
/// maps an executable's code in chunks around each page a fault needs (fault-around over what
/// read-ahead put in the page cache), so ~850 kB of functions scattered over 11 MB of .text kept
/// ~7.4 MB of it resident (Benchmarks/README, "Memory, session 6").
/// Private functions have no symbol to list: a partial linker script gathers them right before
/// .text (packaging/symbol-order/private-functions.ld).
let functionSections: SwiftSetting = .unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release))
let idleCodeFirst: LinkerSetting = .unsafeFlags(
    ["-Xlinker", "--symbol-ordering-file=" + Context.packageDirectory + "/packaging/symbol-order/wcs-agentd.txt",
     "-Xlinker", "--no-warn-symbol-ordering",
     "-Xlinker", "--script=" + Context.packageDirectory + "/packaging/symbol-order/private-functions.ld"], .when(configuration: .release))

let package = Package(
    name: "wcs-agent",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "WCSSession", targets: ["WCSSession"]),
        .library(name: "AudioPipe", targets: ["AudioPipe"]),
        // The lean front users run (client verbs over the control socket, no heavy libraries) and
        // the full binary it execs for everything else (the daemon, prompt, doctor, history).
        .executable(name: "wcs-agent", targets: ["wcs-agent"]),
        .executable(name: "wcs-agentd", targets: ["wcs-agentd"]),
    ],
    targets: [
        // One system-library target per C library: a module map and, where Swift cannot call
        // a macro or a variadic function, a shim header of static inline wrappers.
        .systemLibrary(name: "CWebSockets", pkgConfig: "libwebsockets", providers: [.apt(["libwebsockets-dev"])]),
        .systemLibrary(name: "CGLib", pkgConfig: "glib-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
        .systemLibrary(name: "CSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),

        // libsoxr and alsa-lib, loaded on first use (dlopen) instead of linked, as libnice below:
        // an idle agent maps neither them nor libgomp (libsoxr's OpenMP). Each target defines the
        // library functions the Swift code calls and forwards them to dlsym'd pointers; the shared
        // loader opens each library once. Hidden visibility: the libraries (and ALSA's plugins) keep
        // binding to their own functions.
        .target(name: "CLibraryLoader"),
        .target(name: "CSoxr", dependencies: ["CLibraryLoader"], cSettings: [.unsafeFlags(["-fvisibility=hidden"])]),
        .target(name: "CALSA", dependencies: ["CLibraryLoader"], cSettings: [.unsafeFlags(["-fvisibility=hidden"])]),
        // libmosquitto (the native MQTT push intake, `[push] mqtt`), opened on first use the same way.
        .target(name: "CMosquitto", dependencies: ["CLibraryLoader"], cSettings: [.unsafeFlags(["-fvisibility=hidden"])]),
        // Echo cancellation, noise suppression and gain (speexdsp, webrtc-audio-processing 0.3 through a
        // small C++ shim), both loaded on first use too (Sources/CEchoCancel): an idle agent maps neither.
        .target(name: "CEchoCancel", dependencies: ["CLibraryLoader"],
                cSettings: [.unsafeFlags(["-fvisibility=hidden"])],
                cxxSettings: [.unsafeFlags(["-fvisibility=hidden",
                                            "-I/usr/include/webrtc_audio_processing", "-DWEBRTC_POSIX",
                                            "-DWEBRTC_AUDIO_PROCESSING_ONLY_BUILD"])]),

        // libnice, loaded at the first ICE use (dlopen) instead of linked: C definitions of the
        // libnice functions AudioPipe calls, forwarding to dlsym'd pointers (Sources/CNice). Hidden
        // visibility keeps libnice's calls to its own functions inside libnice.
        .target(name: "CNice", dependencies: ["CGLib"], cSettings: [.unsafeFlags(["-fvisibility=hidden"])]),
        // The process's system helpers, no GLib: the logger (`Log`), the one monotonic clock, file
        // descriptors, errno errors, socket addresses, the environment (Glibc, FoundationEssentials).
        .target(name: "SystemSupport"),
        // JSONValue, the loosely typed JSON both protocols carry (FoundationEssentials only).
        .target(name: "WCSJSON"),
        // The control protocol's client side: wire, typed verbs, client, socket path resolution,
        // config file parser. Glibc + FoundationEssentials only, so the lean front stays lean.
        .target(name: "AgentControl", dependencies: ["WCSJSON", "SystemSupport"], exclude: ["README.md"]),
        // Numbers as text (fixed decimals, zero padding) without Foundation's String(format:).
        .target(name: "DecimalText"),
        // The single GLib main-loop thread that drives libwebsockets and libnice.
        .target(name: "MainLoop", dependencies: ["CGLib", "SystemSupport"]),
        // Signaling plane: WebSocket + WCS JSON protocol, session and call state machines.
        .target(name: "WCSSession", dependencies: ["WCSJSON", "DecimalText", "MainLoop", "CWebSockets", "CSSL"], exclude: ["README.md"]),
        // Media plane, one target per layer so the compiler holds the layering (as Pion's packages):
        // SDP offer/answer; RTP/RTCP and statistics; the jitter buffer (on RTP's unwrappers);
        // the codecs (Opus, G.711, resampling).
        .target(name: "AudioSDP"),
        .target(name: "AudioRTP"),
        .target(name: "AudioJitter", dependencies: ["AudioRTP", "SystemSupport"]),
        .target(name: "AudioCodec", dependencies: ["COpus", "CSoxr"]),
        // The media umbrella: ICE, DTLS-SRTP, DTMF, audio I/O and CallMedia; re-exports the layers.
        .target(name: "AudioPipe", dependencies: ["MainLoop", "AudioSDP", "AudioRTP", "AudioJitter", "AudioCodec", "CNice", "CSSL", "CALSA",
                                                 "CEchoCancel", "DecimalText"],
                exclude: ["README.md"]),
        // The daemon's logic (config, token store, control socket, policy), testable as a library.
        .target(name: "AgentCore", dependencies: ["AgentControl", "WCSSession", "AudioPipe", "CSSL", "CMosquitto", "DecimalText"]),
        // The tools that talk to the daemon or read what it left (prompt, doctor, history) and the
        // full binary's command line (`CLI`), which starts the daemon for `run`.
        .target(name: "AgentTools", dependencies: ["AgentCore"]),
        // `wcs-agent`: the lean front. The Swift and C++ runtimes are linked in (also in debug builds),
        // so it loads libc, libm and libgcc_s only and starts in a few milliseconds.
        .executableTarget(name: "wcs-agent", dependencies: ["AgentControl"],
                          linkerSettings: [.unsafeFlags(["-static-stdlib"]), staticLibstdcxx, packedRelocations, .linkedLibrary("_FoundationCollections"),
                                          .linkedLibrary("_FoundationCShims"), .linkedLibrary("swiftSynchronization")]),
        // `wcs-agentd`: the full binary (daemon and every other verb), exec'd by the front.
        .executableTarget(name: "wcs-agentd", dependencies: ["AgentTools"], linkerSettings: [staticLibstdcxx, packedRelocations, idleCodeFirst]),
        // Benchmark, replay and analysis code (never in the product): codec and call benchmarks, the
        // cheap far ends' codecs, the receive path on a virtual clock, levels and spectrum of recordings.
        .target(name: "MediaBenchmarks", dependencies: ["AudioPipe"], path: "Benchmarks/MediaBenchmarks"),
        // In-process media benchmarks for `make bench`.
        .executableTarget(name: "wcs-bench", dependencies: ["MediaBenchmarks"], path: "Benchmarks/wcs-bench"),
        // Issue 22's DTMF harness: door codes as tones over Opus with loss, speech and music with no digits.
        .target(name: "DTMFHarness", dependencies: ["AudioPipe", "TestSupport"], path: "Benchmarks/DTMFHarness"),
        // The door-station figures for `make bench` (scripts/bench_door.py): in-audio DTMF, codes, detector CPU.
        .executableTarget(name: "wcs-door-bench", dependencies: ["DTMFHarness", "MediaBenchmarks", "AgentCore"], path: "Benchmarks/wcs-door-bench"),
        // The call's voice processing (echo canceller, noise suppression, gain) on files, for the echo harness.
        .executableTarget(name: "wcs-voice-bench", dependencies: ["AudioPipe"], path: "Benchmarks/wcs-voice-bench"),
        // The far ends of many calls in one process (AudioPipe), driven by scripts/bench.py.
        .executableTarget(name: "wcs-bench-peer", dependencies: ["MediaBenchmarks"], path: "Benchmarks/wcs-bench-peer"),
        // The agent's receive path on a virtual clock: deterministic PESQ under loss (scripts/bench_replay.py).
        .executableTarget(name: "wcs-quality-replay", dependencies: ["MediaBenchmarks"], path: "Benchmarks/wcs-quality-replay"),
        // examples/embed: a small program embedding the WCSSession library.
        .executableTarget(name: "wcs-session-example", dependencies: ["WCSSession", "MainLoop"], path: "examples/embed",
                          exclude: ["README.md"]),

        // Test support: starts the WCS emulator and talks to its control API.
        .target(name: "TestSupport", dependencies: ["SystemSupport", "WCSJSON"], path: "Tests/TestSupport"),
        // Test-only media helpers (SRTPSession: both SRTP halves with copying calls; the fuzz harnesses use it too).
        .target(name: "MediaTestSupport", dependencies: ["AudioPipe"], path: "Tests/MediaTestSupport"),
        .testTarget(name: "MainLoopTests", dependencies: ["MainLoop", "TestSupport"]),
        .testTarget(name: "WCSJSONTests", dependencies: ["WCSJSON"]),
        .testTarget(name: "DecimalTextTests", dependencies: ["DecimalText"]),
        .testTarget(name: "AgentControlTests", dependencies: ["AgentControl"]),
        .testTarget(name: "WCSSessionTests", dependencies: ["WCSSession", "TestSupport"]),
        .testTarget(name: "AudioSDPTests", dependencies: ["AudioSDP", "TestSupport"]),
        .testTarget(name: "AudioRTPTests", dependencies: ["AudioRTP", "TestSupport"]),
        .testTarget(name: "AudioJitterTests", dependencies: ["AudioJitter", "AudioRTP", "TestSupport"]),
        .testTarget(name: "AudioCodecTests", dependencies: ["AudioCodec", "AudioPipe", "MediaBenchmarks", "TestSupport"]),
        .testTarget(name: "AudioPipeTests", dependencies: ["AudioPipe", "CNice", "CSRTP", "MediaBenchmarks", "MediaTestSupport", "TestSupport",
                                                       "DTMFHarness"]),
        // The fast tier (`make check`, run in parallel): in-process tests only; no built binary, emulator or namespace.
        .testTarget(name: "AgentCoreTests", dependencies: ["AgentCore", "AgentTools", "AudioPipe", "TestSupport"]),
        // The serialized tier: the real wcs-agent/wcs-agentd binaries (built by `swift build --build-tests`),
        // the emulator, coturn, network namespaces, systemd units and the installed package.
        .testTarget(name: "AgentSystemTests", dependencies: ["AgentCore", "AgentTools", "AudioPipe", "MediaBenchmarks", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

/// The Swift modules linked into wcs-agentd get per-function sections (see `functionSections`).
let daemonSwiftModules: Set<String> = ["SystemSupport", "WCSJSON", "AgentControl", "DecimalText", "MainLoop", "WCSSession", "AudioSDP", "AudioRTP",
                                       "AudioJitter", "AudioCodec", "AudioPipe", "AgentCore", "AgentTools", "wcs-agentd"]
for target in package.targets where daemonSwiftModules.contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [functionSections]
}
