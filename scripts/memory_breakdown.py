"""Resident memory of a running process by kind: `kinds(pid)` reads /proc/PID/smaps and the stack
pointers of its threads; `show(idle, call, after)` prints three such readings side by side.

Kinds: the executable; the C runtime; OpenSSL; the loop and signalling libraries (GLib,
libwebsockets); the audio libraries (Opus, soxr and its OpenMP, ALSA); the libraries a call loads
(mapped in the call but not while idle: libnice's chain, each listed); malloc arenas ([heap] and the
64 MB-aligned heaps of glibc's per-thread arenas); thread stacks (the mapping holding each thread's
stack pointer, from /proc/PID/task/TID/syscall, named by the thread); other anonymous memory (the
executable's .bss, mmapped malloc blocks, library allocations). Used by bench_memory.py --breakdown.
"""
import os
import re

HEADER = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$")
ARENA_ALIGNMENT = 64 << 20   # glibc's HEAP_MAX_SIZE on 64-bit: each non-main arena heap starts aligned to it
GROUPS = [
    ("C and C++ runtime", ("libc.so", "libm.so", "ld-linux", "libgcc_s", "libpthread", "libdl.so", "libstdc++")),
    ("OpenSSL", ("libcrypto", "libssl")),
    ("loop and signalling (GLib, lws)", ("libglib-2.0", "libwebsockets", "libpcre2", "libcap.so", "libz.so")),
    ("audio (Opus, soxr + OpenMP, ALSA)", ("libopus", "libsoxr", "libgomp", "libasound")),
]
FIRST_CALL = "libraries a call loads"
ORDER = ["executable", "C and C++ runtime", "OpenSSL", "loop and signalling (GLib, lws)",
         "audio (Opus, soxr + OpenMP, ALSA)", FIRST_CALL, "other files", "malloc arenas", "thread stacks",
         "other anonymous (.bss, mmapped blocks)", "kernel ([vdso], [vvar])"]


def stack_pointers(pid):
    """{thread name (TID): stack pointer} of the threads blocked in a system call (needs ptrace access)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/syscall") as f:
                fields = f.read().split()
        except OSError:
            continue
        if len(fields) >= 3 and fields[0] != "running":
            out[f"{name} ({tid})"] = int(fields[-2], 16)
    return out


def smaps(pid):
    """Yields (start, end, name, {field: kB}) for each mapping in /proc/PID/smaps; name is the path or
    the bracketed name, "" for an anonymous mapping."""
    entry = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            m = HEADER.match(line)
            if m:
                if entry is not None:
                    yield entry
                entry = (int(m.group(1), 16), int(m.group(2), 16), m.group(4).strip(), {})
                continue
            parts = line.split()
            if entry is not None and len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                entry[3][parts[0][:-1]] = int(parts[1])
    if entry is not None:
        yield entry


def kinds(pid):
    """{label: {"group", "Rss", "Pss", "Private_Dirty"}} in kB; label is a file's name, "stack: THREAD",
    or a group name for anonymous memory."""
    exe = os.path.basename(os.path.realpath(f"/proc/{pid}/exe"))
    sps = stack_pointers(pid)
    out = {}
    for start, end, name, fields in smaps(pid):
        owners = [t for t, sp in sps.items() if start <= sp < end]
        if name == "[stack]":
            label, group = "stack: main thread", "thread stacks"
        elif owners:
            label, group = "stack: " + ", ".join(sorted(owners)), "thread stacks"
        elif name in ("[vdso]", "[vvar]", "[vvar_vclock]", "[vsyscall]"):
            label = group = "kernel ([vdso], [vvar])"
        elif name == "[heap]" or (not name and start % ARENA_ALIGNMENT == 0):
            label = group = "malloc arenas"
        elif not name or name.startswith("["):
            label = group = "other anonymous (.bss, mmapped blocks)"
        else:
            label = os.path.basename(name)
            group = "executable" if label == exe else next(
                (g for g, prefixes in GROUPS if label.startswith(prefixes)), "other files")
        current = out.setdefault(label, {"group": group, "Rss": 0, "Pss": 0, "Private_Dirty": 0})
        for key in ("Rss", "Pss", "Private_Dirty"):
            current[key] += fields.get(key, 0)
    return out


def _regroup(reading, idle):
    """Files mapped in `reading` but not in `idle` (and not the executable) count as loaded by a call."""
    out = {}
    for label, entry in reading.items():
        group = entry["group"]
        if label not in idle and group not in ("executable", "thread stacks", "malloc arenas", "kernel ([vdso], [vvar])",
                                               "other anonymous (.bss, mmapped blocks)"):
            group = FIRST_CALL
        out[label] = dict(entry, group=group)
    return out


def _sum(reading, group, key="Rss"):
    return sum(e[key] for e in reading.values() if e["group"] == group)


def show(idle, call, after):
    call, after = _regroup(call, idle), _regroup(after, idle)
    print("\nResident memory by kind (kB: RSS idle, in one call, idle after the call; PSS and private dirty in the call):")
    for group in ORDER:
        if any(_sum(r, group) for r in (idle, call, after)):
            print(f"  {group:<42}{_sum(idle, group):>8}{_sum(call, group):>8}{_sum(after, group):>8}"
                  f"{_sum(call, group, 'Pss'):>8}{_sum(call, group, 'Private_Dirty'):>8}")
    total = {n: sum(e["Rss"] for e in r.values()) for n, r in (("idle", idle), ("call", call), ("after", after))}
    print(f"  {'total':<42}{total['idle']:>8}{total['call']:>8}{total['after']:>8}")
    loaded = sorted((label for label, e in call.items() if e["group"] == FIRST_CALL), key=lambda n: -call[n]["Rss"])
    print(f"\n  {FIRST_CALL} ({len(loaded)}; kB RSS / PSS in the call):")
    for i in range(0, len(loaded), 3):
        print("    " + "".join(f"{n[:28]:<30}{call[n]['Rss']:>5} /{call[n]['Pss']:>5}   " for n in loaded[i:i + 3]))
    print("\n  thread stacks (kB RSS in the call):")
    for label, e in sorted(call.items()):
        if e["group"] == "thread stacks":
            print(f"    {label[7:][:70]:<72}{e['Rss']:>6}")
