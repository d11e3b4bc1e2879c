#!/usr/bin/env bash
# The Python front-end's two performance targets, each against its peer in
# the same run:
#   (1) sess.run of a cached 1-node graph from Python, vs torch.add of two
#       scalars from Python (target: <= 10 us);
#   (2) the MLP 784-512-512-10 training step (batch 128, 2 threads) driven
#       from Python with a feed_dict each step, vs PyTorch eager from Python
#       (target: ratio <= 1.0) and vs the same model driven from C++
#       (bench/train_bench's BM_TrainMLP/threads:2; target: within 10%).
#
#   bash bench/run_python_bench.sh [BUILD_DIR]     # default: build
# Environment: REPS (5), NO_BUILD=1 to skip the build.
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
build_dir=${1:-build}
reps=${REPS:-5}
if [[ "${NO_BUILD:-0}" != 1 ]]; then
  bash scripts/build.sh "$build_dir" -DFLOWVM_BUILD_BENCH=ON >&2
  ninja -C "$build_dir" train_bench flowvm_python >&2
fi
if [[ -z "${OPENBLAS_CORETYPE:-}" ]]; then
  if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX
  elif grep -qw avx2 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Haswell
  fi
fi
export PYTHONPATH="$repo_root/$build_dir/python"
py=/usr/bin/python3

echo "== (1) Run overhead from Python =="
"$py" bench/python/session_overhead.py --reps "$reps"

echo
echo "== (2) MLP 784-512-512-10 training step, batch 128, 2 threads =="
# Each round runs the three one after the other (Python flowvm, PyTorch,
# C++ flowvm), so all see the same machine; the ratios are per round.
rounds=()
for ((r = 1; r <= reps; r++)); do
  out=$("$py" bench/python/train_mlp.py --threads 2 --reps 1)
  py_ms=$(echo "$out" | sed -n 's/^FLOWVM_PY_MS_PER_STEP=//p')
  torch_ms=$(echo "$out" | sed -n 's/^PyTorch eager from Python: *\([0-9.]*\) ms.*/\1/p')
  cc_ms=$("$build_dir/bench/train_bench" --benchmark_filter='BM_TrainMLP/threads:2/' --benchmark_format=json |
    "$py" -c 'import json,sys; b=[x for x in json.load(sys.stdin)["benchmarks"] if "median_step_ms" in x]; print(b[0]["median_step_ms"])')
  echo "round $r: flowvm from Python $py_ms ms, PyTorch from Python $torch_ms ms, flowvm from C++ $cc_ms ms" >&2
  rounds+=("$py_ms,$torch_ms,$cc_ms")
done
"$py" - "${rounds[@]}" <<'PY'
import statistics, sys
rows = [tuple(float(v) for v in r.split(",")) for r in sys.argv[1:]]
med = lambda xs: statistics.median(xs)
py, torch, cc = ([r[i] for r in rows] for i in range(3))
print("flowvm.compat.v1 from Python: %.3f ms/step (median of %d rounds; each round's median step)" % (med(py), len(rows)))
print("PyTorch eager from Python:    %.3f ms/step" % med(torch))
print("flowvm from C++ (train_bench): %.3f ms/step" % med(cc))
rt = [a / b for a, b in zip(py, torch)]
rc = [a / b for a, b in zip(py, cc)]
print("ratio flowvm(Python)/PyTorch: median %.3f, per round %s (target <= 1.0: %s)"
      % (med(rt), ", ".join("%.2f" % x for x in rt), "PASS" if med(rt) <= 1.0 else "MISS"))
print("ratio flowvm Python/C++:      median %.3f, per round %s (target <= 1.10: %s)"
      % (med(rc), ", ".join("%.2f" % x for x in rc), "PASS" if med(rc) <= 1.10 else "MISS"))
PY
echo
echo "machine: nproc=$(nproc), cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), load $(cut -d' ' -f1 /proc/loadavg)"
