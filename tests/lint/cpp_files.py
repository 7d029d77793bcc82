"""What the line-based lints share: the C++ files under some folders, and the report."""
import os
import sys


def cpp_files(roots):
    """(path, lines) of every .cc and .h under the roots, in a stable order."""
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(('.cc', '.h')):
                    path = os.path.join(folder, name)
                    with open(path, encoding='utf-8', errors='replace') as f:
                        yield path, f.readlines()


def run(doc, argv, find):
    """Prints what `find(roots)` returns (a list of problems, then one summary line or None);
    exit status 1 when there are problems, 2 without a folder to read."""
    if len(argv) < 2:
        print(doc.strip().split('\n')[2], file=sys.stderr)
        return 2
    bad, summary = find(argv[1:])
    for line in bad:
        print(line)
    if bad:
        print(f'{len(bad)} {summary}')
        return 1
    return 0
