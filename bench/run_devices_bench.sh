#!/usr/bin/env bash
# Several devices in one process (bench/devices_bench.cc), one thread:
#   - the cost of one transfer between two CPU devices (a _Send/_Recv pair):
#     a 1000-link Identity chain alternating between CPU:0 and CPU:1, minus
#     the same chain on one device, per link; for 4 bytes and for 16 MiB
#     (no bytes move, so both should cost the same), against memcpy of
#     16 MiB in the same run (what moving the bytes would cost at least);
#   - one SGD step of a two-layer MLP (784-512-10, batch 128) with its
#     layers on two devices vs on one.
# Targets (issue 9): <= 1 us per transfer; MLP on two devices within 5% of one.
#
#   bash bench/run_devices_bench.sh [BUILD_DIR]      # default: build-bench
#
# Environment: REPS=5 repetitions (the table shows min and median over them),
# NO_BUILD=1 to skip the build.
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
build_dir=${1:-build-bench}
reps=${REPS:-5}
if [[ "${NO_BUILD:-0}" != 1 ]]; then
  bash scripts/build.sh "$build_dir" -DFLOWVM_BUILD_TESTS=OFF -DFLOWVM_BUILD_BENCH=ON
fi
bench_bin="$build_dir/bench/devices_bench"
[[ -x "$bench_bin" ]] || { echo "run_devices_bench.sh: $bench_bin not found" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "run_devices_bench.sh: running $bench_bin (repetitions=$reps, interleaved)" >&2
"$bench_bin" --benchmark_format=json --benchmark_repetitions="$reps" \
  --benchmark_enable_random_interleaving=true > "$tmp/out.json"

cpu_model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
python3 - "$tmp/out.json" "$(nproc)" "$cpu_model" <<'PY'
import json, statistics, sys

data = json.load(open(sys.argv[1]))
runs = {}
for b in data["benchmarks"]:
    if b.get("run_type", "iteration") != "iteration":
        continue
    name = b["run_name"].removesuffix("/real_time")
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[b["time_unit"]]
    runs.setdefault(name, []).append(b["real_time"] * scale)  # microseconds

def stat(name, f):
    return f(runs[name]) if name in runs else float("nan")

rows = []
def row(label, mn, med, unit, verdict=""):
    rows.append((label, mn, med, unit, verdict))

links = 1000
for floats, label in ((1, "4 B"), (4 << 20, "16 MiB")):
    one, two = f"BM_TransferChain/floats:{floats}/devices:1", f"BM_TransferChain/floats:{floats}/devices:2"
    per_min = (stat(two, min) - stat(one, min)) / links
    per_med = (stat(two, statistics.median) - stat(one, statistics.median)) / links
    row(f"one transfer CPU:0 -> CPU:1, {label}", f"{per_min:.3f}", f"{per_med:.3f}", "us",
        f"{'PASS' if per_min <= 1.0 else 'MISS'} (target <= 1 us)")
    if floats != 1:
        mc_min, mc_med = stat("BM_Memcpy/bytes:16777216", min), stat("BM_Memcpy/bytes:16777216", statistics.median)
        row("memcpy 16 MiB (peer: a transfer that moved the bytes)", f"{mc_min:.1f}", f"{mc_med:.1f}", "us")
        row("ratio transfer / memcpy, 16 MiB", f"{per_min / mc_min:.5f}", f"{per_med / mc_med:.5f}", "x")
m1, m2 = "BM_TrainMlp/devices:1", "BM_TrainMlp/devices:2"
row("MLP SGD step, layers on 1 device", f"{stat(m1, min) / 1e3:.3f}", f"{stat(m1, statistics.median) / 1e3:.3f}", "ms")
row("MLP SGD step, layers on 2 devices", f"{stat(m2, min) / 1e3:.3f}", f"{stat(m2, statistics.median) / 1e3:.3f}", "ms")
ratio_min, ratio_med = stat(m2, min) / stat(m1, min), stat(m2, statistics.median) / stat(m1, statistics.median)
row("ratio 2 devices / 1 device", f"{ratio_min:.3f}", f"{ratio_med:.3f}", "x",
    f"{'PASS' if ratio_med <= 1.05 else 'MISS'} (target <= 1.05)")

hdr = ("benchmark", "min", "median", "unit", "target")
w = [max(len(r[i]) for r in rows + [hdr]) for i in range(5)]
print("  ".join(h.ljust(w[i]) if i in (0, 3, 4) else h.rjust(w[i]) for i, h in enumerate(hdr)))
print("  ".join("-" * x for x in w))
for r in rows:
    print("  ".join(c.ljust(w[i]) if i in (0, 3, 4) else c.rjust(w[i]) for i, c in enumerate(r)))
print()
print(f"machine: nproc={sys.argv[2]}, cpu={sys.argv[3]}, load_avg={data.get('context', {}).get('load_avg')}")
PY
