#!/usr/bin/env bash
# The test suite leaves the user's home and the source tree as it found them.
#
#   side_effects.sh record  STATE SRC BUILD   before the first test (ctest FIXTURES_SETUP)
#   side_effects.sh compare STATE SRC BUILD   after the last one (FIXTURES_CLEANUP): exit 1 and
#                                             list what appeared, went or changed
#
# What is compared (each line: a path and, where it says so, its type, size and mtime):
#   - $HOME's top level: every entry by name and type; regular files also by size and mtime,
#     except interactive shells' histories (other programs write them while the suite runs);
#   - the entries one level inside ~/.config and ~/.local/share (a tool's new state directory);
#   - everything under ~/.local/share/yardstick (the run history), by size and mtime; and the
#     same under $XDG_DATA_HOME/yardstick when that is set elsewhere;
#   - the source tree: `git status --porcelain --ignored`, each listed path with its size and
#     mtime, without BUILD and any other CMake build tree (a directory holding CMakeCache.txt);
#   - BUILD's top level by name (a test's ./yardstick-runs/ or slurm-N.out would land there),
#     without Testing/ (ctest's own logs, and STATE).
# Caches that other programs fill (~/.cache, ccache) are compared by name only, never inside.
# YS_SIDE_EFFECTS_IGNORE: more top-level home entries to leave out, separated by spaces.
set -uo pipefail
mode=${1:?record or compare} state=${2:?state file} src=${3:?source dir} build=${4:?build dir}
src=$(realpath -- "$src") build=$(realpath -- "$build")
home=${HOME:-}
ignore=" .bash_history .zsh_history .python_history .lesshst .viminfo .wget-hsts .sqlite_history \
.node_repl_history ${YS_SIDE_EFFECTS_IGNORE:-} "

stat_line() {  # PATH: "path type size mtime" (type f, d, l or ?)
  find "$1" -maxdepth 0 -printf '%p %y %s %T@\n' 2>/dev/null || echo "$1 ? - -"
}

snapshot() {
  if [ -n "$home" ] && [ -d "$home" ]; then
    echo "# home $home"
    for e in "$home"/.[!.]* "$home"/..?* "$home"/*; do
      [ -e "$e" ] || [ -L "$e" ] || continue
      name=${e##*/}
      case "$ignore" in *" $name "*) continue ;; esac
      if [ -f "$e" ] && [ ! -L "$e" ]; then stat_line "$e"; else find "$e" -maxdepth 0 -printf '%p %y\n'; fi
    done
    for d in "$home/.config" "$home/.local/share"; do
      [ -d "$d" ] && find "$d" -mindepth 1 -maxdepth 1 -printf '%p %y\n'
    done
    for d in "$home/.local/share/yardstick" "${XDG_DATA_HOME:-$home/.local/share}/yardstick"; do
      [ -d "$d" ] && find "$d" -printf '%p %y %s %T@\n'
    done
  fi
  if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "# source tree $src"
    # Other build trees (another preset's) are written by their own builds, not by this suite.
    local skip=("$build")
    while IFS= read -r cache; do skip+=("$(dirname "$cache")"); done < <(find "$src" -maxdepth 2 -name CMakeCache.txt 2>/dev/null)
    git -C "$src" status --porcelain --ignored --untracked-files=normal 2>/dev/null | while IFS= read -r line; do
      path=${line:3}
      path=${path#\"} path=${path%\"}
      path=${path##* -> }
      full=$(realpath -m -- "$src/$path")
      for s in "${skip[@]}"; do
        case "$full/" in "$s"/*) continue 2 ;; esac
      done
      echo "${line:0:2} $(stat_line "$full")"
    done
  else
    echo "# source tree $src: not a git work tree, not compared"
  fi
  echo "# build tree $build"
  find "$build" -mindepth 1 -maxdepth 1 ! -name Testing -printf '%p %y\n' 2>/dev/null
}

case "$mode" in
  record)
    mkdir -p "$(dirname "$state")" && snapshot | LC_ALL=C sort -u > "$state" || exit 1
    echo "recorded $(grep -vc '^#' "$state") entries of the home, the source tree and the build tree in $state"
    ;;
  compare)
    [ -f "$state" ] || { echo "no snapshot at $state: the record step did not run"; exit 1; }
    after=$(mktemp) || exit 1
    trap 'rm -f "$after"' EXIT
    snapshot | LC_ALL=C sort -u > "$after"
    if diff -q "$state" "$after" >/dev/null; then
      echo "home, source tree and build tree unchanged ($(grep -vc '^#' "$after") entries)"
      exit 0
    fi
    echo "FAIL: the tests changed files outside their own temporary directories:"
    diff "$state" "$after" | sed -n 's/^< /  gone or changed, before: /p; s/^> /  appeared or changed, after: /p'
    exit 1
    ;;
  *)
    echo "side_effects.sh: mode \"$mode\": expected record or compare" >&2
    exit 2
    ;;
esac
