#!/usr/bin/env python3
"""Every source file of the unit folders has a test of its name, or an allow-list entry.

A source src/<folder>/<path>/<name>.cc (folder: bench, checks, diagnose, validate, report,
workloads, predict, fleet, formats, burnin, burnin_report) is tested by a file under tests/unit/<folder>/ whose
name holds <name> as whole words (<name>_test.cc, <aspect>_<name>_test.cc, <name>_<aspect>_test.cc),
or by tests/unit/<folder>/<...>/<dir>_test.cc for a folder <dir> above it; a helper in an
internal/ folder by the tests of its area (tests/unit/<folder>/<area>/, <area>_*_test.cc, or a
test of the folder that names an id of the area, "<area>.").
A file tested another
way is listed in test_mirror_allow.txt, one line each:

    src/<path>.cc | tests/<the test that exercises it> | why it has no test of its own

and the lint holds the entry to it: the source and the named test exist, the named test mentions
the source's header, its stem or its registered id, and the reason is a sentence. An entry whose
source gained a test of its name, or was removed, is stale and fails too, so the list only shrinks
honestly.

    test_mirror.py ROOT         exits 1 naming each untested source and each bad entry
    test_mirror.py --self-test  plants an untested file, a stale and a false entry
"""
import os
import re
import sys
import tempfile

FOLDERS = ("bench", "checks", "diagnose", "validate", "report", "workloads", "predict", "fleet",
           "formats", "burnin", "burnin_report")
ALLOW = os.path.join("tests", "lint", "test_mirror_allow.txt")


def tests_under(root, folder):
    out = []
    for d, _, files in os.walk(os.path.join(root, "tests", "unit", folder)):
        out += [os.path.join(d, f) for f in files if f.endswith("_test.cc")]
    return out


def mirrored(root, rel, tests):
    """True when src/<rel> has a test of its name (see the module's comment)."""
    stem = os.path.splitext(os.path.basename(rel))[0]
    parents = rel.split("/")[1:-1]
    if "internal" in parents:  # a helper of its area: tested through the area's units
        area = parents[:parents.index("internal")]
        area_tests = os.path.join(root, "tests", "unit", rel.split("/")[0], *area)
        if area and (os.path.isdir(area_tests) or
                     any(os.path.basename(t).startswith(area[-1] + "_") or
                         f'"{area[-1]}.' in open(t, encoding="utf-8", errors="replace").read()
                         for t in tests)):
            return True
    for t in tests:
        words = "_" + os.path.basename(t)[:-len("_test.cc")] + "_"
        if "_" + stem + "_" in words:
            return True
        if os.path.basename(t)[:-len("_test.cc")] in parents:
            return True
    return False


def mentions(root, test, rel):
    """The test names the source: its header, its stem, or an id the source registers."""
    try:
        body = open(os.path.join(root, test), encoding="utf-8", errors="replace").read()
    except OSError:
        return False
    src = open(os.path.join(root, "src", rel), encoding="utf-8", errors="replace").read()
    header = os.path.splitext(rel)[0] + ".h"
    stem = os.path.splitext(os.path.basename(rel))[0]
    ids = re.findall(r'(?:\.id|\.name)\s*=\s*"([\w.\-]+)"|YS_[A-Z_]+\(\s*"([\w.\-]+)"', src)
    # The functions and types it defines at namespace scope (a line that starts with the type).
    defined = re.findall(r"^(?:[\w:<>,]+[ *&]+)+(?:\w+::)*([A-Z]\w{3,})\(", src, re.M)
    defined += re.findall(r"^(?:struct|class) ([A-Z]\w{3,})\b", src, re.M)
    camel = "".join(w[:1].upper() + w[1:] for w in stem.split("_"))  # nemo2_log: Nemo2Log
    ids = [a or b for a, b in ids]
    tails = ['"' + i.split(".", 1)[1] + '"' for i in ids if "." in i]  # proxy.x: "x" in a table
    names = [header, stem] + ids + tails + defined
    return camel in body or any(n and re.search(r"(?<![\w.])" + re.escape(n), body) for n in names)


def read_allow(root):
    entries, problems = {}, []
    path = os.path.join(root, ALLOW)
    if not os.path.exists(path):
        return entries, problems
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 3 or not all(parts):
            problems.append(f"{ALLOW}:{n}: expected 'src/PATH | tests/TEST | reason', found {line!r}")
            continue
        entries[parts[0]] = (n, parts[1], parts[2])
    return entries, problems


def check(root):
    problems = []
    entries, problems = read_allow(root)
    seen = set()
    for folder in FOLDERS:
        tests = tests_under(root, folder)
        for d, _, files in os.walk(os.path.join(root, "src", folder)):
            for f in sorted(files):
                if not f.endswith(".cc"):
                    continue
                rel = os.path.relpath(os.path.join(d, f), os.path.join(root, "src"))
                key = "src/" + rel
                has_test = mirrored(root, rel, tests)
                if key in entries:
                    seen.add(key)
                    n, test, reason = entries[key]
                    where = f"{ALLOW}:{n}: {key}"
                    if has_test:
                        problems.append(f"{where}: has a test of its name now; drop the entry")
                    elif not os.path.exists(os.path.join(root, test)):
                        problems.append(f"{where}: the named test {test} does not exist")
                    elif not mentions(root, test, rel):
                        problems.append(f"{where}: {test} names neither its header, its name "
                                        "nor its id")
                    elif len(reason.split()) < 4:
                        problems.append(f"{where}: the reason is not a sentence: {reason!r}")
                elif not has_test:
                    problems.append(f"{key}: no tests/unit/{folder}/**/*{os.path.splitext(f)[0]}"
                                    f"*_test.cc and no entry in {ALLOW}")
    for key, (n, _, _) in sorted(entries.items()):
        if key not in seen:
            problems.append(f"{ALLOW}:{n}: {key}: no such source in the unit folders")
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        def put(p, text=""):
            os.makedirs(os.path.dirname(os.path.join(root, p)), exist_ok=True)
            open(os.path.join(root, p), "w").write(text)
        put("src/bench/a.cc"); put("tests/unit/bench/a_test.cc")             # mirrored
        put("src/bench/coll/b.cc"); put("tests/unit/bench/coll_b_cases_test.cc")  # a word of it
        put("src/bench/c.cc")                                                  # untested
        put("src/bench/d.cc", 'YS_BENCH("x.d_id")')
        put("tests/unit/bench/other_test.cc", "runs x.d_id")
        put("src/bench/e.cc"); put("tests/unit/bench/e_test.cc")
        put(ALLOW, "src/bench/d.cc | tests/unit/bench/other_test.cc | run through the registry here\n"
                   "src/bench/e.cc | tests/unit/bench/other_test.cc | it has a test of its own\n"
                   "src/bench/gone.cc | tests/unit/bench/other_test.cc | a removed source file\n")
        got = sorted(p.split(":")[0] + ":" + p.split(": ")[1] if p.startswith("tests/") else
                     p.split(":")[0] for p in check(root))
        want = sorted(["src/bench/c.cc", f"{ALLOW}:src/bench/e.cc", f"{ALLOW}:src/bench/gone.cc"])
        if got != want:
            print("self-test failed:", check(root))
            return 1
    print("self-test: the untested file, the stale and the dangling entry found; the rest pass")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    problems = check(os.path.realpath(sys.argv[1]))
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s): add the test of the file's name, or an entry with the "
              "test that exercises it and why")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
