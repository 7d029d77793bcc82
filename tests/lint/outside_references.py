#!/usr/bin/env python3
"""Fails when the project refers to documents that are not part of it, or to a docs/ page or
section that does not exist.

Usage: outside_references.py ROOT
       outside_references.py --self-test

1. No tracked file (sources, goldens, fixtures, fuzz inputs, docs; binary files too) names one of
   the documents in FORBIDDEN: notes that lived beside the project and that users do not have.
   A reference names a public source or a page under docs/ instead.
2. Every `docs/<page>.md` cited in src/, docs/, tests/golden/, README.md and CONTRIBUTING.md
   exists, and every section cited after it (`docs/node-checks.md §isolation`, or a list
   `§rdma, §runtime`) is an anchor of that page (`<a id="isolation"></a>`).

Files are listed with `git ls-files` when ROOT is a git checkout, else by walking ROOT (build
folders left out). This script itself is the one file allowed to spell the forbidden names.
"""
import os
import re
import subprocess
import sys
import tempfile

# Spelled in pieces so that a search of the tree for the names finds only real references.
FORBIDDEN = [
    'DESIGN' + '.md',
    'STYLE' + '.md',
    'linux-node' + '-knobs',
    'gpu-and-fabric' + '-diagnostics',
    'exemplar-and' + '-llmb-run',
    'peers-super' + 'bench',
    'style' + '-anchors',
    '../' + 'shared',
    'shared/' + 'reference',
]
CITING = ('src/', 'docs/', 'tests/golden/', 'README.md', 'CONTRIBUTING.md')
PAGE = re.compile(rb'docs/([A-Za-z0-9_.-]+?)\.md')
SECTION = re.compile(rb'(?:[\s"/]|,\s*)*(?:\xc2\xa7|\\u00a7)([a-z][a-z0-9-]*)')
ANCHOR = re.compile(rb'<a id="([a-z][a-z0-9-]*)"></a>')
SKIP_DIRS = {'.git', 'build', 'build-sanitize'}


def tracked_files(root):
    if os.path.exists(os.path.join(root, '.git')):
        out = subprocess.run(['git', '-C', root, 'ls-files', '-z'], capture_output=True,
                             check=True).stdout
        return [p.decode() for p in out.split(b'\0') if p]
    found = []
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith('build'))
        for n in sorted(names):
            found.append(os.path.relpath(os.path.join(dirpath, n), root))
    return found


def check(root, self_path):
    problems = []
    anchors = {}
    for rel in tracked_files(root):
        path = os.path.join(root, rel)
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        if self_path and os.path.realpath(path) == self_path:
            continue
        with open(path, 'rb') as f:
            data = f.read()
        for name in FORBIDDEN:
            i = data.find(name.encode())
            if i >= 0:
                line = data.count(b'\n', 0, i) + 1
                problems.append(f'{rel}:{line}: refers to {name}, which is not in the repository; '
                                'cite a public source or a page under docs/')
        if not rel.startswith(CITING):
            continue
        for m in PAGE.finditer(data):
            page = 'docs/' + m.group(1).decode() + '.md'
            line = data.count(b'\n', 0, m.start()) + 1
            page_path = os.path.join(root, page)
            if not os.path.isfile(page_path):
                problems.append(f'{rel}:{line}: cites {page}, which does not exist')
                continue
            if page not in anchors:
                with open(page_path, 'rb') as f:
                    anchors[page] = {a.decode() for a in ANCHOR.findall(f.read())}
            pos = m.end()
            while True:
                s = SECTION.match(data, pos)
                if not s:
                    break
                section = s.group(1).decode()
                if section not in anchors[page]:
                    problems.append(f'{rel}:{line}: cites {page} \u00a7{section}, which has no '
                                    f'<a id="{section}"></a>')
                pos = s.end()
    return problems


def self_test():
    """The check must fail on each planted fault and pass on a clean tree."""
    cases = {
        'forbidden name in a comment': {'src/a.cc': '// see ' + FORBIDDEN[2] + '.md \u00a76\n'},
        'forbidden name in binary data': {'tests/fuzz/corpus/x/1': b'\x00\xff' + FORBIDDEN[0].encode()},
        'missing page': {'src/a.cc': '// docs/no-such-page.md\n'},
        'missing section': {'src/a.cc': '// docs/p.md \u00a7one, \u00a7two\n',
                            'docs/p.md': '<a id="one"></a>\n'},
    }
    clean = {'src/a.cc': '// docs/p.md \u00a7one, \u00a7two\n"docs/p.md "\n  "\u00a7two"\n',
             'docs/p.md': '<a id="one"></a>\n<a id="two"></a>\n'}
    failures = 0
    for name, files in list(cases.items()) + [('clean tree', clean)]:
        with tempfile.TemporaryDirectory() as d:
            for rel, content in files.items():
                os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
                mode = 'wb' if isinstance(content, bytes) else 'w'
                with open(os.path.join(d, rel), mode) as f:
                    f.write(content)
            problems = check(d, None)
        expect_clean = name == 'clean tree'
        if bool(problems) == expect_clean:
            print(f'self-test "{name}": expected {"no problem" if expect_clean else "a problem"}, '
                  f'got {problems}')
            failures += 1
    print(f'{len(cases) + 1} self-test cases, {failures} failed')
    return 1 if failures else 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    root = sys.argv[1]
    problems = check(root, os.path.realpath(__file__))
    for p in problems:
        print(p)
    print(f'{len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
