#!/usr/bin/python3
"""Renders docs/config.md as the manual page wcs-agent.conf(5), so the reference has one source.

    config-md-to-man.py docs/config.md VERSION > wcs-agent.conf.5

Handles what config.md uses: headings, paragraphs, "- " and "1. " lists, fenced code blocks and
key tables (| Key | Flag | Default | Meaning |), which become one tagged paragraph per key.
"""
import re
import sys


def inline(text):
    """Markdown inline markup to roff: `code` bold, links as their text, escapes."""
    text = text.replace("\\", "\\e")
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", text)
    text = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", text)
    text = text.replace("-", "\\-").replace("–", "\\(en").replace("…", "...")
    return text


def line_start(text):
    """A roff text line must not start with . or '."""
    return "\\&" + text if text[:1] in (".", "'") else text


def render(markdown, version):
    out = [f'.TH WCS-AGENT.CONF 5 "December 2026" "wcs-agent {version}" "File Formats"',
           ".SH NAME", "wcs-agent.conf \\- configuration file of wcs-agent(8)"]
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            out.append(".PP\n.nf")
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                out.append(line_start(lines[i].replace("\\", "\\e").replace("-", "\\-")))
                i += 1
            out.append(".fi")
        elif line.startswith("# "):
            out.append(".SH DESCRIPTION")
        elif line.startswith("## "):
            out.append(".SH " + inline(line[3:]).upper())
        elif line.startswith("### "):
            out.append(".SS " + inline(line[4:]))
        elif line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0] not in ("Key", "") and not set(cells[0]) <= set("-: "):
                key, flag, default, meaning = (cells + ["", "", "", ""])[:4]
                tag = inline(key) + ("" if flag in ("–", "") else " (" + inline(flag) + ")")
                out += [".TP", tag, line_start(inline(meaning) + " Default: " + inline(default) + ".")]
        elif re.match(r"^(- |\d+\. )", line):
            number = re.match(r"^(\d+)\. ", line)
            out += [f".IP {number.group(1)}. 4" if number else ".IP \\(bu 2",
                    line_start(inline(re.sub(r"^(- |\d+\. )", "", line).strip()))]
        elif line.startswith("  ") and line.strip() and out and not out[-1].startswith("."):
            out[-1] += " " + inline(line.strip())
        elif not line.strip():
            out.append(".PP")
        else:
            out.append(line_start(inline(line)))
        i += 1
    out += [".SH SEE ALSO", ".BR wcs-agent (8),", ".BR systemd.exec (5)"]
    collapsed = []
    for item in out:  # no paragraph macro right after another, or before a section
        if item == ".PP" and collapsed and collapsed[-1].startswith((".PP", ".SH", ".SS", ".TP", ".IP")):
            continue
        if item.startswith((".SH", ".SS")) and collapsed and collapsed[-1] == ".PP":
            collapsed.pop()
        collapsed.append(item)
    return "\n".join(collapsed) + "\n"


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as source:
        sys.stdout.write(render(source.read(), sys.argv[2]))
