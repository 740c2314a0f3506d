"""Compiles and runs every code block of the user guide (docs/guide/*.md), and
runs the Python blocks of README.md, so that the documentation cannot drift
from the library.

A block fenced with ```c is a complete C11 program: it is compiled with
-Wall -Wextra -Wpedantic -Werror against include/ and the built library and
must exit with 0. A block fenced with ```python is a complete script run with
this interpreter (PYTHONPATH = python/, NSCD_LIBRARY = the built library) and
must exit with 0; its asserts are its checks. Guide blocks run in their own
empty directory (they may write files); README blocks run from the source
directory, as a reader would run them. Blocks fenced otherwise (```sh,
```text) are not run.

usage: check_guide.py SOURCE_DIR LIBRARY WORK_DIR"""
import os
import re
import shutil
import subprocess
import sys

FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)


def blocks(path):
    """(language, first line number, code) of every fenced block of a Markdown file."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 2
        yield match.group(1), line, match.group(2)


def run(cmd, cwd, env, what):
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    if done.returncode != 0:
        return f"{what}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return None


def main():
    src, library, work = sys.argv[1:4]
    src, library, work = os.path.abspath(src), os.path.abspath(library), os.path.abspath(work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    libdir = os.path.dirname(library)
    cc = shutil.which(os.environ.get("CC", "cc")) or "cc"
    env = dict(os.environ, PYTHONPATH=os.path.join(src, "python"), NSCD_LIBRARY=library,
               NSCD_SOURCE_DIR=src)
    guide = os.path.join(src, "docs", "guide")
    pages = [os.path.join(guide, name) for name in sorted(os.listdir(guide))
             if name.endswith(".md")]
    todo = [(page, True) for page in pages] + [(os.path.join(src, "README.md"), False)]
    failures, counts = [], {"c": 0, "python": 0}
    for page, is_guide in todo:
        stem = os.path.splitext(os.path.basename(page))[0]
        if not is_guide:
            stem = "README"
        for language, line, code in blocks(page):
            if language not in counts or (not is_guide and language != "python"):
                continue  # the README's C example is compiled by the consumer test
            where = f"{os.path.relpath(page, src)}:{line}"
            directory = os.path.join(work, f"{stem}_{line}")
            os.makedirs(directory)
            if language == "c":
                source = os.path.join(directory, "block.c")
                exe = os.path.join(directory, "block")
                with open(source, "w", encoding="utf-8") as f:
                    f.write(code)
                error = run([cc, "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                             "-I", os.path.join(src, "include"), source, "-o", exe,
                             "-L", libdir, "-lnscd", f"-Wl,-rpath,{libdir}", "-lm"],
                            directory, env, f"{where}: compiling")
                error = error or run([exe], directory, env, f"{where}: running")
            else:
                script = os.path.join(directory, "block.py")
                with open(script, "w", encoding="utf-8") as f:
                    f.write(code)
                error = run([sys.executable, script], directory if is_guide else src, env,
                            f"{where}: running")
            counts[language] += 1
            print(f"{'FAIL' if error else 'ok  '} {where} ({language})")
            if error:
                failures.append(error)
    print(f"guide: {counts['c']} C and {counts['python']} Python blocks, "
          f"{len(failures)} failed")
    for failure in failures:
        print(failure, file=sys.stderr)
    if counts["c"] == 0 or counts["python"] == 0:
        print("FAIL: no C or no Python block found", file=sys.stderr)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
