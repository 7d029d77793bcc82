#!/usr/bin/env bash
# The side-by-side scripts against reference tools (bench/coll_vs_imb.sh, bench/gemm_vs_openblas.sh)
# cannot time anything meaningful in a test; what is checked: they parse (bash -n, ShellCheck
# where installed), a missing peer or binary ends them with exit 2 and an install hint, and the
# ratio table of bench/peer_ratio.py calls a difference only when 1.00 lies outside the 95%
# confidence interval of the median ratio, and says when there are too few rounds to judge.
bin=$1 src=$2
. "$src/tests/integration/lib.sh"

for s in coll_vs_imb.sh gemm_vs_openblas.sh; do
  expect_rc 0 "bash -n $s" -- bash -n "$src/bench/$s"
  if command -v shellcheck >/dev/null; then
    expect_rc 0 "shellcheck $s" -- shellcheck "$src/bench/$s"
  fi
done

# peer_ratio.py: one line per round and tool; ratios yardstick / peer per key.
#   Bcast 1M:  1.30 1.36 1.40 1.33 1.31 1.38 (all six above 1.00)   -> differs
#   Bcast 1K:  0.90 1.10 1.00 1.05 0.95 1.08 (1.00 inside min-max)  -> same
#   Bcast 32K: 1.10 1.12 1.11 1.13 (four rounds: no 95% interval)   -> too few rounds
#   Reduce 1M: 1.01 1.10 1.02 1.08 1.03 1.06 (all above 1.00, but the median's 0.045 from 1.00
#              is less than the IQR's 0.0525)                        -> within spread
#   Reduce 1K: yardstick only                                        -> not printed
{
  for r in 1 2 3 4 5 6; do
    echo "$r broadcast 1048576 $(echo "130 136 140 133 131 138" | cut -d' ' -f"$r")"
    echo "$r broadcast 1024 $(echo "9.0 11.0 10.0 10.5 9.5 10.8" | cut -d' ' -f"$r")"
    echo "$r reduce 1048576 $(echo "101 110 102 108 103 106" | cut -d' ' -f"$r")"
  done
  for r in 1 2 3 4; do echo "$r broadcast 32768 $(echo "110 112 111 113" | cut -d' ' -f"$r")"; done
  echo "1 reduce 1024 3"
} >"$tmp/ys.txt"
{
  for r in 1 2 3 4 5 6; do
    echo "$r broadcast 1048576 100"; echo "$r broadcast 1024 10"; echo "$r reduce 1048576 100"
  done
  for r in 1 2 3 4; do echo "$r broadcast 32768 100"; done
} >"$tmp/peer.txt"
expect_rc 0 "peer_ratio.py" -- python3 "$src/bench/peer_ratio.py" "$tmp/ys.txt" "$tmp/peer.txt" \
  --key-columns 2 --labels collective,size --peer-name imb
cp "$tmp/out" "$tmp/table.txt"
expect_in "$tmp/table.txt" "broadcast  1048576      134.5      100.0   1.35  1.30-1.40   1.31-1.38   1.30-1.40       6  differs" "1 MiB row"
expect_line() {  # expect_line REGEX DESCRIPTION: a line of the table matches
  if grep -qE -- "$1" "$tmp/table.txt"; then passes=$((passes + 1)); else
    echo "FAIL: $2"; cat "$tmp/table.txt"; fails=$((fails + 1))
  fi
}
expect_line '^ *broadcast +1048576 .* differs$' "every round on one side of 1.00 is a difference at 6 rounds"
expect_line '^ *broadcast +1024 .* same$' "1.00 within the interval is not a difference"
expect_line '^ *broadcast +32768 .* - +4  too few rounds$' "four rounds are too few to judge"
expect_line '^ *reduce +1048576 .* within spread$' "a consistent difference smaller than the spread"
expect_not_in "$tmp/table.txt" "reduce     1024" "a key the peer did not measure is not compared"
expect_in "$tmp/table.txt" "# 1 of 4 differ: 1.00 outside the 95% confidence interval of the median ratio and the median further from 1.00 than the spread; tools that agree would show 0.1 of the 3 judged by chance; 1 within spread (a consistent difference smaller than the run-to-run spread); 1 with too few rounds to judge (6 needed)" "the counts of each verdict and the chance count"
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
