#!/usr/bin/env bash
# A training loop fed by a dataset (TensorSliceDataset -> shuffle -> repeat ->
# batch 128 -> prefetch -> IteratorGetNext) versus the same loop fed by
# feeds (a shuffled batch gathered from the in-memory arrays each step, as
# NumPy does), per-step time side by side with the ratio dataset/fed
# (bench/dataset_bench.cc). Target (issue 27): ratio <= 1.
#
#   bash bench/run_dataset_bench.sh [BUILD_DIR]      # default: build-bench
#
# Environment:
#   REPS=5      rounds; each runs both loops for 300 steps per model and
#               takes the median step time; the table shows the median and
#               min over rounds
#   NO_BUILD=1  skip the build step
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
build_dir=${1:-build-bench}
reps=${REPS:-5}

if [[ "${NO_BUILD:-0}" != 1 ]]; then
  bash scripts/build.sh "$build_dir" -DFLOWVM_BUILD_TESTS=OFF -DFLOWVM_BUILD_BENCH=ON >&2
fi
bench_bin="$build_dir/bench/dataset_bench"
[[ -x "$bench_bin" ]] || { echo "run_dataset_bench.sh: $bench_bin not found" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((r = 1; r <= reps; r++)); do
  echo "run_dataset_bench.sh: round $r/$reps" >&2
  # Alternate which loop goes first, so that neither always runs warmer.
  if (( r % 2 )); then order=(BM_Fed BM_Dataset); else order=(BM_Dataset BM_Fed); fi
  for name in "${order[@]}" BM_Alternating; do
    "$bench_bin" --benchmark_format=json --benchmark_filter="^$name/" > "$tmp/${name}_$r.json"
  done
done

cpu_model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
python3 - "$tmp" "$reps" "$(nproc)" "$cpu_model" <<'PY'
import json, re, statistics, sys

tmp, reps, nproc, cpu = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rounds = []
for r in range(1, reps + 1):
    fed, ds, alt = (json.load(open(f"{tmp}/{n}_{r}.json")) for n in ("BM_Fed", "BM_Dataset", "BM_Alternating"))
    fed["benchmarks"] += ds["benchmarks"] + alt["benchmarks"]
    rounds.append(fed)

def ms(run, name, counter="median_step_ms"):
    for b in run["benchmarks"]:
        if re.sub(r"/(iterations:[^/]*|real_time)", "", b.get("run_name", b["name"])) == name:
            if "error_occurred" in b:
                sys.exit(f"run_dataset_bench.sh: {name}: {b.get('error_message')}")
            return b[counter]
    sys.exit(f"run_dataset_bench.sh: no result for {name}")

rows = []
alone = [ms(r, "BM_Dataset/model:-1") for r in rounds]
for model, label in [(0, "MLP 784-512-512-10"), (1, "softmax regression 784-10")]:
    fed = [ms(r, f"BM_Fed/model:{model}") for r in rounds]
    ds = [ms(r, f"BM_Dataset/model:{model}") for r in rounds]
    ratio = [a / b for a, b in zip(ds, fed)]
    rows.append((label + ", separate runs", f"{statistics.median(fed):.3f}", f"{statistics.median(ds):.3f}",
                 f"{statistics.median(ratio):.3f}", f"{min(ratio):.3f}-{max(ratio):.3f}"))
    afed = [ms(r, f"BM_Alternating/model:{model}", "fed_ms") for r in rounds]
    ads = [ms(r, f"BM_Alternating/model:{model}", "dataset_ms") for r in rounds]
    aratio = [ms(r, f"BM_Alternating/model:{model}", "ratio") for r in rounds]
    rows.append((label + ", alternating blocks", f"{statistics.median(afed):.3f}", f"{statistics.median(ads):.3f}",
                 f"{statistics.median(aratio):.3f}", f"{min(aratio):.3f}-{max(aratio):.3f}"))
hdr = ("model (batch 128)", "fed ms/step", "dataset ms/step", "ratio", "ratio range")
w = [max(len(r[i]) for r in rows + [hdr]) for i in range(5)]
print("  ".join(h.ljust(w[i]) if i == 0 else h.rjust(w[i]) for i, h in enumerate(hdr)))
print("  ".join("-" * x for x in w))
for r in rows:
    print("  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(r)))
loads = [r.get("context", {}).get("load_avg", [float("nan")])[0] for r in rounds]
print()
print(f"the pipeline alone (get_next only): {statistics.median(alone):.3f} ms/batch")
print(f"machine: nproc={nproc}, cpu={cpu}, 1-min load per round={[round(x, 1) for x in loads]}, {reps} rounds; "
      "medians over rounds of each round's median step; ratio = dataset / fed (<= 1: the dataset is no slower)")
PY
