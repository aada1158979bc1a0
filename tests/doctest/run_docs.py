"""Runs the shell and C blocks of the user documents (tests/cli/cli_doctest.sh).

    python3 run_docs.py ROOT BUILD TMP [DOC...]

Each document gets its own scratch folder under TMP; its blocks run there in
document order, so a block sees the files of the blocks before it. The
folder links build/ (the real build folder: build/clc-pack, build/include,
build/libclcpack.a), kernels/ and examples/ of the repository, and clc-pack
is first on PATH. Annotations (tests/doctest/blocks.py) make a block a file
(written, not run), a skip (with its reason), a block that runs only where
the commands or files it needs are, a C block compiled and run as C and as
C++, or an expected output of the block run before it. Prints one line per
failure naming DOC:LINE, one count line per document, then "checks: P
passed, F failed, S skipped".
"""
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blocks as B  # noqa: E402

BLOCK_SECONDS = int(os.environ.get("DOCTEST_BLOCK_SECONDS", "120"))  # the whole doc-test aims at ~3 min


def default_docs(root):
    docs = ["README.md"]
    for d in sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True)):
        rel = os.path.relpath(d, root)
        # bench/ and results/ are measurements, not instructions to a user.
        if not rel.startswith(("docs/bench/", "docs/results/")):
            docs.append(rel)
    return docs + ["man/clc-pack.1", "man/clcpack.3"]


def tail(text, n=25):
    lines = text.rstrip("\n").splitlines()
    return "\n".join("    " + l for l in lines[-n:])


class DocRun:
    """One document's blocks in its scratch folder, and their counts."""

    def __init__(self, ctx, doc):
        self.ctx, self.doc = ctx, doc
        self.dir = os.path.join(ctx.tmp, doc.replace("/", "_"))
        self.ran = self.files = self.skipped = self.failed = 0
        self.last = None          # (ok, output) of the block run just before
        self.nblock = 0

    def setup(self):
        os.makedirs(self.dir, exist_ok=True)
        os.symlink(self.ctx.build, os.path.join(self.dir, "build"))
        # What a block run "in the repository" reads: the kernels and
        # examples, and what `make windows` builds from (it writes
        # build-win/ in the scratch folder, not in the repository).
        for name in ("kernels", "examples", "Makefile", "scripts", "loader"):
            os.symlink(os.path.join(self.ctx.root, name), os.path.join(self.dir, name))

    def fail(self, block, what, output=""):
        self.failed += 1
        print(f"FAIL: {block.doc}:{block.line}: {what}" + (":\n" + tail(output) if output else ""))

    def skip(self, block, reason):
        self.skipped += 1
        print(f"skipped: {block.doc}:{block.line}: {reason}")

    def sh(self, script, timeout=BLOCK_SECONDS):
        try:
            p = subprocess.run(["/bin/sh", "-e", "-c", script], cwd=self.dir, env=self.ctx.env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=timeout, errors="replace")
            return p.returncode, p.stdout
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            return -1, out + f"\n(killed after {timeout} s)"

    def run_sh(self, block):
        rc, out = self.sh(B.shell_script(block))
        return rc == 0, out, f"a sh block failed (exit {rc})"

    # How a C block is compiled: as C, and with 'also c++' strictly as C
    # and as C++ (the form a header's users of both languages copy).
    COMPILERS = {"c": ("C", "c", "cc -std=c11 -Wall -Werror"),
                 "c-strict": ("C", "c", "cc -std=c11 -Wall -Wextra -pedantic -Werror"),
                 "c++": ("C++", "cpp", "c++ -std=c++17 -Wall -Wextra -pedantic -Werror")}

    def run_c(self, block, lang="c"):
        name, ext, compiler = self.COMPILERS[lang]
        self.nblock += 1
        src = f".doctest_{self.nblock}.{ext}"
        with open(os.path.join(self.dir, src), "w") as f:
            f.write(block.text)
        exe = f"./.doctest_{self.nblock}"
        rc, out = self.sh(f"{compiler} -Ibuild/include -o {exe} {src} "
                          f"build/libclcpack.a {self.ctx.libs}")
        if rc != 0:
            return False, out, f"a C block does not compile as {name} ({compiler})"
        rc, out = self.sh(exe)
        return rc == 0, out, f"a C block's program failed as {name} (exit {rc})"

    def run_c_and_cxx(self, block):
        """A C block that must also be C++: each language is one check."""
        if block.kind != "c":
            self.fail(block, "'also c++' on a block that is not C")
            return
        for lang in ("c-strict", "c++"):
            if lang == "c++" and not shutil.which("c++"):
                self.skip(block, "no C++ compiler (c++): the block is not compiled as C++")
                continue
            ok, out, what = self.run_c(block, lang)
            self.last = (ok, out)
            if ok:
                self.ran += 1
            else:
                self.fail(block, what, out)
                return

    def write_file(self, block, path):
        full = os.path.normpath(os.path.join(self.dir, path))
        if not path or not full.startswith(self.dir + os.sep):
            self.fail(block, f"'file {path}' names no path inside the scratch folder")
            return
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(block.text)
        # Written as a user's editor writes it: not executable. A doc that
        # runs the file as ./name shows the `chmod +x name` a user types.
        self.files += 1

    def check_output(self, block):
        if self.last is None or not self.last[0]:
            self.skip(block, "expected output of a block that did not run")
            return
        out = self.last[1].splitlines()
        pos = 0
        for want in (l.rstrip() for l in block.text.splitlines()):
            if not want.strip() or want.strip() == "...":
                continue
            while pos < len(out) and want.strip() not in out[pos]:
                pos += 1
            if pos == len(out):
                self.fail(block, f"the output lacks '{want.strip()}' (in order)", self.last[1])
                return
            pos += 1
        self.ran += 1

    def one(self, block):
        note = block.note
        if note.startswith("skip"):
            reason = note[len("skip"):].lstrip(":").strip()
            if not reason:
                self.fail(block, "'doctest: skip' without a reason")
            else:
                self.skip(block, reason)
            return
        if note.startswith("file"):
            self.write_file(block, note[len("file"):].strip())
            return
        if note == "output":
            self.check_output(block)
            return
        if note == "also c++":
            self.run_c_and_cxx(block)
            return
        if note.startswith("needs"):
            missing = self.missing(note[len("needs"):].split())
            if missing is None:
                self.fail(block, "'doctest: needs' names nothing")
                return
            if missing:
                self.skip(block, "needs " + ", ".join(missing) + ", not on this machine")
                return
            note = ""         # all there: run as any block
        if note:
            self.fail(block, f"unknown doctest annotation '{note}'")
            return
        if block.kind not in ("sh", "c"):
            return            # text, make, cmake...: shown, not run
        ok, out, what = (self.run_sh if block.kind == "sh" else self.run_c)(block)
        self.last = (ok, out)
        if ok:
            self.ran += 1
        else:
            self.fail(block, what, out)

    @staticmethod
    def missing(needs):
        """Of a 'needs' annotation's words (commands on PATH, or absolute
        paths), those not here; None when it names nothing."""
        if not needs:
            return None
        return [n for n in needs
                if not (os.path.exists(n) if n.startswith("/") else shutil.which(n))]

    def run(self):
        self.setup()
        for block in B.read_blocks(os.path.join(self.ctx.root, self.doc), self.doc):
            self.one(block)
        print(f"{self.doc}: {self.ran} blocks run, {self.files} files written, "
              f"{self.skipped} skipped, {self.failed} failed")


