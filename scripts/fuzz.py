#!/usr/bin/python3
"""libFuzzer harnesses of Tests/Fuzz: build them, run them, replay their corpora.

    scripts/fuzz.py build                 build every harness (make fuzz-build)
    scripts/fuzz.py run --seconds N       build, then run each harness N seconds, one at a time (make fuzz)
    scripts/fuzz.py replay                build, then run each harness once over its corpus (no mutation)
    scripts/fuzz.py merge                 build, then shrink each corpus to the inputs that add coverage

Build: SwiftPM compiles the library targets once, instrumented (`--sanitize fuzzer --sanitize
address`, `-enable-testing` so harnesses can reach internal parsers), into .build-fuzz; each
harness (Tests/Fuzz/NAME/Harness.swift plus Tests/Fuzz/Common/*.swift) is then compiled and linked
against those objects with swiftc. Run: inputs libFuzzer finds go to .build-fuzz/corpus/NAME (the
seed corpus Tests/Fuzz/NAME/corpus is only read); a crash is saved as
.build-fuzz/artifacts/NAME/crash-* and the run exits 1. See Tests/Fuzz/README.md.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUZZ_DIR = os.path.join(ROOT, "Tests", "Fuzz")
BUILD_PATH = os.path.join(ROOT, ".build-fuzz")
SWIFT_BIN = "/opt/swift/usr/bin"

# The instrumented build: the top library targets (the daemon's tools over the daemon, and the
# test-only media helpers such as SRTPSession); SwiftPM builds their dependencies too.
TOP_TARGETS = ["AgentTools", "MediaTestSupport"]
# The most bytes libFuzzer makes an input, per harness (default 4096): room for whole SDPs,
# config files and webhook requests above the 8 KiB head limit.
MAX_LEN = {"sdp": 16384, "config": 16384, "push-webhook": 12288, "push-payload": 20000}


def harnesses():
    """Every harness: the directories of Tests/Fuzz with a Harness.swift."""
    return sorted(d for d in os.listdir(FUZZ_DIR) if os.path.isfile(os.path.join(FUZZ_DIR, d, "Harness.swift")))


def run(cmd, shown=None, **kwargs):
    print("+ " + (shown or " ".join(cmd)), flush=True)
    return subprocess.run(cmd, check=True, **kwargs)


def environment():
    env = dict(os.environ)
    env["PATH"] = SWIFT_BIN + ":" + env.get("PATH", "")
    return env


def pkg_config_names():
    """The pkg-config names of Package.swift's system libraries (the C libraries the targets use)."""
    with open(os.path.join(ROOT, "Package.swift")) as f:
        return re.findall(r'pkgConfig:\s*"([^"]+)"', f.read())


def pkg_config(flag):
    out = subprocess.run(["pkg-config", flag] + pkg_config_names(), check=True, capture_output=True, text=True).stdout
    return out.split()


def build(names):
    env = environment()
    swiftpm = ["swift", "build", "-c", "release", "--build-path", BUILD_PATH, "--sanitize", "fuzzer",
               "--sanitize", "address", "-Xswiftc", "-enable-testing"]
    for target in TOP_TARGETS:
        run(swiftpm + ["--target", target], cwd=ROOT, env=env)
    bin_path = subprocess.run(swiftpm + ["--show-bin-path"], cwd=ROOT, env=env, check=True,
                              capture_output=True, text=True).stdout.strip()
    # Every harness links the objects of TOP_TARGETS and of the targets it depends on: the only
    # ones this build path holds (an executable's objects, with its main, are never built here).
    objects = []
    for directory in sorted(glob.glob(os.path.join(bin_path, "*.build"))):
        found = sorted(glob.glob(os.path.join(directory, "*.o")))
        if not any(os.path.basename(o) == "main.swift.o" for o in found):
            objects += found
    for target in TOP_TARGETS:
        if not glob.glob(os.path.join(bin_path, target + ".build", "*.o")):
            sys.exit("fuzz: no objects of %s in %s" % (target, bin_path))
    module_maps = []
    for path in sorted(glob.glob(os.path.join(ROOT, "Sources", "C*", "module.modulemap"))):
        module_maps += ["-Xcc", "-fmodule-map-file=" + path]
    includes = [f for f in pkg_config("--cflags") if f.startswith("-I")]
    libraries = pkg_config("--libs")
    out_dir = os.path.join(BUILD_PATH, "harness")
    os.makedirs(out_dir, exist_ok=True)
    common = sorted(glob.glob(os.path.join(FUZZ_DIR, "Common", "*.swift")))
    for name in names:
        module = "Fuzz" + "".join(part.capitalize() for part in re.split(r"[-_]", name))
        run(["swiftc", "-O", "-use-ld=lld", "-parse-as-library", "-swift-version", "6", "-sanitize=fuzzer,address",
             "-module-name", module, "-I", os.path.join(bin_path, "Modules")] + module_maps + includes
            + common + [os.path.join(FUZZ_DIR, name, "Harness.swift")] + objects + libraries
            + ["-o", os.path.join(out_dir, name)], cwd=ROOT, env=env,
            shown="swiftc -sanitize=fuzzer,address Tests/Fuzz/%s/Harness.swift + %d objects -o %s"
            % (name, len(objects), os.path.relpath(os.path.join(out_dir, name), ROOT)))
    return out_dir


