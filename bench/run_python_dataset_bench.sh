#!/usr/bin/env bash
# A Python training loop fed by tf.data (from_tensor_slices -> shuffle ->
# repeat -> batch 128 -> prefetch -> get_next) against the same loop fed by
# feed_dict with a shuffled NumPy batch each step (bench/python/
# dataset_vs_feed.py), each loop in its own process, alternating which goes
# first, for two models; prints ms/step of both and the ratio dataset/fed.
# Target (issue 27): ratio <= 1.
#
#   bash bench/run_python_dataset_bench.sh [BUILD_DIR]      # default: build
#
# Environment: REPS (5) rounds, STEPS (300) timed steps per process,
# THREADS (2), NO_BUILD=1 to skip building flowvm_python.
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
build_dir=${1:-build}
reps=${REPS:-5}
steps=${STEPS:-300}
threads=${THREADS:-2}
if [[ "${NO_BUILD:-0}" != 1 ]]; then
  cmake --build "$build_dir" --target flowvm_python -j2 >&2
fi
export PYTHONPATH="$repo_root/$build_dir/python"
py=/usr/bin/python3
bench=bench/python/dataset_vs_feed.py

results=()
for model in mlp softmax; do
  for ((r = 1; r <= reps; r++)); do
    if (( r % 2 )); then order=(fed dataset); else order=(dataset fed); fi
    declare -A ms=()
    for mode in "${order[@]}"; do
      ms[$mode]=$("$py" "$bench" --mode "$mode" --model "$model" --steps "$steps" --threads "$threads" |
                  awk '/^MS_PER_STEP/ {print $2}')
    done
    echo "run_python_dataset_bench.sh: $model round $r: fed ${ms[fed]} ms, dataset ${ms[dataset]} ms" >&2
    results+=("$model ${ms[fed]} ${ms[dataset]}")
    unset ms
  done
done

cpu_model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
printf '%s\n' "${results[@]}" | "$py" -c '
import statistics, sys
rows = {}
for line in sys.stdin:
    model, fed, ds = line.split()
    rows.setdefault(model, []).append((float(fed), float(ds)))
print("machine: %s, %s vCPUs, %s threads a side" % (sys.argv[1], sys.argv[2], sys.argv[3]))
print("| model (batch 128) | fed ms/step | dataset ms/step | ratio dataset/fed (median, range) |")
print("|---|---:|---:|---|")
names = {"mlp": "MLP 784-512-512-10", "softmax": "softmax regression 784-10"}
for model, rs in rows.items():
    ratios = [d / f for f, d in rs]
    print("| %s | %.3f | %.3f | **%.2f** (%.2f-%.2f) |" % (names[model], statistics.median(f for f, _ in rs),
          statistics.median(d for _, d in rs), statistics.median(ratios), min(ratios), max(ratios)))
' "$cpu_model" "$(nproc)" "$threads"