class Context:
    def __init__(self, root, build, tmp):
        self.root, self.build, self.tmp = root, build, tmp
        bindir = os.path.join(tmp, "bin")
        os.makedirs(bindir, exist_ok=True)
        os.symlink(os.path.join(build, "clc-pack"), os.path.join(bindir, "clc-pack"))
        env = dict(os.environ)
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
        # clc-pack's and the library's caches start empty and stay out of
        # the user's; PoCL keeps its own (rebuilding it would only be slow).
        home = env.get("HOME", "/tmp")
        env.setdefault("POCL_CACHE_DIR", os.path.join(
            env.get("XDG_CACHE_HOME", os.path.join(home, ".cache")), "pocl", "kcache"))
        env["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
        env.pop("CLCPACK_CACHE_DIR", None)
        env.pop("MAKEFLAGS", None)
        # A block that runs `make test` must not run the doc-test again.
        env["CLCPACK_IN_DOCTEST"] = "1"
        p = subprocess.run(["make", "-s", "--no-print-directory", "-C", root, "print-libs"],
                           stdout=subprocess.PIPE, text=True)
        self.libs = p.stdout.strip() or "-lOpenCL -lz -lpthread -lm"
        self.env = self.staged(env)

    def staged(self, env):
        """The build installed under TMP/prefix, found as an installed
        clcpack is: pkg-config, CMake's find_package, the loader."""
        prefix = os.path.join(self.tmp, "prefix")
        p = subprocess.run(["make", "-s", "--no-print-directory", "-C", self.root,
                            "B=" + self.build, "PREFIX=" + prefix, "install"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            print("note: make install into a scratch prefix failed; blocks using "
                  "pkg-config or find_package(clcpack) will fail:\n" + tail(p.stdout))
        lib = os.path.join(prefix, "lib")
        for var, value in (("PKG_CONFIG_PATH", os.path.join(lib, "pkgconfig")),
                           ("CMAKE_PREFIX_PATH", prefix), ("LD_LIBRARY_PATH", lib)):
            env[var] = value + (os.pathsep + env[var] if env.get(var) else "")
        env["PATH"] = os.path.join(prefix, "bin") + os.pathsep + env["PATH"]
        return env


def main(argv):
    root, build, tmp = (os.path.abspath(a) for a in argv[1:4])
    docs = [os.path.relpath(os.path.abspath(d), root) if os.path.exists(d) else d
            for d in argv[4:]] or default_docs(root)
    ctx = Context(root, build, tmp)
    passed = failed = skipped = ran = files = 0
    for doc in docs:
        if not os.path.isfile(os.path.join(root, doc)):
            print(f"FAIL: {doc}: no such document")
            failed += 1
            continue
        r = DocRun(ctx, doc)
        r.run()
        passed += r.ran + r.files
        ran += r.ran
        files += r.files
        failed += r.failed
        skipped += r.skipped
    print(f"doc blocks: {ran} executed, {files} files written, {skipped} skipped "
          f"(each with its reason), {failed} failed, in {len(docs)} documents")
    print(f"checks: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
