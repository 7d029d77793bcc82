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
import os
import re
import sys

DIRECTIVE = re.compile(r'^using\s+namespace\s+([\w:]+)\s*;')
ALLOWED = re.compile(r'^(::)?std::(\w+::)*\w*literals$')


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().split('\n')[2], file=sys.stderr)
        return 2
    bad = []
    for root in argv[1:]:
        for folder, _, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith(('.cc', '.h')):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding='utf-8', errors='replace') as f:
                    for number, line in enumerate(f, 1):
                        m = DIRECTIVE.match(line)
                        if m and not ALLOWED.match(m.group(1)):
                            bad.append(f'{path}:{number}: using namespace {m.group(1)} at '
                                       'namespace scope (a unity batch carries it into the '
                                       'files after this one)')
    for line in bad:
        print(line)
    if bad:
        print(f'{len(bad)} namespace-scope using-directive(s); declare the code inside that '
              'namespace instead (tests/lint/using_namespace.py)')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
