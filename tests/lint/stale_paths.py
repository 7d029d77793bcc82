#!/usr/bin/env python3
"""Comments that cite a path which no longer exists.

A comment that names a file (`predict/step_flops.cc`, `tests/unit/testing/check_test_util.h`,
`scripts/fuzz.sh`) sends the reader there; after a move it sends them nowhere. Every path-like
token in a comment (a slash and a known extension, or a top-level folder of the project followed
by a slash) must name a file or folder, looked up from the repository root, from src/, tests/,
tests/unit/ and from the citing file's own folder. A token with a placeholder (`*`, `<`, `N`,
`...`, `$`) or a build output (build/, Testing/) is not a citation and is skipped.

    stale_paths.py ROOT            exits 1 naming each stale citation (file:line: path)
    stale_paths.py --self-test     plants a stale and a live citation and expects one finding
"""
import os
import re
import sys
import tempfile

EXT = r"(?:cc|h|cpp|sh|py|md|json|toml|txt|cmake|supp|yaml|yml|csv|xml|html|js|css)"
PATH = re.compile(r"(?<![\w./$<{*-])((?:[\w.+-]+/)+[\w.+-]+\." + EXT + r")(?![\w*<>{$])")
SOURCES = ("src", "tests", "scripts", "bench", "cmake")
SUFFIXES = {".cc": "//", ".h": "//", ".sh": "#", ".py": "#", ".cmake": "#"}
NAMES = {"CMakeLists.txt": "#", "Makefile": "#"}
SKIP_DIRS = {"fixtures", "corpus", "crashes", "__pycache__"}
NOT_CITATIONS = (".yardstick/", "build/", "build-", "Testing/", "/tmp/", "/proc/", "/sys/", "/dev/", "/etc/",
                 "/usr/", "/var/", "/run/", "http", "github.com", "~/")


def comment_of(line, marker):
    """The comment part of a line (a whole-line comment or a trailing one), or None."""
    stripped = line.lstrip()
    if stripped.startswith(marker):
        return stripped[len(marker):]
    if marker == "//":
        i = line.find(" // ")
        return line[i + 4:] if i >= 0 and line[:i].count('"') % 2 == 0 else None
    i = line.find(" # ")
    return line[i + 3:] if i >= 0 and line[:i].count('"') % 2 == 0 and line[:i].count("'") % 2 == 0 else None


def exists(root, citing_dir, path):
    bases = [root, os.path.join(root, "src"), os.path.join(root, "tests"),
             os.path.join(root, "tests", "unit"), citing_dir]
    return any(os.path.exists(os.path.join(b, path)) for b in bases)


# A path in another project's tree: the comment names that project within two lines.
ELSEWHERE = re.compile(r"github\.com|repository|\b(NVIDIA|pytorch|vllm-project|sgl-project)/\w|"
                       r"DCGM|dgxc-benchmarking")
# A placeholder component (DIR/, cmd_NAME.cc, SCHEMA.schema.json): an example, not a citation.
PLACEHOLDER = re.compile(r"(^|[/_.])[A-Z]{2,}([/_.]|$)")


def stale_in(root, file, marker):
    found = []
    citing_dir = os.path.dirname(file)
    with open(file, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        comment = comment_of(line, marker)
        if not comment:
            continue
        near = "\n".join(lines[max(0, n - 3):n + 2])
        for m in PATH.finditer(comment):
            path = m.group(1).rstrip(".")
            start = m.start(1)
            before = comment[max(0, start - 12):start]
            if any(s in path or s in before for s in NOT_CITATIONS) or "..." in path:
                continue
            if comment[:start].count('"') % 2 == 1 or PLACEHOLDER.search(path):
                continue
            if not exists(root, citing_dir, path):
                if ELSEWHERE.search(near.replace(path, "")):
                    continue
                found.append(f"{os.path.relpath(file, root)}:{n}: {path}")
    return found


def scan(root):
    found = []
    for name, marker in NAMES.items():
        if os.path.exists(os.path.join(root, name)):
            found += stale_in(root, os.path.join(root, name), marker)
    for top in SOURCES:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
            for name in sorted(files):
                marker = SUFFIXES.get(os.path.splitext(name)[1]) or NAMES.get(name)
                if marker:
                    found += stale_in(root, os.path.join(d, name), marker)
    return found


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src", "core"))
        open(os.path.join(root, "src", "core", "text.h"), "w").close()
        with open(os.path.join(root, "src", "core", "a.cc"), "w") as f:
            f.write("// see core/text.h and src/core/text.h\n"
                    "// moved: validate/gone.cc\n"
                    'auto s = "not/a_comment.cc";\n'
                    "// a pattern, not a file: tests/unit/*/x_test.cc, build/yardstick.json\n")
        found = scan(root)
        if found != ["src/core/a.cc:2: validate/gone.cc"]:
            print("self-test failed:", found)
            return 1
    print("self-test: the planted stale citation found, the live ones and non-citations not")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = os.path.realpath(sys.argv[1])
    found = scan(root)
    for f in found:
        print(f"{f}: cited in a comment, but no such file or folder")
    if found:
        print(f"{len(found)} stale citation(s): fix the path or drop it")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
