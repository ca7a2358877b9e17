#!/usr/bin/python3
"""Where wcs-agent's resident memory goes: idle, then in one call (issue 9's RSS goals).

`python3 scripts/bench_memory.py [--binary PATH] [--top N]` starts the WCS emulator and one agent
(the release build by default; `--binary` takes e.g. the static-stdlib build `make deb` makes, from
.build-deb/release/wcs-agent), waits until it is online and idle, reads /proc/PID/smaps_rollup and
sums /proc/PID/smaps per mapping (library file, [heap], anonymous, thread stacks), then rings one
call from the emulator (aiortc leg, tone), waits for the agent's first decoded audio plus a few
seconds, and reads them again; then hangs up and reads them once more ("idle after the call": what
an agent that has taken a call keeps, e.g. libraries loaded at the first call). Prints RSS/PSS/private-dirty totals, the top mappings of both
states side by side and the executable's resident pages per ELF section (scripts/elf_residency.py).
`--breakdown` adds the resident memory by kind in all three states (the executable, C runtime,
OpenSSL, loop and signalling, audio libraries, the libraries loaded at the first call (libnice's
chain, each listed), malloc arenas, thread stacks by thread name, other anonymous memory).
Figures only, nothing asserted.

The measured executables (the front and the wcs-agentd beside it) are dropped from the page cache
before the agent starts (`--warm` keeps them): how many of a file's pages a process maps depends on
how its page cache was filled (read-around on faults vs. one large write by the linker or `cp`), so
the same binary reads 0.5-1 MB apart depending on what was done to the file last. A cold file is
what an installed agent starts from after boot, and it makes A/B runs of fresh builds comparable.
"""
import argparse
import os
import time

import elf_residency
import memory_breakdown
from bench_rig import Agent, Rig, agent_binary



def rollup(pid):
    """{field: kB} of /proc/PID/smaps_rollup."""
    out = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                out[parts[0][:-1]] = int(parts[1])
    return out


def by_mapping(pid):
    """{mapping name: {Rss, Pss, Private_Dirty, Private_Clean, Anonymous} kB} from /proc/PID/smaps.

    File mappings are named by their file's base name; anonymous ones are split into the heap, the
    thread stacks (8 MB-class anonymous mappings right after a guard page are counted as
    "[anon: stack-sized]") and the rest."""
    totals = {}
    for start, end, name, fields in memory_breakdown.smaps(pid):
        if not name:
            name = "[anon: stack-sized]" if (end - start) in (8 << 20, (8 << 20) - 4096) else "[anon]"
        elif name.startswith("/"):
            name = os.path.basename(name)
        current = totals.setdefault(name, {"Rss": 0, "Pss": 0, "Private_Dirty": 0, "Private_Clean": 0,
                                           "Anonymous": 0, "Size": 0})
        current["Size"] += (end - start) >> 10
        for key in ("Rss", "Pss", "Private_Dirty", "Private_Clean", "Anonymous"):
            current[key] += fields.get(key, 0)
    return totals


def threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


def drop_from_page_cache(path):
    """Evicts `path`'s clean pages from the page cache (fsync first so none stay dirty)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def snapshot(pid):
    return {"rollup": rollup(pid), "maps": by_mapping(pid), "threads": threads(pid),
            "sections": elf_residency.sections(pid), "kinds": memory_breakdown.kinds(pid)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=None, help="wcs-agent to measure (default: .build/release/wcs-agent)")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--settle", type=float, default=3.0, help="seconds to wait before each reading")
    parser.add_argument("--breakdown", action="store_true", help="resident memory by kind (see above)")
    parser.add_argument("--warm", action="store_true", help="keep the executables' page cache as it is")
    args = parser.parse_args()
    rig = Rig(["1001"])
    try:
        if not args.warm:
            front = os.path.abspath(args.binary or agent_binary())
            for path in (front, os.path.join(os.path.dirname(front), "wcs-agentd")):
                if os.path.exists(path):
                    drop_from_page_cache(path)
        agent = Agent(rig, "1001", binary=args.binary)
        time.sleep(args.settle)
        idle = snapshot(agent.proc.pid)
        ring = rig.control("POST", "/ring", {"login": agent.login, "caller": "2000", "source": "tone:440"})
        agent.events.next(lambda e: e.get("type") == "media" and e.get("step") == "first_audio"
                          and e.get("call_id") == ring["callId"])
        time.sleep(args.settle)
        call = snapshot(agent.proc.pid)
        rig.control("POST", "/hangup", {"callId": ring["callId"]})
        agent.events.next(lambda e: e.get("type") == "call_ended" and e.get("call_id") == ring["callId"])
        time.sleep(args.settle)
        after = snapshot(agent.proc.pid)
    finally:
        rig.stop()

    print(f"wcs-agent memory: {agent.bin}")
    print(f"{'':<34}{'idle':>22}{'in one call':>22}{'idle after the call':>22}")
    for key in ("Rss", "Pss", "Private_Dirty", "Private_Clean", "Shared_Clean", "Anonymous"):
        a, b, c = idle["rollup"].get(key, 0), call["rollup"].get(key, 0), after["rollup"].get(key, 0)
        print(f"  {key:<32}{a / 1024:>18.1f} MB{b / 1024:>18.1f} MB{c / 1024:>18.1f} MB")
    print(f"  {'threads':<32}{idle['threads']:>21}{call['threads']:>22}{after['threads']:>22}")
    names = sorted(set(idle["maps"]) | set(call["maps"]),
                   key=lambda n: -max(idle["maps"].get(n, {}).get("Rss", 0), call["maps"].get(n, {}).get("Rss", 0)))
    print(f"\nTop {args.top} mappings by RSS (kB: RSS idle, RSS call, private dirty call, mapped size):")
    for name in names[:args.top]:
        a, b = idle["maps"].get(name, {}), call["maps"].get(name, {})
        print(f"  {name[:40]:<42}{a.get('Rss', 0):>8}{b.get('Rss', 0):>8}{b.get('Private_Dirty', 0):>8}"
              f"{b.get('Size', 0):>10}")
    rest = names[args.top:]
    print(f"  {'(' + str(len(rest)) + ' more)':<42}{sum(idle['maps'].get(n, {}).get('Rss', 0) for n in rest):>8}"
          f"{sum(call['maps'].get(n, {}).get('Rss', 0) for n in rest):>8}")
    if args.breakdown:
        memory_breakdown.show(idle["kinds"], call["kinds"], after["kinds"])
    print("\nThe executable's resident pages by ELF section (kB: idle, call, section size):")
    for name in sorted(call["sections"], key=lambda n: -call["sections"][n][0]):
        if call["sections"][name][0] or idle["sections"].get(name, (0, 0))[0]:
            print(f"  {name:<42}{idle['sections'].get(name, (0, 0))[0]:>8}{call['sections'][name][0]:>8}"
                  f"{call['sections'][name][1]:>10}")


if __name__ == "__main__":
    main()
