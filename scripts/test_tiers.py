#!/usr/bin/python3
"""The two test tiers, run target by target with each target's duration printed at the end.

    python3 scripts/test_tiers.py check     # the fast tier (make check)
    python3 scripts/test_tiers.py test      # everything CI runs (make test)

The fast tier: in-process test targets, each run with its tests in parallel. The serialized tier:
the targets that start real binaries, the emulator or other servers, network namespaces, systemd
units (their tests one at a time). `test` also runs the emulator's self-tests, the small fleet and the short echo harness,
then builds the .deb and runs the package install test last (PackageInstallTests, root only).

Every test target of Package.swift must be in exactly one tier (the script refuses otherwise), so a
new target is never skipped silently. Where a new test goes: see the comment above each list.
Runs the test bundle that `swift build --build-tests` built (SWIFT_FLAGS as for swift build).
"""
import os
import re
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# In-process tests only: no built binary, emulator, server process or namespace; run in parallel,
# so a test must not depend on another's timing or global state (use `.serialized` on a suite that
# shares a global). A new pure test goes into its module's target here (AgentCore: AgentCoreTests).
FAST = ["WCSJSONTests", "DecimalTextTests", "AgentControlTests", "AudioSDPTests", "AudioRTPTests", "AudioJitterTests",
        "AudioCodecTests", "MainLoopTests", "AgentCoreTests"]
# Run one test at a time: AgentSystemTests (the real wcs-agent/wcs-agentd through AgentHarness, the
# emulator, coturn, network namespaces, systemd, the package), WCSSessionTests (signaling against the
# emulator and the test servers), AudioPipeTests (real-time media: ICE over loopback, media clocks,
# ALSA devices named by the process-wide ALSA_CONFIG_PATH, PulseAudio, aiortc; timing-sensitive
# under a parallel load). A new test that starts the agent goes into AgentSystemTests.
SERIAL = ["AudioPipeTests", "WCSSessionTests", "AgentSystemTests"]
# The package test: needs the .deb (`make deb`), so it runs last, in `test` only.
PACKAGE_SUITE = "PackageInstallTests"


def swift_flags():
    return shlex.split(os.environ.get("SWIFT_FLAGS", ""))


def test_bundle():
    out = subprocess.run(["swift", "build", "--show-bin-path"] + swift_flags(), cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    return os.path.join(out, "wcs-agentPackageTests.xctest")


def package_test_targets():
    with open(os.path.join(ROOT, "Package.swift")) as f:
        return re.findall(r'\.testTarget\(name:\s*"([^"]+)"', f.read())


def check_tiers():
    declared = set(package_test_targets())
    listed = FAST + SERIAL
    missing = declared - set(listed)
    unknown = set(listed) - declared
    if missing or unknown or len(listed) != len(set(listed)):
        sys.exit("test_tiers: put every test target in one tier (scripts/test_tiers.py): missing %s, unknown %s"
                 % (sorted(missing), sorted(unknown)))


class Steps:
    def __init__(self):
        self.results = []

    def run(self, name, command, env=None):
        print("\n=== %s: %s" % (name, " ".join(command)), flush=True)
        start = time.monotonic()
        code = subprocess.run(command, cwd=ROOT, env=env).returncode
        self.results.append((name, time.monotonic() - start, code))
        return code

    def report(self):
        print("\nDurations (s):")
        for name, seconds, code in self.results:
            print("  %-34s %7.1f  %s" % (name, seconds, "ok" if code == 0 else "FAILED (exit %d)" % code))
        print("  %-34s %7.1f" % ("total", sum(r[1] for r in self.results)))
        failed = [r[0] for r in self.results if r[2] != 0]
        if failed:
            print("failed: " + ", ".join(failed))
        return 1 if failed else 0


def run_targets(steps, bundle, targets, parallel, skip=None):
    for target in targets:
        command = [bundle, "--testing-library", "swift-testing", "--filter", "^%s\\." % target]
        if not parallel:
            command.append("--no-parallel")
        if skip:
            command += ["--skip", skip]
        steps.run(target + ("" if parallel else " (serial)"), command)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "check"
    if mode not in ("check", "test"):
        sys.exit(__doc__)
    check_tiers()
    bundle = test_bundle()
    steps = Steps()
    if mode == "test":
        steps.run("emulator selftest", ["/usr/bin/python3", "Tests/Emulator/selftest.py"])
        steps.run("emulator selftest_media", ["/usr/bin/python3", "Tests/Emulator/selftest_media.py"])
        front = os.path.join(os.path.dirname(bundle), "wcs-agent")
        steps.run("small fleet", ["/usr/bin/python3", "Tests/Fleet/small_fleet_test.py", front])
        steps.run("echo harness (short)", ["/usr/bin/python3", "Benchmarks/echo/harness.py", "--short", "--engines", "webrtc",
                                           "--runner", os.path.join(os.path.dirname(bundle), "wcs-voice-bench")])
    run_targets(steps, bundle, FAST, parallel=True)
    if mode == "test":
        run_targets(steps, bundle, SERIAL, parallel=False, skip="\\.%s/" % PACKAGE_SUITE)
        if steps.run("make deb", ["make", "--no-print-directory", "deb"]) == 0:
            env = dict(os.environ, WCS_AGENT_DEB=os.environ.get("WCS_AGENT_DEB", ""))
            steps.run(PACKAGE_SUITE, [bundle, "--testing-library", "swift-testing", "--filter", "\\.%s/" % PACKAGE_SUITE,
                                      "--no-parallel"], env=env)
    sys.exit(steps.report())


if __name__ == "__main__":
    main()
