#!/usr/bin/env bash
# `yardstick submit` through the real sbatch, end to end into `validate`: a two-workload suite at
# 2 GPUs each, a cluster.toml whose launch command is a stand-in recipe printing Megatron-format
# log lines, --wait until the jobs end, the scorecard, and the jobs in the run history.
set -uo pipefail
bin=$1 src=$2
source "$src/tests/integration/lib.sh"
ensure_slurm

cat > "$tmp/suite.toml" <<TOML
[suite]
chip = "h100"
recipe_release = "v26.06.01"
source = "submit_test: two workloads at 2 GPUs"
threshold = 0.95
rule = "every"
window = [35, 44]

[[workload]]
id = "llama3.1_70b_fp8"
model = "llama3.1"
size = "70b"
dtype = "fp8"
gpus = 2
seq_len = 8192
gbs = 2048
framework = "megatron_bridge"

[[workload]]
id = "llama3.1_70b_bf16"
model = "llama3.1"
size = "70b"
dtype = "bf16"
gpus = 2
seq_len = 8192
gbs = 2048
framework = "megatron_bridge"
TOML
cat > "$tmp/ref.toml" <<TOML
[provenance]
chip = "h100"
kind = "recorded"
release = "v26.06.01"
source = "submit_test"
date = "2026-11-29"
hardware = "test cluster"
software = "stand-in recipe"
made_by = "submit_test.sh"
metric = "step_time_s"

[[reference]]
workload = "llama3.1_70b_fp8"
model = "llama3.1"
size = "70b"
dtype = "fp8"
gpus = 2
seq_len = 8192
gbs = 2048
step_time_s = 9.95

[[reference]]
workload = "llama3.1_70b_bf16"
model = "llama3.1"
size = "70b"
dtype = "bf16"
gpus = 2
seq_len = 8192
gbs = 2048
step_time_s = 9.95
TOML
cat > "$tmp/cluster.toml" <<TOML
[slurm]
partition = "test"
time_limit = "5"
gpus_per_node = 2
nodes = 1
gres = false          # the test node has no GPU GRES

[launch]
command = ["bash", "$src/tests/integration/fake_recipe.sh", "9950.0", "805.0"]

[environment]
YS_TEST_HOSTILE = "\$(touch $tmp/pwned); \`touch $tmp/pwned\`; 'q'"
TOML
mkdir -p "$tmp/empty"
runs=$tmp/runs

# Dry run: the scripts, nothing submitted.
expect_rc 0 "dry run" -- "$bin" submit --suite "$tmp/suite.toml" --cluster "$tmp/cluster.toml" --runs "$runs" --dry-run
expect_in "$tmp/out" "#SBATCH --exclusive" "dry run: recipe flags"
expect_in "$tmp/out" "#SBATCH --ntasks-per-node=2" "dry run: tasks per node"
expect_in "$tmp/out" "exec srun --mpi=pmix --" "dry run: srun with PMIx"
[ ! -e "$runs" ] && passes=$((passes + 1)) || { echo "FAIL: dry run wrote $runs"; fails=$((fails + 1)); }

# Bad cluster.toml: exit 2 naming file, line and key.
printf '[slurm]\npartition = "test"\ntimelimit = "5"\n' > "$tmp/bad.toml"
expect_rc 2 "unknown key" -- "$bin" submit --suite "$tmp/suite.toml" --cluster "$tmp/bad.toml" --dry-run
expect_in "$tmp/err" "bad.toml:3: [slurm] timelimit: unknown key" "unknown key named with its line"
printf '[slurm]\npartition = "te st"\ntime_limit = "5"\ngpus_per_node = 2\n[launch]\ncommand = ["x"]\n' > "$tmp/bad.toml"
expect_rc 2 "unsafe partition" -- "$bin" submit --suite "$tmp/suite.toml" --cluster "$tmp/bad.toml" --dry-run
expect_in "$tmp/err" "not safe in an #SBATCH line" "unsafe value refused"
expect_rc 2 "no workload matches" -- "$bin" submit --suite "$tmp/suite.toml" --cluster "$tmp/cluster.toml" --workload 'gpt*' --dry-run
# A workload id that is not a plain name ("..") would put the script and logs outside --runs:
# refused when the suite is read, naming the file and the field, and nothing is written.
sed 's/^id = "llama3.1_70b_bf16"/id = ".."/' "$tmp/suite.toml" > "$tmp/dotdot.toml"
mkdir -p "$tmp/confined"
expect_rc 2 "workload id '..' (dry run)" -- "$bin" submit --suite "$tmp/dotdot.toml" --cluster "$tmp/cluster.toml" --runs "$tmp/confined/runs" --dry-run
expect_in "$tmp/err" "dotdot.toml: [[workload]] 2 id '..'" "bad id named with its file and field"
expect_rc 2 "workload id '..'" -- "$bin" submit --suite "$tmp/dotdot.toml" --cluster "$tmp/cluster.toml" --runs "$tmp/confined/runs" --db "$tmp/dotdot.db"
[ -z "$(ls -A "$tmp/confined")" ] && passes=$((passes + 1)) || { echo "FAIL: written for a '..' id: $(ls -A "$tmp/confined")"; fails=$((fails + 1)); }

