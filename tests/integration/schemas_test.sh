#!/usr/bin/env bash
# The committed schemas/*.schema.json are what the field lists generate (docs/schemas.md): the
# generator, yardstick_schemas beside the binary, writes every document's schema into a scratch
# folder, which must equal schemas/ file for file; each is a valid JSON Schema (draft 2020-12).
# The build writes the same files into <build>/schemas/.
set -uo pipefail
bin=$1 src=$2
source "$src/tests/integration/lib.sh"  # $tmp, its own HOME, XDG_DATA_HOME and working directory
gen=$(dirname "$bin")/yardstick_schemas

expect_rc 0 "the generator writes every schema" -- "$gen" --out "$tmp/schemas"
if diff -ru "$src/schemas" "$tmp/schemas" >"$tmp/diff"; then
  passes=$((passes + 1))
else
  echo "FAIL: schemas/ differs from what the field lists generate:"
  head -200 "$tmp/diff"
  echo "If the change is intended, refresh the committed schemas with: make schemas"
  echo "  (or: $gen --out $src/schemas, after removing a schema whose document is gone)"
  fails=$((fails + 1))
fi
expect_rc 0 "every schema is a valid draft 2020-12 schema" -- /usr/bin/python3 -c '
import json, sys, jsonschema
for path in sys.argv[1:]:
    jsonschema.Draft202012Validator.check_schema(json.load(open(path)))
' "$tmp"/schemas/*.schema.json

# The generator's own errors: an unknown document, no argument.
expect_rc 2 "unknown document" -- "$gen" no_such_document
expect_in "$tmp/err" 'no document named "no_such_document"' "unknown document named"
expect_rc 2 "no argument" -- "$gen"
expect_rc 0 "one schema on stdout" -- "$gen" run
if cmp -s "$tmp/out" "$tmp/schemas/run.schema.json"; then passes=$((passes + 1)); else
  echo "FAIL: 'yardstick_schemas run' differs from --out's run.schema.json"; fails=$((fails + 1)); fi
finish
