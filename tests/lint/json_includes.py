#!/usr/bin/env python3
"""Fails when a header includes nlohmann/json.hpp, or a source file names nlohmann:: without it.

Usage: json_includes.py DIR...

The full JSON header costs about a second of every file that includes it, so headers declare
JSON parameters and results with nlohmann/json_fwd.hpp only (a struct that holds a JSON value
holds a core/json_box.h JsonBox), and each .cc that builds, reads or dumps JSON includes
nlohmann/json.hpp itself. The unity batches and the precompiled header hide a missing include
(a neighbour's include serves), so this is checked here: a .cc that names `nlohmann::` must
include nlohmann/json.hpp (a file that only moves JSON values around without naming the type
needs it too; `-DYS_UNITY=OFF -DYS_PCH=OFF` finds those).
"""
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from cpp_files import cpp_files, run  # noqa: E402

FULL = re.compile(r'^\s*#\s*include\s*<nlohmann/json\.hpp>')
NAMES = re.compile(r'\bnlohmann::')


def find(roots):
    bad = []
    for path, lines in cpp_files(roots):
        full = [n for n, line in enumerate(lines, 1) if FULL.match(line)]
        if path.endswith('.h'):
            bad += [f'{path}:{n}: a header includes nlohmann/json.hpp; include '
                    'nlohmann/json_fwd.hpp' for n in full]
        elif not full and any(NAMES.search(line) for line in lines):
            bad.append(f'{path}: names nlohmann:: but does not include nlohmann/json.hpp')
    return bad, 'JSON include problem(s) (tests/lint/json_includes.py)'


if __name__ == '__main__':
    sys.exit(run(__doc__, sys.argv, find))
