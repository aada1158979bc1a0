#!/usr/bin/env python3
"""The fixed capacities of the tree: every `#define NAME_MAX` (or
NAME_MAX_THING) of clc/, loader/, formats/ and preload/, with its value,
where it is, what kind of bound it is and why it may stay fixed.

  limits_table.py            prints the table (Markdown)
  limits_table.py --write F  puts it into F between the markers below
  limits_table.py --check F  fails when F's table is not the one printed

docs/LIMITS.md holds it between "<!-- limits: begin -->" and
"<!-- limits: end -->"; tests/cli/cli_limits.sh runs --check, so a
capacity added or removed changes the document too."""
import os
import re
import sys

ROOTS = ("clc", "loader", "formats", "preload")
BEGIN, END = "<!-- limits: begin -->", "<!-- limits: end -->"
DEFINE = re.compile(r"^\s*#\s*define\s+([A-Z][A-Z0-9_]*_MAX(?:_[A-Z0-9_]+)?)\s+(.+?)\s*$")

# Kinds, by the name, in order: the first that matches. Each says what the
# bound holds and why a fixed size is right for it.
KINDS = (
    (r"ERR|MSG|WHY|REASON|NOTE|ERROR",
     "message", "the text of one message: longer text is cut at the bound (bounded_fmt.h), never written past it"),
    (r"PATH|DIR|URL|FILE_MAX",
     "path", "a path, folder or URL: the system's PATH_MAX or the protocol's; a longer one is refused where it is read"),
    (r"NAME|LABEL|KEY|HASH|TARGET|QUOTE|TAG|ID_MAX|VERSION|STR",
     "name", "a name, key or label of fixed format: a longer one is refused where it is read, or cut in a message"),
    (r"DEPTH|NEST",
     "depth", "how deep a nesting may go (expressions, includes, records): bounded so that input cannot exhaust the stack"),
    (r"MAX_[A-Z]+$|_MAX_[A-Z]+|JOBS|ARCHS|DEVICES|FORMS|SLOTS|DEFINES|PARAMS|VALUES|COUNT|ENTRIES|KERNELS|FILES|NAMES",
     "count", "how many of a thing one run or one record holds: past it, an error names the bound"),
    (r".*",
     "size", "how large an input may be: untrusted bytes past it are refused before memory is taken for them"),
)


def value_text(v):
    v = re.sub(r"/\*.*?\*/", "", v).strip()
    v = re.sub(r"//.*$", "", v).strip()
    return v


def comment_of(line):
    m = re.search(r"/\*\s*(.*?)\s*\*/", line)
    return m.group(1) if m else ""


def scan(top):
    rows = []
    for root in ROOTS:
        for d, _, files in os.walk(os.path.join(top, root)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(d, f)
                rel = os.path.relpath(path, top)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for line in fh:
                        m = DEFINE.match(line)
                        if m:
                            rows.append((m.group(1), value_text(m.group(2)), rel, comment_of(line)))
    rows.sort(key=lambda r: (r[2], r[0]))
    return rows


def kind_of(name):
    for pattern, kind, why in KINDS:
        if re.search(pattern, name):
            return kind, why
    return "size", KINDS[-1][2]


def table(top):
    rows = scan(top)
    counts = {}
    out = []
    for name, value, where, comment in rows:
        kind, _ = kind_of(name)
        counts[kind] = counts.get(kind, 0) + 1
        note = comment.replace("|", "\\|")
        out.append("| `%s` | `%s` | `%s` | %s | %s |" % (name, value.replace("|", "\\|"), where, kind, note))
    head = ["%d fixed capacities (%s). What each kind is, and why it may stay fixed:" % (
        len(rows), ", ".join("%d %s" % (counts[k], k) for _, k, _ in KINDS if k in counts)), ""]
    for _, kind, why in KINDS:
        if kind in counts:
            head.append("- **%s**: %s." % (kind, why))
    head += ["", "| name | value | where | kind | its comment |", "|---|---|---|---|---|"]
    return "\n".join(head + out) + "\n"


def main(argv):
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    text = table(top)
    if len(argv) == 1:
        sys.stdout.write(text)
        return 0
    if len(argv) != 3 or argv[1] not in ("--write", "--check"):
        sys.stderr.write(__doc__)
        return 2
    doc = open(argv[2], encoding="utf-8").read()
    if BEGIN not in doc or END not in doc:
        sys.stderr.write("%s: no %s ... %s markers\n" % (argv[2], BEGIN, END))
        return 1
    a = doc.index(BEGIN) + len(BEGIN)
    b = doc.index(END)
    new = doc[:a] + "\n" + text + doc[b:]
    if argv[1] == "--write":
        tmp = argv[2] + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(new)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, argv[2])
        return 0
    if new != doc:
        sys.stderr.write("%s: its table of fixed capacities is not the tree's: "
                         "python3 scripts/limits_table.py --write %s\n" % (argv[2], argv[2]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
