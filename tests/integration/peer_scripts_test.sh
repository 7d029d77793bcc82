#!/usr/bin/env bash
# The side-by-side scripts against reference tools (bench/coll_vs_imb.sh, bench/gemm_vs_openblas.sh)
# cannot time anything meaningful in a test; what is checked: they parse (bash -n, ShellCheck
# where installed), a missing peer or binary ends them with exit 2 and an install hint, and the
# ratio table of bench/peer_ratio.py calls a difference only when it exceeds the run-to-run spread.
bin=$1 src=$2
. "$src/tests/integration/lib.sh"

for s in coll_vs_imb.sh gemm_vs_openblas.sh; do
  expect_rc 0 "bash -n $s" -- bash -n "$src/bench/$s"
  if command -v shellcheck >/dev/null; then
    expect_rc 0 "shellcheck $s" -- shellcheck "$src/bench/$s"
  fi
done

# peer_ratio.py: one line per round and tool; ratios yardstick / peer per key.
#   Bcast 1M:  1.30 1.36 1.40 1.33 (IQR ~0.05, 0.35 from 1.00)  -> differs
#   Bcast 1K:  0.90 1.10 1.00 1.05 (median 1.02, IQR 0.09)      -> same
#   Reduce 1K: yardstick only                                   -> not printed
cat >"$tmp/ys.txt" <<'EOF'
1 broadcast 1048576 130
2 broadcast 1048576 136
3 broadcast 1048576 140
4 broadcast 1048576 133
1 broadcast 1024 9.0
2 broadcast 1024 11.0
3 broadcast 1024 10.0
4 broadcast 1024 10.5
1 reduce 1024 3
EOF
cat >"$tmp/peer.txt" <<'EOF'
1 broadcast 1048576 100
2 broadcast 1048576 100
3 broadcast 1048576 100
4 broadcast 1048576 100
1 broadcast 1024 10
2 broadcast 1024 10
3 broadcast 1024 10
4 broadcast 1024 10
EOF
expect_rc 0 "peer_ratio.py" -- python3 "$src/bench/peer_ratio.py" "$tmp/ys.txt" "$tmp/peer.txt" \
  --key-columns 2 --labels collective,size --peer-name imb
cp "$tmp/out" "$tmp/table.txt"
expect_in "$tmp/table.txt" "broadcast  1048576      134.5      100.0   1.35  1.30-1.40   1.32-1.37" "1 MiB row"
expect_line() {  # expect_line REGEX DESCRIPTION: a line of the table matches
  if grep -qE -- "$1" "$tmp/table.txt"; then passes=$((passes + 1)); else
    echo "FAIL: $2"; cat "$tmp/table.txt"; fails=$((fails + 1))
  fi
}
expect_line '^ *broadcast +1048576 .* differs$' "a ratio far outside its spread is called a difference"
expect_line '^ *broadcast +1024 .* same$' "a ratio within its spread is not called a difference"
expect_not_in "$tmp/table.txt" "reduce" "a key the peer did not measure is not compared"
expect_in "$tmp/table.txt" "# 1 of 2 differ from 1.00 by more than their spread" "the count of differences"
: >"$tmp/empty.txt"
expect_rc 2 "peer_ratio.py with nothing in common" -- python3 "$src/bench/peer_ratio.py" \
  "$tmp/ys.txt" "$tmp/empty.txt" --key-columns 2 --labels collective,size

# No peer: IMB-MPI1 nowhere (PATH without it, no IMB_MPI1, no IMB_SRC) -> exit 2 and how to get it.
mkdir -p "$tmp/bin"
for tool in mpirun nproc realpath mktemp cut python3 rm; do
  p=$(command -v "$tool") && ln -sf "$p" "$tmp/bin/$tool"
done
expect_rc 2 "coll_vs_imb.sh without IMB" -- env -u IMB_MPI1 -u IMB_SRC PATH="$tmp/bin" \
  /bin/bash "$src/bench/coll_vs_imb.sh" "$bin"
expect_in "$tmp/err" "apt-get install" "coll_vs_imb.sh says how to install what is missing"
expect_rc 2 "coll_vs_imb.sh without a binary" -- bash "$src/bench/coll_vs_imb.sh" "$tmp/no-such-binary"
expect_rc 2 "gemm_vs_openblas.sh without a binary" -- bash "$src/bench/gemm_vs_openblas.sh" 1 "$tmp/no-such-binary"
expect_in "$tmp/err" "build it first" "gemm_vs_openblas.sh names the missing binary"
finish
