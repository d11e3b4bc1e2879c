#!/usr/bin/env bash
# Builds flowvm's executor benchmarks, runs them and the TorchScript baseline
# in the same invocation, and prints a summary table with the targets.
#
#   bash bench/run_executor_bench.sh [BUILD_DIR]      # default: build-bench
#
# Environment:
#   REPS=5          Google Benchmark repetitions (the table uses the minimum
#                   and the median over them)
#   NO_BUILD=1      skip the build step (use the binary already in BUILD_DIR)
#   TORCH_PYTHON    interpreter with torch (default /usr/bin/python3)
#   KEEP=DIR        keep the raw JSON outputs in DIR
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
build_dir=${1:-build-bench}
reps=${REPS:-5}
torch_python=${TORCH_PYTHON:-/usr/bin/python3}

if [[ "${NO_BUILD:-0}" != 1 ]]; then
  if [[ -x scripts/build.sh ]] || [[ -f scripts/build.sh ]]; then
    bash scripts/build.sh "$build_dir" -DFLOWVM_BUILD_TESTS=OFF -DFLOWVM_BUILD_BENCH=ON
  else
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLOWVM_BUILD_TESTS=OFF -DFLOWVM_BUILD_BENCH=ON
    cmake --build "$build_dir"
  fi
fi
bench_bin="$build_dir/bench/executor_bench"
[[ -x "$bench_bin" ]] || { echo "run_executor_bench.sh: $bench_bin not found" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "run_executor_bench.sh: running $bench_bin (repetitions=$reps)" >&2
"$bench_bin" --benchmark_format=json --benchmark_repetitions="$reps" \
  --benchmark_report_aggregates_only=true > "$tmp/flowvm.json"
echo "run_executor_bench.sh: running bench/torch_chain.py with $torch_python" >&2
"$torch_python" bench/torch_chain.py > "$tmp/torch.json"
if [[ -n "${KEEP:-}" ]]; then
  mkdir -p "$KEEP"
  cp "$tmp/flowvm.json" "$tmp/torch.json" "$KEEP/"
fi

cpu_model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
"$torch_python" - "$tmp/flowvm.json" "$tmp/torch.json" "$(nproc)" "$cpu_model" <<'PY'
import json, sys

fv = json.load(open(sys.argv[1]))
tv = json.load(open(sys.argv[2]))
nproc, cpu = sys.argv[3], sys.argv[4]

def base(n):  # UseRealTime() appends "/real_time" to the names
    return n.removesuffix("/real_time")

def counter(name, agg, key):
    for b in fv["benchmarks"]:
        if base(b.get("run_name", "")) == name and b.get("aggregate_name") == agg:
            return b[key]
    # No repetitions: plain iteration entries.
    for b in fv["benchmarks"]:
        if base(b.get("name", "")) == name and b.get("run_type", "iteration") == "iteration":
            return b[key]
    return float("nan")

rows = []
def row(label, name, key, unit, target=None, digits=1):
    best, med = counter(name, "min", key), counter(name, "median", key)
    verdict = ""
    if target is not None:
        verdict = f"{'PASS' if best <= target else 'MISS'} (target <= {target:g} {unit})"
    rows.append((label, f"{best:,.{digits}f}", f"{med:,.{digits}f}", unit, verdict))
    return best

chain1 = row("flowvm chain, 1 thread", "BM_Chain/threads:1", "ns_per_node", "ns/node", 200)
row("flowvm chain, 2 threads", "BM_Chain/threads:2", "ns_per_node", "ns/node")
row("flowvm independent, 1 thread", "BM_Independent/threads:1", "ns_per_node", "ns/node")
row("flowvm independent, 2 threads", "BM_Independent/threads:2", "ns_per_node", "ns/node")
row("flowvm Run overhead, fetch Const", "BM_RunOverhead_Const/threads:1", "us_per_run", "us/Run", 1, digits=3)
row("flowvm Run overhead, feed->Identity", "BM_RunOverhead_FeedIdentity/threads:1", "us_per_run", "us/Run", 5, digits=3)
ts = tv["torchscript_ns_per_op"]
rows.append(("TorchScript chain, 1 thread", f"{tv['torchscript_ns_per_op_best']:,.1f}", f"{ts:,.1f}", "ns/op", ""))
if "eager_ns_per_op" in tv:
    rows.append(("PyTorch eager chain (reference)", "", f"{tv['eager_ns_per_op']:,.1f}", "ns/op", ""))
rows.append(("ratio flowvm/TorchScript (chain)", f"{chain1 / tv['torchscript_ns_per_op_best']:.2f}",
             f"{counter('BM_Chain/threads:1', 'median', 'ns_per_node') / ts:.2f}", "x", ""))

w = [max(len(r[i]) for r in rows + [("benchmark", "min", "median", "unit", "target")]) for i in range(5)]
hdr = ("benchmark", "min", "median", "unit", "target")
print("  ".join(h.ljust(w[i]) if i in (0, 3, 4) else h.rjust(w[i]) for i, h in enumerate(hdr)))
print("  ".join("-" * x for x in w))
for r in rows:
    print("  ".join(c.ljust(w[i]) if i in (0, 3, 4) else c.rjust(w[i]) for i, c in enumerate(r)))
ctx = fv.get("context", {})
print()
print(f"machine: nproc={nproc}, cpu={cpu}, load_avg={ctx.get('load_avg')}, "
      f"torch {tv['torch_version']} "
      f"(set_num_threads(1), {tv['nodes']} adds, {tv['script_graph_adds']} aten::add in the graph)")
PY
