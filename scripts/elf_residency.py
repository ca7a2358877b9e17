#!/usr/bin/python3
"""Resident pages of a running process's main executable, per ELF section.

`python3 scripts/elf_residency.py PID` (or `elf_residency.sections(pid)` from bench_memory.py)
reads the executable's section headers, finds where /proc/PID/maps put its file, and counts the
pages that /proc/PID/pagemap reports present, per allocated section (a page shared by two sections
counts for both). What the static wcs-agentd keeps resident is mostly its own file: this says
which part (.text, .rodata, .rela.dyn, .eh_frame, ...). Figures only.
"""
import os
import struct
import sys

PAGE = os.sysconf("SC_PAGE_SIZE")
SHF_ALLOC = 0x2


def section_headers(path):
    """[(name, vaddr, size)] of the allocated sections of an ELF64 little-endian file."""
    with open(path, "rb") as f:
        ident = f.read(64)
        if ident[:4] != b"\x7fELF" or ident[4] != 2 or ident[5] != 1:
            raise ValueError(f"{path}: not an ELF64 little-endian file")
        shoff, = struct.unpack_from("<Q", ident, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", ident, 0x3A)
        f.seek(shoff)
        raw = f.read(shentsize * shnum)
        headers = [struct.unpack_from("<IIQQQQ", raw, i * shentsize) for i in range(shnum)]
        _, _, _, _, stroff, strsize = headers[shstrndx]
        f.seek(stroff)
        names = f.read(strsize)
    out = []
    for name_off, _kind, flags, addr, _offset, size in headers:
        if flags & SHF_ALLOC and size:
            name = names[name_off:names.index(b"\0", name_off)].decode()
            out.append((name, addr, size))
    return out


def sections(pid):
    """{section: resident kB} of PID's main executable (needs read access to /proc/PID/pagemap)."""
    exe = os.path.realpath(f"/proc/{pid}/exe")
    mappings = []
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and parts[5] == exe:
                start, end = (int(x, 16) for x in parts[0].split("-"))
                mappings.append((start, end, int(parts[2], 16)))
    base = min(start - offset for start, _, offset in mappings)
    present = set()
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for start, end, _ in mappings:
            pagemap.seek(start // PAGE * 8)
            entries = pagemap.read((end - start) // PAGE * 8)
            for i in range(len(entries) // 8):
                word, = struct.unpack_from("<Q", entries, i * 8)
                if word >> 63 & 1:
                    present.add(start + i * PAGE)
    result = {}
    for name, addr, size in section_headers(exe):
        first = (base + addr) // PAGE * PAGE
        pages = sum(1 for page in range(first, base + addr + size, PAGE) if page in present)
        result[name] = (pages * PAGE >> 10, size >> 10)
    result["(any page of the file)"] = (len(present) * PAGE >> 10, sum(e - s for s, e, _ in mappings) >> 10)
    return result


def main():
    for name, (resident, size) in sorted(sections(int(sys.argv[1])).items(), key=lambda item: -item[1][0]):
        print(f"  {name:<28}{resident:>8} kB resident of {size:>8} kB")


if __name__ == "__main__":
    main()
