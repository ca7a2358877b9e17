#!/usr/bin/python3
"""Mutation testing for wcs-agent: does the suite catch the bugs it claims to guard against?

Each mutant (Tests/Mutants/mutants.json) is a list of scripted edits: a file, an exact snippet that
must occur once, and its replacement. For every mutant this script

  1. syncs a scratch copy of the working tree (default .build/mutate/tree, kept between runs so its
     own .build stays warm and builds are incremental),
  2. applies the edits there (a snippet not found exactly once makes the mutant STALE: the code moved
     on and the mutant must be updated; it is never counted as survived),
  3. builds (`swift build --build-tests`; a mutant that does not compile is BROKEN),
  4. runs only the tests aimed at it (`swift test --skip-build --no-parallel --filter ...`),
  5. records KILLED with the names of the failing tests, or SURVIVED.

Before the mutants, the same tests run on the unmutated copy (the baseline): they must pass, or a
"kill" would mean nothing. At the end a table is printed and written to .build/mutate/results.md.
Exit status: 0 when every mutant is killed or explained (README "Explained survivors"), 1 otherwise.

Usage: scripts/mutate.py [--only NAME[,NAME...]] [--list] [--skip-baseline] [--tree DIR] [--timeout S]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "Tests" / "Mutants" / "mutants.json"
SWIFT_PATH = "/opt/swift/usr/bin"

# Swift Testing console lines: "✘ Test name() failed after 1.2 seconds with 1 issue." and
# "✘ Test name() recorded an issue at File.swift:12:3: ...". The symbol differs by terminal.
FAILED_TEST = re.compile(r"^\S+ Test (.+?) (?:with \d+ test cases? )?failed after ")
ISSUE_TEST = re.compile(r"^\S+ Test (.+?) recorded an issue")
STARTED_TEST = re.compile(r"^\S+ Test (.+?) started\.")
RUN_SUMMARY = re.compile(r"Test run with (\d+) tests? (?:in \d+ suites? )?(passed|failed)")
XCTEST_FAILED = re.compile(r"^Test Case '(.+?)' failed")
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Edit:
    file: str
    find: str
    replace: str


@dataclass
class Mutant:
    name: str
    description: str
    edits: List[Edit]
    tests: List[str]
    explained: Optional[str] = None


@dataclass
class Outcome:
    mutant: str
    verdict: str            # KILLED, SURVIVED, STALE, BROKEN, NO-TESTS, EXPLAINED
    detail: str = ""
    seconds: float = 0.0
    killers: List[str] = field(default_factory=list)


def load_mutants(path: Path) -> List[Mutant]:
    raw = json.loads(path.read_text())
    mutants = []
    for entry in raw["mutants"]:
        edits = [Edit(e["file"], e["find"], e["replace"]) for e in entry["edits"]]
        mutants.append(Mutant(entry["name"], entry["description"], edits, entry["tests"], entry.get("explained")))
    names = [m.name for m in mutants]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        sys.exit(f"mutate: duplicate mutant names: {sorted(duplicates)}")
    return mutants


def source_files() -> List[str]:
    """Tracked and untracked-but-not-ignored files of the working tree (what a commit would hold)."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, check=True, capture_output=True).stdout
    return [p for p in out.decode().split("\0") if p and (ROOT / p).is_file()]


def sync_tree(tree: Path) -> None:
    """Makes `tree` a copy of the working tree, rewriting only files whose content differs (so the
    scratch build stays incremental) and removing files that no longer exist (its .build stays)."""
    wanted = set(source_files())
    tree.mkdir(parents=True, exist_ok=True)
    for relative in wanted:
        source, target = ROOT / relative, tree / relative
        data = source.read_bytes()
        if not target.exists() or target.read_bytes() != data:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            shutil.copymode(source, target)
    for directory, subdirectories, files in os.walk(tree):
        if Path(directory) == tree:
            subdirectories[:] = [d for d in subdirectories if d not in (".build", ".swiftpm")]
        subdirectories[:] = [d for d in subdirectories if d != "__pycache__"]
        for name in files:
            path = Path(directory) / name
            if path.relative_to(tree).as_posix() not in wanted:
                path.unlink()


def apply(tree: Path, mutant: Mutant) -> Tuple[Optional[str], Dict[Path, bytes]]:
    """Applies the edits; returns (why it is stale or None, the original bytes of edited files)."""
    originals: Dict[Path, bytes] = {}
    texts: Dict[Path, str] = {}
    for edit in mutant.edits:
        path = tree / edit.file
        if not path.exists():
            return f"{edit.file} does not exist", {}
        text = texts.get(path, path.read_text())
        count = text.count(edit.find)
        if count != 1:
            where = "not found" if count == 0 else f"found {count} times"
            return f"snippet {where} in {edit.file}: {edit.find.strip()[:60]!r}", {}
        texts[path] = text.replace(edit.find, edit.replace)
    for path, text in texts.items():
        originals[path] = path.read_bytes()
        path.write_text(text)
    return None, originals


def restore(originals: Dict[Path, bytes]) -> None:
    for path, data in originals.items():
        path.write_bytes(data)


def environment() -> Dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = SWIFT_PATH + ":" + env.get("PATH", "")
    env["NO_COLOR"] = "1"
    return env


def build(tree: Path, log: Path) -> bool:
    with log.open("w") as out:
        return subprocess.run(["swift", "build", "--build-tests"], cwd=tree, env=environment(),
                              stdout=out, stderr=subprocess.STDOUT).returncode == 0


