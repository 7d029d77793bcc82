#!/usr/bin/env bash
# The validation the way an operator and a third party use it: validate a suite's runs, record a
# baseline, archive (signed), verify, and catch every kind of tampering.
set -uo pipefail
bin=$1 src=$2
source "$src/tests/integration/lib.sh"  # $tmp, its own HOME, XDG_DATA_HOME and working directory
runs=$src/tests/fixtures/runs
ref=$runs/golden-reference.toml
fails=0 passes=0
check() {  # check WANT_RC DESCRIPTION -- command...   (output in $tmp/out, $tmp/err)
  local want=$1 what=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  if [ "$rc" -eq "$want" ]; then passes=$((passes + 1)); else
    echo "FAIL: $what: exit $rc, expected $want"; head -30 "$tmp/out"; head -5 "$tmp/err"; fails=$((fails + 1)); fi
}
has() {  # has TEXT DESCRIPTION  (in $tmp/out + $tmp/err)
  if cat "$tmp/out" "$tmp/err" | grep -qF -- "$1"; then passes=$((passes + 1)); else
    echo "FAIL: $2: '$1' not found"; head -30 "$tmp/out"; fails=$((fails + 1)); fi
}

# The verdict on the three fixture run directories.
check 0 "full H100 suite passes" -- "$bin" validate --suite h100 --runs "$runs/h100-pass" --reference "$ref"
has "verdict: PASS: all 5 workloads" "pass verdict"
check 1 "one workload at 94% fails" -- "$bin" validate --suite h100 --runs "$runs/h100-one-at-94" --reference "$ref"
has "FAIL: 1 of 5 workloads not above 95%: llama3.1_70b_fp8" "94% names the workload"
check 1 "a missing workload fails" -- "$bin" validate --suite h100 --runs "$runs/h100-missing" --reference "$ref"
has "qwen3_235b_bf16" "missing workload named"
has "no log found for this workload" "missing workload reason"
# Without a reference of the suite's release nothing can be judged: INCONCLUSIVE (exit 2), not a
# performance failure, and the reason says so.
check 2 "published baselines are of older releases" -- "$bin" validate --suite h100 --runs "$runs/h100-pass"
has "references exist only for v25.05.05 (published)" "release mismatch explained"
has "verdict: INCONCLUSIVE: 5 of 5 workloads have no reference for the h100 suite's release" "inconclusive verdict"
has "supply it with --reference FILE (a golden run of this release recorded with --record-baseline" "how to supply a reference"
check 2 "the same as JSON" -- "$bin" validate --suite h100 --runs "$runs/h100-pass" --json
/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); v=d['verdict']; assert v['state']=='inconclusive' and not v['pass'] and v['text'].startswith('INCONCLUSIVE'), v; assert all(w['outcome']=='inconclusive' for w in d['workloads'])" "$tmp/out" \
  && passes=$((passes + 1)) || { echo "FAIL: inconclusive validation JSON"; fails=$((fails + 1)); }

check 2 "runs directory absent" -- "$bin" validate --suite h100 --runs "$tmp/nothing" --reference "$ref"
check 2 "unknown suite" -- "$bin" validate --suite h300 --runs "$runs/h100-pass"
has "no suite file" "unknown suite explained"

# --predict: before any run (no --runs), the predicted step and score of each workload; a slow
# network all-gather and reduce-scatter put data-parallel-heavy workloads under 95%, named.
check 0 "predict alone" -- "$bin" validate --suite gb300 --predict
has "predicted: 0 of" "no workload under 95% at the reference rates"
check 0 "predict with slow collectives" -- "$bin" validate --suite gb300 --predict --set coll.all_gather.busbw=28GB/s --set coll.reduce_scatter.busbw=28GB/s
has "UNDER: coll." "a workload under 95% with the rate named"
check 0 "predict json" -- "$bin" validate --suite gb300 --predict --json
/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['threshold']==0.95 and len(d['workloads'])>5; assert all(w['model_step_s'] for w in d['workloads']); assert any(w['anchored_step_s'] and '.tsv:' in w['anchored_on'] for w in d['workloads']); assert all(w['anchored_expected_error'].startswith('expected |error| of the anchored step time (') for w in d['workloads'] if w['anchored_step_s'])" "$tmp/out" \
  && passes=$((passes + 1)) || { echo "FAIL: predict json"; fails=$((fails + 1)); }
