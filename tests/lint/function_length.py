#!/usr/bin/env python3
"""Fails when a function in the given source folder is longer than the limit.

Usage: function_length.py [--limit N] [--allow FILE] DIR...

A function's length is the number of lines from the line of its body's opening brace to the line
of its closing brace, both included (a one-line body counts 1). Lambdas and local classes count
towards the function that holds them. The scan strips comments, string and character literals
and preprocessor lines, then follows braces: a brace at namespace or class scope whose
preceding text ends a parameter list (a `)` possibly followed by qualifiers, a trailing return
type or a constructor's initialiser list) opens a function body.

--allow names functions that are known to be too long, one `path:line name` a line (the path
relative to the repository, the line of the opening brace not needed: `path name` is enough).
An allowed function that is no longer too long is an error too, so that the list only shrinks.
"""
import argparse
import os
import re
import sys

STRING = re.compile(r'R"([^(\s]*)\((?:.|\n)*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
COMMENT = re.compile(r'//[^\n]*|/\*(?:.|\n)*?\*/')


def strip(text):
    """Comments, literals and preprocessor lines blanked, newlines kept."""
    def blank(m):
        return re.sub(r'[^\n]', ' ', m.group(0))
    out = []
    i = 0
    pattern = re.compile(COMMENT.pattern + '|' + STRING.pattern)
    text = pattern.sub(blank, text)
    lines = text.split('\n')
    for line in lines:
        out.append(' ' * len(line) if line.lstrip().startswith('#') else line)
    return '\n'.join(out)


def classify(header):
    """The kind of scope a `{` preceded by `header` (text since the last ; { or }) opens."""
    h = ' '.join(header.split())
    if re.search(r'\bnamespace\b', h) or re.search(r'\bextern\s*$', h):
        return 'namespace'
    if re.match(r'^(template\s*<.*>\s*)?(class|struct|union)\b[^()]*$', h):
        return 'class'
    if re.search(r'\benum\b', h):
        return 'other'
    # A function: a parameter list closes, then qualifiers, a trailing return type or an
    # initialiser list (member(value), ...).
    if ')' in h and '=' not in h.split(')')[-1]:
        if re.search(r'\)\s*(const|override|final|noexcept|volatile|&|&&|\s)*(->\s*[^{]+)?$', h):
            return 'function'
        if re.search(r'\)\s*:\s*.*\)$', h) or re.search(r'\)\s*:.*\}?$', h):
            return 'function'
    return 'other'


def functions(path):
    """(name, first line, last line) of every function body in the file."""
    with open(path, encoding='utf-8', errors='replace') as f:
        text = strip(f.read())
    stack = []  # (kind, line, header)
    found = []
    start = 0
    line = 1
    for i, c in enumerate(text):
        if c == '\n':
            line += 1
        elif c == '{':
            header = text[start:i]
            in_code = any(k in ('function', 'other') for k, _, _ in stack)
            kind = 'nested' if in_code else classify(header)
            stack.append((kind, line, header))
            start = i + 1
        elif c == '}':
            if stack:
                kind, first, header = stack.pop()
                if kind == 'function':
                    m = re.search(r'([~\w:]+(?:operator\s*\S+)?)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)'
                                  r'[^()]*$', ' '.join(header.split()))
                    name = m.group(1) if m else ' '.join(header.split())[-40:]
                    found.append((name, first, line))
            start = i + 1
        elif c == ';':
            start = i + 1
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--limit', type=int, default=80)
    ap.add_argument('--allow')
    ap.add_argument('--root', default='.')
    ap.add_argument('dirs', nargs='+')
    a = ap.parse_args()
    allowed = set()
    if a.allow:
        with open(a.allow) as f:
            for raw in f:
                raw = raw.split('#', 1)[0].strip()
                if raw:
                    allowed.add(tuple(raw.split()[:2]))
    long_ones = set()
    bad = 0
    count = 0
    for d in a.dirs:
        for dirpath, _, names in sorted(os.walk(d)):
            for n in sorted(names):
                if not n.endswith(('.cc', '.h')):
                    continue
                path = os.path.join(dirpath, n)
                rel = os.path.relpath(path, a.root)
                for name, first, last in functions(path):
                    count += 1
                    length = last - first + 1
                    if length <= a.limit:
                        continue
                    long_ones.add((rel, name))
                    if (rel, name) in allowed:
                        continue
                    print(f'{rel}:{first}: {name} is {length} lines (limit {a.limit})')
                    bad += 1
    for rel, name in sorted(allowed - long_ones):
        print(f'{a.allow}: {rel} {name} is no longer over {a.limit} lines (or gone): '
              'remove it from the list')
        bad += 1
    print(f'{count} functions, {bad} problems, {len(allowed & long_ones)} allowed for now')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
