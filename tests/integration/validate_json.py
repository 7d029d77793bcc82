#!/usr/bin/python3
"""Validates JSON documents against a JSON Schema (draft 2020-12), with Debian's python3-jsonschema.

    validate_json.py SCHEMA DOC.json...     exit 0 when every document is valid, 1 otherwise
"""
import json
import sys

import jsonschema


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for e in errors[:10]:
            print("%s: %s: %s" % (path, "/".join(map(str, e.path)) or "(root)", e.message))
        bad += bool(errors)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