check 2 "predict, bad --set" -- "$bin" validate --suite gb300 --predict --set coll.all_gather.busbw=slow
check 64 "neither --runs nor --predict" -- "$bin" validate --suite h100
check 0 "predict beside the scorecard" -- "$bin" validate --suite h100 --runs "$runs/h100-pass" --reference "$ref" --predict
has "predicted before the runs" "the predicted column beside the verdict"
check 0 "predict in the json document" -- "$bin" validate --suite h100 --runs "$runs/h100-pass" --reference "$ref" --predict --json --set coll.all_gather.busbw=10GB/s --set coll.reduce_scatter.busbw=10GB/s
/usr/bin/python3 -c "
import json,sys
d=json.load(open(sys.argv[1])); p=d['prediction']
assert d['verdict']['pass'] and p['threshold']==0.95 and len(p['workloads'])==5
assert all(set(w) >= {'predicted_step_s','predicted_score','under','why'} for w in p['workloads'])
assert any(w['under'] and 'coll.' in w['why'] for w in p['workloads'])" "$tmp/out" \
  && passes=$((passes + 1)) || { echo "FAIL: predict in the json document"; fails=$((fails + 1)); }

# JSON document.
check 0 "json" -- "$bin" validate --suite h100 --runs "$runs/h100-pass" --reference "$ref" --json
/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['verdict']['pass'] and len(d['workloads'])==5" "$tmp/out" \
  && passes=$((passes + 1)) || { echo "FAIL: validation json"; fails=$((fails + 1)); }

# A recorded baseline from a golden run, then the same runs against it.
check 0 "record baseline" -- "$bin" validate --suite h100 --runs "$runs/h100-pass" --reference "$ref" --record-baseline "$tmp/golden.toml" --by "ci" --hardware "fixture" --software "nemo 26.04.01"
grep -q 'kind = "recorded"' "$tmp/golden.toml" && grep -q 'made_by = "ci"' "$tmp/golden.toml" && passes=$((passes + 1)) || { echo "FAIL: recorded baseline content"; fails=$((fails + 1)); }
mkdir "$tmp/empty"
check 0 "against the recorded baseline" -- "$bin" validate --suite h100 --runs "$runs/h100-pass" --baselines "$tmp/empty" --reference "$tmp/golden.toml"
has "100.0%" "a run scores 100% against itself"
check 2 "record baseline never overwrites" -- "$bin" validate --suite h100 --runs "$runs/h100-pass" --reference "$ref" --record-baseline "$tmp/golden.toml"

# Signed archive and verification.
openssl genpkey -algorithm ed25519 -out "$tmp/key.pem" 2>/dev/null
openssl pkey -in "$tmp/key.pem" -pubout -out "$tmp/pub.pem" 2>/dev/null
openssl genpkey -algorithm ed25519 -out "$tmp/other.pem" 2>/dev/null
openssl pkey -in "$tmp/other.pem" -pubout -out "$tmp/otherpub.pem" 2>/dev/null
check 0 "archive" -- "$bin" archive --suite h100 --runs "$runs/h100-pass" --reference "$ref" -o "$tmp/a.tar.zst" --sign "$tmp/key.pem"
check 2 "archive never overwrites" -- "$bin" archive --suite h100 --runs "$runs/h100-pass" --reference "$ref" -o "$tmp/a.tar.zst"
check 0 "verify a fresh signed archive" -- "$bin" verify "$tmp/a.tar.zst" --pubkey "$tmp/pub.pem"
has "signature valid" "signature reported"
has "verified:" "verified"
check 1 "verify with another key" -- "$bin" verify "$tmp/a.tar.zst" --pubkey "$tmp/otherpub.pem"

# Only a signature checked against --pubkey says who made an archive: without a key, or without
# manifest.sig, the output says so and never that the signature agrees.
check 0 "verify without --pubkey" -- "$bin" verify "$tmp/a.tar.zst"
has "signature not checked (no --pubkey)" "no key: signature not checked"
grep -qF "hashes, signature and every score" "$tmp/out" && { echo "FAIL: a signature claimed without a key"; fails=$((fails + 1)); } || passes=$((passes + 1))
check 1 "--require-signature without --pubkey" -- "$bin" verify "$tmp/a.tar.zst" --require-signature
has "--require-signature needs --pubkey" "require without a key explained"
check 0 "--require-signature, signed and checked" -- "$bin" verify "$tmp/a.tar.zst" --pubkey "$tmp/pub.pem" --require-signature
rm -rf "$tmp/x"; mkdir "$tmp/x"; tar --zstd -xf "$tmp/a.tar.zst" -C "$tmp/x"
top=$(ls "$tmp/x"); rm "$tmp/x/$top/manifest.sig"; tar --zstd -cf "$tmp/nosig.tar.zst" -C "$tmp/x" "$top"
mkdir "$tmp/vtmp"
TMPDIR=$tmp/vtmp check 0 "manifest.sig removed, no --pubkey" -- "$bin" verify "$tmp/nosig.tar.zst"
has "signature:  unsigned" "unsigned reported"
has "verified: hashes and every score re-derived from the raw logs agree; signature not checked" "not called signed"
grep -qF "hashes, signature and every score" "$tmp/out" && { echo "FAIL: an unsigned archive called signed"; fails=$((fails + 1)); } || passes=$((passes + 1))
[ -z "$(ls -A "$tmp/vtmp")" ] && passes=$((passes + 1)) || { echo "FAIL: verify left $(ls -A "$tmp/vtmp")"; fails=$((fails + 1)); }
check 1 "manifest.sig removed, --require-signature" -- "$bin" verify "$tmp/nosig.tar.zst" --pubkey "$tmp/pub.pem" --require-signature
has "NOT VERIFIED" "unsigned archive fails when a signature is required"

