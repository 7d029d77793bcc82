#!/usr/bin/env python3
"""Fails when a C++ file has a `using namespace` directive at namespace scope.

Usage: using_namespace.py DIR...

The libraries and the tests are unity-built (CMakeLists.txt ys_unity): several files share one
translation unit, and a using-directive at namespace scope reaches every file after it in the
batch. A name the directive brings in can then lose, silently, to a neighbour's file-local name
of the same spelling (or win over it), so a unit can compile against another unit's constant.
Declare the code inside the namespace whose names it uses instead (namespace ys::checks::cstates
{ ... }), or put the directive inside a function. The user-defined-literal namespaces of the
standard library (std::chrono_literals and the like) are allowed: they declare only operators
that no project file defines.

Namespace scope is recognised by the house style (.clang-format): namespace bodies are not
indented, so a directive that starts its line is at namespace scope, and one inside a function or
class is indented.
"""
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from cpp_files import cpp_files, run  # noqa: E402

DIRECTIVE = re.compile(r'^using\s+namespace\s+([\w:]+)\s*;')
ALLOWED = re.compile(r'^(::)?std::(\w+::)*\w*literals$')


def find(roots):
    bad = []
    for path, lines in cpp_files(roots):
        for number, line in enumerate(lines, 1):
            m = DIRECTIVE.match(line)
            if m and not ALLOWED.match(m.group(1)):
                bad.append(f'{path}:{number}: using namespace {m.group(1)} at namespace scope '
                           '(a unity batch carries it into the files after this one)')
    return bad, ('namespace-scope using-directive(s); declare the code inside that namespace '
                 'instead (tests/lint/using_namespace.py)')


if __name__ == '__main__':
    sys.exit(run(__doc__, sys.argv, find))