def run_tests(tree: Path, filters: List[str], timeout: float, log: Path) -> Tuple[int, str]:
    """Runs the filtered tests; returns (exit status, output). A timeout counts as status 124."""
    command = ["swift", "test", "--skip-build", "--no-parallel", "--filter", "|".join(f"(?:{f})" for f in filters)]
    with log.open("w") as out:
        process = subprocess.Popen(command, cwd=tree, env=environment(), stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            status = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()
            status = 124
    return status, ANSI_ESCAPE.sub("", log.read_text(errors="replace"))


def failing_tests(output: str) -> List[str]:
    """Names of failing tests in a `swift test` output, in order of appearance."""
    names: List[str] = []
    for line in output.splitlines():
        line = line.strip()
        match = FAILED_TEST.match(line) or ISSUE_TEST.match(line) or XCTEST_FAILED.match(line)
        if match and match.group(1) not in names and not match.group(1).startswith("run with"):
            names.append(match.group(1))
    return names


def tests_that_ran(output: str) -> int:
    counts = [int(m.group(1)) for m in RUN_SUMMARY.finditer(output)]
    return sum(counts) if counts else len(STARTED_TEST.findall(output))


def last_started(output: str) -> Optional[str]:
    started = [m.group(1) for m in map(STARTED_TEST.match, (l.strip() for l in output.splitlines())) if m]
    return started[-1] if started else None


def judge(status: int, output: str) -> Tuple[str, List[str], str]:
    """(verdict, killers, detail) for one filtered test run."""
    killers = failing_tests(output)
    if status == 0:
        if tests_that_ran(output) == 0:
            return "NO-TESTS", [], "the filter matched no test"
        return "SURVIVED", [], ""
    if status == 124:
        return "KILLED", killers or [last_started(output) or "?"], "timed out"
    if not killers:
        crashed = last_started(output)
        return "KILLED", [crashed or "?"], f"test process exited with status {status}" + (" (crash)" if crashed else "")
    return "KILLED", killers, ""


def table(outcomes: List[Outcome]) -> str:
    rows = [("mutant", "result", "killed by / note", "time")]
    for o in outcomes:
        note = ", ".join(o.killers) if o.killers else ""
        if o.detail:
            note = f"{note} ({o.detail})" if note else o.detail
        rows.append((o.mutant, o.verdict, note, f"{o.seconds:.0f}s"))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = []
    for index, row in enumerate(rows):
        lines.append("| " + " | ".join(row[i].ljust(widths[i]) for i in range(3)) + f" | {row[3]} |")
        if index == 0:
            lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|------|")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated mutant names")
    parser.add_argument("--list", action="store_true", help="list the mutants and their tests, then exit")
    parser.add_argument("--skip-baseline", action="store_true", help="do not run the tests on the unmutated tree first")
    parser.add_argument("--tree", default=str(ROOT / ".build" / "mutate" / "tree"), help="scratch copy (kept between runs)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per mutant's test run")
    args = parser.parse_args()

    mutants = load_mutants(MUTANTS)
    if args.only:
        chosen = set(args.only.split(","))
        unknown = chosen - {m.name for m in mutants}
        if unknown:
            sys.exit(f"mutate: unknown mutants: {sorted(unknown)}")
        mutants = [m for m in mutants if m.name in chosen]
    if args.list:
        for m in mutants:
            print(f"{m.name}: {m.description}\n    tests: {' | '.join(m.tests)}")
        return 0

    tree = Path(args.tree)
    logs = tree.parent / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    print(f"mutate: {len(mutants)} mutants; scratch tree {tree}; logs in {logs}", flush=True)
    sync_tree(tree)
    started = time.time()
    if not build(tree, logs / "baseline-build.log"):
        print(f"mutate: the unmutated tree does not build; see {logs / 'baseline-build.log'}")
        return 2
    if not args.skip_baseline:
        filters = sorted({f for m in mutants for f in m.tests})
        status, output = run_tests(tree, filters, args.timeout * 2, logs / "baseline-tests.log")
        if status != 0:
            print(f"mutate: the aimed tests fail without any mutant: {failing_tests(output) or status}; "
                  f"see {logs / 'baseline-tests.log'}")
            return 2
        print(f"mutate: baseline passed ({tests_that_ran(output)} tests, {time.time() - started:.0f}s)", flush=True)

    outcomes: List[Outcome] = []
    for mutant in mutants:
        begin = time.time()
        stale, originals = apply(tree, mutant)
        if stale:
            outcome = Outcome(mutant.name, "STALE", stale)
        else:
            try:
                if not build(tree, logs / f"{mutant.name}-build.log"):
                    outcome = Outcome(mutant.name, "BROKEN", f"does not compile; see {mutant.name}-build.log")
                else:
                    status, output = run_tests(tree, mutant.tests, args.timeout, logs / f"{mutant.name}-tests.log")
                    verdict, killers, detail = judge(status, output)
                    if verdict == "SURVIVED" and mutant.explained:
                        verdict, detail = "EXPLAINED", mutant.explained
                    outcome = Outcome(mutant.name, verdict, detail, killers=killers)
            finally:
                restore(originals)
        outcome.seconds = time.time() - begin
        outcomes.append(outcome)
        print(f"mutate: {outcome.mutant}: {outcome.verdict} {', '.join(outcome.killers)} {outcome.detail}".rstrip(), flush=True)

    report = table(outcomes)
    summary = {v: sum(1 for o in outcomes if o.verdict == v) for v in ("KILLED", "SURVIVED", "EXPLAINED", "STALE", "BROKEN", "NO-TESTS")}
    footer = ", ".join(f"{n} {v.lower()}" for v, n in summary.items() if n) + f"; {time.time() - started:.0f}s in all"
    print("\n" + report + "\n\n" + footer)
    (tree.parent / "results.md").write_text(report + "\n\n" + footer + "\n")
    return 0 if summary["SURVIVED"] == 0 and summary["NO-TESTS"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