# Tampering: unpack, change, repack (tar + zstd), verify.
repack() {  # repack ARCHIVE OUT -- edit commands run in the extracted top directory
  local in=$1 out=$2; shift 3
  rm -rf "$tmp/x"; mkdir "$tmp/x"; tar --zstd -xf "$in" -C "$tmp/x"
  local top; top=$(ls "$tmp/x")
  (cd "$tmp/x/$top" && eval "$@")
  tar --zstd -cf "$out" -C "$tmp/x" "$top"
}
log=$(tar --zstd -tf "$tmp/a.tar.zst" | grep 'llama3.1_70b_fp8/log-' | head -1 | cut -d/ -f2-)
repack "$tmp/a.tar.zst" "$tmp/byte.tar.zst" -- "sed -i '0,/elapsed time per iteration (ms): /s//elapsed time per iteration (ms): 1/' '$log'"
check 1 "an altered byte" -- "$bin" verify "$tmp/byte.tar.zst"
has "$log" "altered file named"
repack "$tmp/a.tar.zst" "$tmp/added.tar.zst" -- "echo extra > runs/extra.log"
check 1 "an added file" -- "$bin" verify "$tmp/added.tar.zst"
has "runs/extra.log" "added file named"
repack "$tmp/a.tar.zst" "$tmp/removed.tar.zst" -- "rm spec.toml"
check 1 "a removed file" -- "$bin" verify "$tmp/removed.tar.zst"
has "spec.toml" "removed file named"

# A run document edited to claim a pass, with the manifest re-hashed to match: the hashes agree,
# but re-deriving the scores from the raw logs exposes it (and the signature no longer verifies).
check 0 "archive of the 94% run" -- "$bin" archive --suite h100 --runs "$runs/h100-one-at-94" --reference "$ref" -o "$tmp/f.tar.zst" --sign "$tmp/key.pem"
cat > "$tmp/claim.py" <<'PY'
import hashlib, json, os
d = json.load(open("validation.json"))
d["verdict"] = {"pass": True, "text": "PASS: all 5 workloads of the h100 suite above 95% of the reference"}
for w in d["workloads"]:
    if w["id"] == "llama3.1_70b_fp8":
        w["outcome"], w["reason"], w["score"] = "pass", "", 0.991
open("validation.json", "w").write(json.dumps(d, indent=2) + "\n")
m = json.load(open("manifest.json"))
for f in m["files"]:
    if f["path"] == "validation.json":
        data = open("validation.json", "rb").read()
        f["sha256"], f["size"] = hashlib.sha256(data).hexdigest(), len(data)
open("manifest.json", "w").write(json.dumps(m, indent=2) + "\n")
PY
repack "$tmp/f.tar.zst" "$tmp/claim.tar.zst" -- "/usr/bin/python3 $tmp/claim.py && rm -f manifest.sig"
check 1 "a document edited to claim a pass (unsigned)" -- "$bin" verify "$tmp/claim.tar.zst"
has "recomputed: FAIL: 1 of 5 workloads not above 95%: llama3.1_70b_fp8" "recomputed verdict shown"
has "DIFFERS     verdict.pass: claimed true, recomputed false" "the claim is exposed"
check 1 "the same claim against the signing key" -- "$bin" verify "$tmp/claim.tar.zst" --pubkey "$tmp/pub.pem"

# Unsafe archives are refused (exit 2), naming the entry.
mkdir -p "$tmp/evil/top"; echo x > "$tmp/evil/top/a"; ln -s /etc/passwd "$tmp/evil/top/link"
tar --zstd -cf "$tmp/link.tar.zst" -C "$tmp/evil" top
check 2 "a symlink entry" -- "$bin" verify "$tmp/link.tar.zst"
has "link" "link entry named"
tar --zstd -cf "$tmp/dotdot.tar.zst" -C "$tmp/evil" --transform 's,^top/a,top/../../evil,' top/a
check 2 "a .. entry" -- "$bin" verify "$tmp/dotdot.tar.zst"
has "'..' component" ".. entry named"
head -c 4096 /dev/urandom > "$tmp/garbage.tar.zst"
check 2 "garbage" -- "$bin" verify "$tmp/garbage.tar.zst"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
