#!/usr/bin/env bash
# tests/side_effects.sh, the suite's before-and-after check of the home and the source tree, can
# fail: on a scratch home and a scratch git tree it passes when nothing changed and names each
# history row, home entry, source file and build-tree run folder that a test left behind.
bin=$1 src=$2
source "$src/tests/integration/lib.sh"
check=$src/tests/side_effects.sh
h=$tmp/fakehome repo=$tmp/repo build=$tmp/repo/build state=$tmp/state
mkdir -p "$h/.local/share/yardstick" "$h/.cache/ccache" "$build/CMakeFiles"
echo old > "$h/.local/share/yardstick/history.db"
git init -q "$repo" && echo x > "$repo/tracked" && echo build/ > "$repo/.gitignore"
git -C "$repo" add . && git -C "$repo" -c user.name=t -c user.email=t@t commit -qm init
touch "$build/CMakeCache.txt"
snap() { HOME=$h XDG_DATA_HOME= bash "$check" "$1" "$state" "$repo" "$build"; }

expect_rc 0 "record" -- snap record
# What other programs do meanwhile is not the suite's doing: a cache, a shell history, the build.
mkdir -p "$build/Testing"
touch "$h/.cache/ccache/obj" "$h/.bash_history" "$build/CMakeFiles/newer.o" "$build/Testing/LastTest.log"
expect_rc 0 "unchanged home and tree" -- snap compare
expect_in "$tmp/out" "unchanged" "says it is unchanged"

sleep 0.01; echo new >> "$h/.local/share/yardstick/history.db"
expect_rc 1 "a history row written" -- snap compare
expect_in "$tmp/out" "$h/.local/share/yardstick/history.db" "names the history"
snap record >/dev/null
mkdir "$h/yardstick-runs" "$build/yardstick-runs"; echo y > "$repo/stray.json"; echo z >> "$repo/tracked"
expect_rc 1 "outputs in the home, the build tree and the source tree" -- snap compare
expect_in "$tmp/out" "$h/yardstick-runs" "names the home entry"
expect_in "$tmp/out" "$build/yardstick-runs" "names the build-tree entry"
expect_in "$tmp/out" "$repo/stray.json" "names the untracked source file"
expect_in "$tmp/out" "$repo/tracked" "names the modified tracked file"
expect_rc 2 "a wrong mode" -- snap compare-all
finish