def libfuzzer_flags(name):
    return ["-max_len=%d" % MAX_LEN.get(name, 4096), "-timeout=10", "-rss_limit_mb=2048",
            "-print_final_stats=1", "-artifact_prefix=" + os.path.join(BUILD_PATH, "artifacts", name) + "/"]


def stat(output, key):
    match = re.search(r"stat::%s:\s*(\d+)" % key, output)
    return int(match.group(1)) if match else None


def run_harness(out_dir, name, args):
    """Runs one harness; returns (ok, executions, executions per second, output)."""
    os.makedirs(os.path.join(BUILD_PATH, "artifacts", name), exist_ok=True)
    cmd = [os.path.join(out_dir, name)] + libfuzzer_flags(name) + args
    print("+ " + " ".join(cmd), flush=True)
    # The Swift runtime's backtracer would take the crash signal from libFuzzer (which then saves
    # no input) and can hang under ASan; libFuzzer's own handler prints the stack instead.
    env = dict(os.environ, SWIFT_BACKTRACE="enable=no")
    with open(os.devnull) as devnull:
        proc = subprocess.run(cmd, stdin=devnull, capture_output=True, text=True, errors="replace", env=env)
    output = proc.stdout + proc.stderr
    return proc.returncode == 0, stat(output, "number_of_executed_units"), stat(output, "average_exec_per_sec"), output


def report(rows):
    print("\n%-16s %14s %10s  %s" % ("harness", "executions", "exec/s", "result"))
    for name, executions, rate, result in rows:
        print("%-16s %14s %10s  %s" % (name, executions if executions is not None else "?",
                                        rate if rate is not None else "?", result))


def fuzz(out_dir, names, seconds):
    rows, failed = [], False
    for name in names:
        work = os.path.join(BUILD_PATH, "corpus", name)
        os.makedirs(work, exist_ok=True)
        ok, executions, rate, output = run_harness(
            out_dir, name, ["-max_total_time=%d" % seconds, work, os.path.join(FUZZ_DIR, name, "corpus")])
        crash = re.findall(r"Test unit written to (\S+)", output)
        if not ok:
            failed = True
            sys.stdout.write(output[-6000:])
        rows.append((name, executions, rate, "ok" if ok else "FAILED " + " ".join(crash)))
    report(rows)
    return 1 if failed else 0


def replay(out_dir, names):
    rows, failed = [], False
    for name in names:
        ok, executions, rate, output = run_harness(out_dir, name, ["-runs=0", os.path.join(FUZZ_DIR, name, "corpus")])
        if not ok:
            failed = True
            sys.stdout.write(output[-6000:])
        rows.append((name, executions, rate, "ok" if ok else "FAILED"))
    report(rows)
    return 1 if failed else 0


def merge(out_dir, names):
    """Replaces each seed corpus by the inputs of seeds + found inputs that add coverage."""
    for name in names:
        seeds = os.path.join(FUZZ_DIR, name, "corpus")
        merged = os.path.join(BUILD_PATH, "merged", name)
        shutil.rmtree(merged, ignore_errors=True)
        os.makedirs(merged)
        ok, _, _, output = run_harness(out_dir, name, ["-merge=1", merged, seeds, os.path.join(BUILD_PATH, "corpus", name)])
        if not ok:
            sys.stdout.write(output[-6000:])
            return 1
        kept = set(os.listdir(merged))
        for entry in os.listdir(seeds):
            # Named seeds (real messages, crash inputs) stay; libFuzzer's hash-named finds are replaced.
            if re.fullmatch(r"[0-9a-f]{40}", entry) and entry not in kept:
                os.remove(os.path.join(seeds, entry))
        for entry in kept:
            if not os.path.exists(os.path.join(seeds, entry)):
                shutil.copy(os.path.join(merged, entry), seeds)
        print("%s: %d inputs in the seed corpus" % (name, len(os.listdir(seeds))))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["build", "run", "replay", "merge"])
    parser.add_argument("--seconds", type=int, default=60, help="run: seconds per harness (default 60)")
    parser.add_argument("--harness", action="append", help="only this harness (repeatable); default all")
    parser.add_argument("--skip-build", action="store_true", help="use the harnesses already in .build-fuzz/harness")
    args = parser.parse_args()
    names = args.harness or harnesses()
    unknown = [n for n in names if n not in harnesses()]
    if unknown:
        sys.exit("fuzz: unknown harness %s (have: %s)" % (", ".join(unknown), ", ".join(harnesses())))
    out_dir = os.path.join(BUILD_PATH, "harness") if args.skip_build else build(names)
    if args.command == "run":
        return fuzz(out_dir, names, args.seconds)
    if args.command == "replay":
        return replay(out_dir, names)
    if args.command == "merge":
        return merge(out_dir, names)
    return 0


if __name__ == "__main__":
    sys.exit(main())
