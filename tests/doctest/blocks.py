"""The code blocks of one document, with the doc-test annotation before each.

Markdown: fenced blocks (```LANG ... ```), the annotation an HTML comment
on the line right before the fence: <!-- doctest: skip: REASON -->,
<!-- doctest: file PATH --> or <!-- doctest: output -->.
roff (man pages): the example blocks .nf/.fi and .EX/.EE outside SYNOPSIS
(a synopsis is declarations, not an example), the annotation a comment on
the line right before: .\\" doctest: ... A man page names no language, so it
is guessed: shell when a line starts with a prompt ("$ ", "host$ "), else C.
"""
import re
from dataclasses import dataclass

SHELL_LANGS = {"sh", "bash", "shell", "console"}
C_LANGS = {"c"}

MD_NOTE = re.compile(r"^\s*<!--\s*doctest:\s*(.*?)\s*-->\s*$")
ROFF_NOTE = re.compile(r'^\.\\"\s*doctest:\s*(.*?)\s*$')
MD_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`\s]*)")
PROMPT = re.compile(r"^[\w.@-]*\$ ")


@dataclass
class Block:
    doc: str          # the document, as named to the user
    line: int         # line of the opening fence (1-based)
    lang: str         # "sh", "c", or the fence's word ("text", "make", "")
    text: str
    note: str = ""    # the annotation after "doctest:", "" when none
    prompted: bool = False  # shell lines after "$ ", the rest is output

    @property
    def kind(self):
        if self.lang in SHELL_LANGS:
            return "sh"
        if self.lang in C_LANGS:
            return "c"
        return self.lang


def _prompted(text):
    return any(PROMPT.match(line) for line in text.splitlines())


def markdown_blocks(doc, lines):
    blocks, i = [], 0
    while i < len(lines):
        m = MD_FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3).lower()
        note = MD_NOTE.match(lines[i - 1]) if i > 0 else None
        body, j = [], i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            # A fence inside a list item is indented: so is its text.
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        text = "\n".join(body) + "\n"
        blocks.append(Block(doc, i + 1, lang, text, note.group(1) if note else "",
                            lang == "console" or (lang in SHELL_LANGS and _prompted(text))))
        i = j + 1
    return blocks


ROFF_ESCAPES = [(r"\-", "-"), (r"\(aq", "'"), (r"\(dq", '"'), (r"\(ga", "`"),
                (r"\(ti", "~"), (r"\(ha", "^"), (r"\&", ""), (r"\fB", ""),
                (r"\fI", ""), (r"\fR", ""), (r"\fP", ""), (r"\e", "\\")]


def roff_text(line):
    for esc, plain in ROFF_ESCAPES:
        line = line.replace(esc, plain)
    return line


def roff_blocks(doc, lines):
    blocks, section, i = [], "", 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(".SH"):
            section = line[3:].strip().strip('"').upper()
        if line.strip() not in (".nf", ".EX") or section == "SYNOPSIS":
            i += 1
            continue
        end = ".fi" if line.strip() == ".nf" else ".EE"
        note = ROFF_NOTE.match(lines[i - 1]) if i > 0 else None
        body, j = [], i + 1
        while j < len(lines) and lines[j].strip() != end:
            if not lines[j].startswith("."):       # requests (.RS, .RE) are layout
                body.append(roff_text(lines[j]))
            j += 1
        text = "\n".join(body) + "\n"
        prompted = _prompted(text)
        blocks.append(Block(doc, i + 1, "sh" if prompted else "c", text,
                            note.group(1) if note else "", prompted))
        i = j + 1
    return blocks


def read_blocks(path, doc):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if re.search(r"\.\d$", path):
        return roff_blocks(doc, lines)
    return markdown_blocks(doc, lines)


def shell_script(block):
    """The commands of a shell block: all of it, or for a prompted one the
    lines after a prompt and their continuation lines (the rest is output)."""
    if not block.prompted:
        return block.text
    out, cont = [], False
    for line in block.text.splitlines():
        m = PROMPT.match(line)
        if m or cont:
            cmd = line[m.end():] if m else line
            out.append(cmd)
            cont = cmd.rstrip().endswith("\\")
    return "\n".join(out) + "\n"