# The real thing: submit, wait, validate.
expect_rc 0 "submit --wait" -- "$bin" submit --suite "$tmp/suite.toml" --cluster "$tmp/cluster.toml" --runs "$runs" \
  --wait --timeout 120 --poll 1 --db "$tmp/history.db" --baselines "$tmp/empty" --reference "$tmp/ref.toml"
cp "$tmp/out" "$tmp/submit.out"
expect_in "$tmp/submit.out" "submitted llama3.1_70b_fp8: job" "fp8 submitted"
expect_in "$tmp/submit.out" "submitted llama3.1_70b_bf16: job" "bf16 submitted"
expect_in "$tmp/submit.out" "COMPLETED" "jobs completed"
expect_in "$tmp/submit.out" "verdict: PASS: all 2 workloads" "validation passes"
[ -f "$runs/validation.json" ] && passes=$((passes + 1)) || { echo "FAIL: no validation.json"; fails=$((fails + 1)); }
ls "$runs"/llama3.1_70b_fp8/log-llama3.1_70b_fp8_*_0.out >/dev/null 2>&1 && passes=$((passes + 1)) || { echo "FAIL: no log"; fails=$((fails + 1)); }
[ ! -e "$tmp/pwned" ] && passes=$((passes + 1)) || { echo "FAIL: a value in the script was executed"; fails=$((fails + 1)); }
job=$(sed -n 's/^submitted llama3.1_70b_fp8: job \([0-9]*\).*/\1/p' "$tmp/submit.out")
scontrol show job "$job" > "$tmp/job" 2>&1
expect_in "$tmp/job" "JobState=COMPLETED" "scontrol agrees"
expect_in "$tmp/job" "OverSubscribe=NO" "the job ran --exclusive"

# The history has the run, its verdict and both jobs with their submit-to-start latency.
/usr/bin/python3 - "$tmp/history.db" > "$tmp/hist" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print("runs", db.execute("select count(*), max(verdict) from runs").fetchone())
for row in db.execute("select workload, state, latency_s, exit_code from slurm_jobs order by workload"):
    print("job", *row)
print("mode", db.execute("pragma journal_mode").fetchone()[0])
PY
expect_in "$tmp/hist" "runs (1, 'pass')" "history: run with verdict"
expect_in "$tmp/hist" "job llama3.1_70b_bf16 COMPLETED" "history: bf16 job"
expect_in "$tmp/hist" "job llama3.1_70b_fp8 COMPLETED" "history: fp8 job"
expect_in "$tmp/hist" "mode wal" "history: WAL"
grep -q "COMPLETED None" "$tmp/hist" && { echo "FAIL: latency missing"; cat "$tmp/hist"; fails=$((fails + 1)); } || passes=$((passes + 1))
sed 's/^/  /' "$tmp/hist"

# A slow run: the same suite at 94% of the reference fails validation (exit 1).
sed -i 's/"9950.0"/"10585.0"/' "$tmp/cluster.toml"
expect_rc 1 "submit --wait, slow" -- "$bin" submit --suite "$tmp/suite.toml" --cluster "$tmp/cluster.toml" --runs "$tmp/runs2" \
  --wait --timeout 120 --poll 1 --db "$tmp/history.db" --baselines "$tmp/empty" --reference "$tmp/ref.toml"
expect_in "$tmp/out" "not above 95%" "slow run fails the 95% rule"
finish
