#!/usr/bin/env bash
# `make install` into a scratch DESTDIR: the binary, the manual page and the bash and zsh
# completions generated from the command line, and the data folders; the installed binary finds
# its data without YARDSTICK_DATA; the completion parses and completes; the page formats cleanly.
set -uo pipefail
bin=$1 src=$2
. "$src/tests/integration/lib.sh"
dest=$tmp/dest prefix=/opt/ys
expect_rc 0 "make install-files" -- make -C "$src" --no-print-directory install-files \
  BUILD_DIR="$(dirname "$bin")" DESTDIR="$dest" PREFIX="$prefix"
root=$dest$prefix
for f in bin/yardstick share/man/man1/yardstick.1 share/bash-completion/completions/yardstick \
  share/zsh/site-functions/_yardstick share/yardstick/specs/h100.toml share/yardstick/suites/h100.toml \
  share/yardstick/models/llama3.1_8b.toml share/yardstick/calibration/step_model.toml \
  share/yardstick/baselines share/yardstick/schemas/run.schema.json; do
  [ -e "$root/$f" ] && passes=$((passes + 1)) || { echo "FAIL: not installed: $f"; fails=$((fails + 1)); }
done
[ -x "$root/bin/yardstick" ] && passes=$((passes + 1)) || { echo "FAIL: bin/yardstick not executable"; fails=$((fails + 1)); }

# The installed binary reads its own data folder (PREFIX/share/yardstick), not the source tree:
# a suite only the installed copy has is found.
cp "$root/share/yardstick/suites/h100.toml" "$root/share/yardstick/suites/installedonly.toml"
expect_rc 2 "validate with a suite only the installed data has" -- env -u YARDSTICK_DATA "$root/bin/yardstick" validate --suite installedonly --runs "$tmp/none"
expect_not_in "$tmp/err" "no suite file" "the installed binary reads PREFIX/share/yardstick"
expect_rc 2 "YARDSTICK_DATA overrides it" -- env YARDSTICK_DATA="$src" "$root/bin/yardstick" validate --suite installedonly --runs "$tmp/none"
expect_in "$tmp/err" "no suite file $src/suites/installedonly.toml" "YARDSTICK_DATA is read first"

# bash: the script parses, and completes commands and a command's options.
comp=$root/share/bash-completion/completions/yardstick
expect_rc 0 "bash -n completion" -- bash -n "$comp"
bash -c '. "$1"; COMP_WORDS=(yardstick pref); COMP_CWORD=1; _yardstick; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" >"$tmp/c1"
expect_in "$tmp/c1" "preflight" "bash completes a command"
bash -c '. "$1"; COMP_WORDS=(yardstick preflight --nvml); COMP_CWORD=2; _yardstick; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" >"$tmp/c2"
expect_in "$tmp/c2" "--nvml-state" "bash completes a command's option"
bash -c '. "$1"; COMP_WORDS=(yardstick burnin --dur); COMP_CWORD=2; _yardstick; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" >"$tmp/c3"
expect_in "$tmp/c3" "--duration" "bash completes burnin's options"
# Every command of the binary is in the completion and the page.
"$bin" --help >"$tmp/help"
for cmd in $(awk '/^SUBCOMMANDS:/ {on=1; next} on && /^  [a-z]/ {print $1}' "$tmp/help"); do
  grep -q "    $cmd) " "$comp" && passes=$((passes + 1)) || { echo "FAIL: $cmd not in the bash completion"; fails=$((fails + 1)); }
  grep -q "^\.SS $cmd\$" "$root/share/man/man1/yardstick.1" && passes=$((passes + 1)) || { echo "FAIL: $cmd not in the man page"; fails=$((fails + 1)); }
done
if command -v zsh >/dev/null; then
  expect_rc 0 "zsh -n completion" -- zsh -n "$root/share/zsh/site-functions/_yardstick"
fi
expect_in "$root/share/zsh/site-functions/_yardstick" "#compdef yardstick" "zsh completion header"

# The man page: groff formats it without a warning.
page=$root/share/man/man1/yardstick.1
if command -v groff >/dev/null; then
  groff -man -Tutf8 -ww -z "$page" 2>"$tmp/groff.err"
  [ ! -s "$tmp/groff.err" ] && passes=$((passes + 1)) || { echo "FAIL: groff warnings:"; head "$tmp/groff.err"; fails=$((fails + 1)); }
  groff -man -Tascii "$page" 2>/dev/null | col -b >"$tmp/page.txt"
  expect_in "$tmp/page.txt" "YARDSTICK_DATA" "the page names YARDSTICK_DATA"
  expect_in "$tmp/page.txt" "--nvml-state" "the page lists options"
fi
finish
