#!/usr/bin/env bash
# Control flow, queues and input pipelines: runs control_flow_bench, the
# TorchScript while-loop peer and the digits trainer fed from memory and
# from record files, in the same invocation, and prints the table.
#
#   bash bench/run_control_flow_bench.sh [BUILD_DIR]      # default: build-bench
#
# Environment: REPS=5 (Google Benchmark repetitions), NO_BUILD=1 (use the
# binaries already in BUILD_DIR), TORCH_PYTHON (default /usr/bin/python3),
# STEPS=20000 (digits training steps per run), RUNS=3 (runs of each).
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
build_dir=${1:-build-bench}
reps=${REPS:-5}
steps=${STEPS:-20000}
runs=${RUNS:-3}
torch_python=${TORCH_PYTHON:-/usr/bin/python3}

if [[ "${NO_BUILD:-0}" != 1 ]]; then
  bash scripts/build.sh "$build_dir" -DFLOWVM_BUILD_TESTS=OFF -DFLOWVM_BUILD_BENCH=ON
fi
bench_bin="$build_dir/bench/control_flow_bench"
digits_bin="$build_dir/examples/flowvm_digits"
for b in "$bench_bin" "$digits_bin"; do
  [[ -x "$b" ]] || { echo "run_control_flow_bench.sh: $b not found" >&2; exit 1; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "run_control_flow_bench.sh: running $bench_bin (repetitions=$reps)" >&2
"$bench_bin" --benchmark_format=json --benchmark_repetitions="$reps" \
  --benchmark_report_aggregates_only=true > "$tmp/flowvm.json"
echo "run_control_flow_bench.sh: running bench/torch_while.py with $torch_python" >&2
"$torch_python" bench/torch_while.py > "$tmp/torch.json"

# Digits training, the same steps fed from memory and through the record
# pipeline (the record shards are written once, before the timed runs).
"$digits_bin" --records "$tmp/records" --no-progress --steps 10 > /dev/null
: > "$tmp/digits.txt"
for ((i = 0; i < runs; ++i)); do
  for mode in memory records; do
    args=(--no-progress --steps "$steps")
    [[ $mode == records ]] && args+=(--records "$tmp/records")
    start=$EPOCHREALTIME
    "$digits_bin" "${args[@]}" > /dev/null
    echo "$mode $start $EPOCHREALTIME" >> "$tmp/digits.txt"
  done
done

cpu_model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
"$torch_python" - "$tmp/flowvm.json" "$tmp/torch.json" "$tmp/digits.txt" "$(nproc)" "$cpu_model" "$steps" <<'PY'
import json, statistics, sys

fv = json.load(open(sys.argv[1]))
tv = json.load(open(sys.argv[2]))
digits = [l.split() for l in open(sys.argv[3]) if l.strip()]
nproc, cpu, steps = sys.argv[4], sys.argv[5], int(sys.argv[6])

def counter(prefix, agg, key):
    for b in fv["benchmarks"]:
        if b.get("run_name", "").startswith(prefix) and b.get("aggregate_name") == agg:
            return b[key]
    return float("nan")

rows = []
loop = counter("BM_WhileLoop", "median", "ns_per_iteration")
ts = tv["torchscript_ns_per_iteration"]
rows.append(("while loop, trivial scalar body", "", f"{loop:,.0f}", "ns/iteration",
             f"{'PASS' if loop <= 2000 else 'MISS'} (target <= 2000)"))
rows.append(("TorchScript while loop, same body", "", f"{ts:,.0f}", "ns/iteration", ""))
rows.append(("ratio flowvm / TorchScript", "", f"{loop / ts:.2f}", "x", ""))
steps_q = counter("BM_QueueSteps", "median", "ns_per_element")
direct = counter("BM_QueueDirect", "median", "ns_per_element")
floor = counter("BM_MutexCvQueue", "median", "ns_per_element")
rows.append(("queue, enqueue step -> dequeue step", "", f"{steps_q:,.0f}", "ns/element", ""))
rows.append(("queue object, TryEnqueue -> TryDequeue", "", f"{direct:,.0f}", "ns/element", ""))
rows.append(("std::mutex + condition_variable queue (floor)", "", f"{floor:,.0f}", "ns/element", ""))
rows.append(("ratio queue object / floor", "", f"{direct / floor:.1f}", "x", ""))
mem = statistics.median(float(e) - float(s) for m, s, e in digits if m == "memory")
rec = statistics.median(float(e) - float(s) for m, s, e in digits if m == "records")
speed = mem / rec
rows.append((f"digits MLP, {steps} steps fed from memory", "", f"{mem:.2f}", "s", ""))
rows.append((f"digits MLP, {steps} steps from record files", "", f"{rec:.2f}", "s", ""))
rows.append(("record pipeline speed / memory speed", "", f"{speed:.2f}", "x",
             f"{'PASS' if speed >= 0.9 else 'MISS'} (target >= 0.90)"))
print(f"machine: {cpu}, {nproc} CPUs; torch {tv['torch']}")
print("| measurement | median | unit | verdict |")
print("|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(r[:1] + r[2:]) + " |")
PY
