#!/usr/bin/env python3
"""dead_paths.py ROOT: every path of the tree that a document, a comment or
a test names must exist (tests/cli/cli_docs.sh). Prints FILE:LINE: PATH for
each that does not, and exits 1 if there is any.

A path is a word that starts with one of the tree's top folders and ends in
a source or document extension (clc/tune/tune_measure.c, docs/CLI.md). It
may also be relative to the naming file's folder or one above it (an
example naming its own kernels, a benchmark its own headers). Not checked:
fenced code blocks of Markdown files (the doc tests run those), names with
a placeholder (NAME, X, x: tests/cli/cli_NAME.sh), a pattern (rcache*.c,
fuzz_<name>.c), and files the build makes."""
import os
import re
import subprocess
import sys

TOP = r'(?:clc|loader|common|formats|preload|tests|scripts|docs|examples|kernels|man|packs|public)'
PATH = re.compile(r'(?<![A-Za-z0-9_./$-])(' + TOP + r'/[A-Za-z0-9_.+/-]*[A-Za-z0-9_])')
CHECKED = re.compile(r'\.(c|h|md|sh|py|cmake|cl|in|list|json|conf|txt)$')
PLACEHOLDER = re.compile(r'NAME|(^|[/_])[Xx]\.|_X\.')
NAMING = re.compile(r'\.(md|c|h|sh|py|txt|list|cmake|in|1|3|cl)$|(^|/)Makefile$')
SKIP_DIRS = ('tests/data/', 'tests/fuzz/corpus', 'tests/fuzz/regressions')


def tree(root):
    """The tree's files: git's list where it is a checkout, else a walk."""
    r = subprocess.run(['git', '-C', root, 'ls-files'], capture_output=True, text=True)
    if r.returncode == 0 and r.stdout:
        return r.stdout.split('\n')[:-1]
    out = []
    for d, subs, names in os.walk(root):
        subs[:] = [s for s in subs if not s.startswith(('.', 'build'))]
        out += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    files = tree(root)
    known = set(files)
    for f in files:
        while '/' in f:
            f = f.rsplit('/', 1)[0]
            known.add(f)
    dead = []
    for f in files:
        if not NAMING.search(f) or f.startswith(SKIP_DIRS):
            continue
        try:
            with open(os.path.join(root, f), encoding='utf-8', errors='replace') as fh:
                lines = fh.read().split('\n')
        except OSError:
            continue
        fence = False
        for n, line in enumerate(lines, 1):
            if f.endswith('.md') and line.lstrip().startswith('```'):
                fence = not fence
                continue
            if fence:
                continue
            for m in PATH.finditer(line):
                p = m.group(1).rstrip('.')
                after = line[m.end():m.end() + 1]
                if after and after in '*<{' or not CHECKED.search(p) or PLACEHOLDER.search(p):
                    continue
                d, found = os.path.dirname(f), p in known
                while not found and d:
                    found = os.path.normpath(os.path.join(d, p)) in known
                    d = os.path.dirname(d)
                if not found:
                    dead.append('%s:%d: %s' % (f, n, p))
    for d in dead:
        print(d)
    return 1 if dead else 0


if __name__ == '__main__':
    sys.exit(main())
