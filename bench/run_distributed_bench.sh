#!/usr/bin/env bash
# The distributed runtime against its peers, every party a process of its
# own on loopback (bench/distributed/distributed_bench.cc):
#   - RecvTensor throughput: a 64 MiB float32 tensor pulled by a Recv on
#     worker task w1 from worker task w0 (two flowvm server processes), the
#     step's time less the same step without the transfer, vs a plain TCP
#     socket moving 64 MiB between two processes, and a naive gRPC unary
#     call with a 64 MiB protobuf `bytes` field;
#   - trivial step round trip: client -> master -> 2 workers -> client, a
#     scalar Const fetched from w0 and one run on w1 (3 processes: client,
#     w0 with the master, w1), vs a plain gRPC unary round trip (generated
#     stub) measured in the same run.
# Targets: RecvTensor >= 50% of plain TCP; step median <= 3x the gRPC round
# trip. Benchmarks report: the script fails only if something does not run.
#
#   bash bench/run_distributed_bench.sh [BUILD_DIR]      # default: build-bench
#
# Environment: ROUNDS=5 (each round runs every benchmark, in a random order),
# TRANSFER_ITERS=3 (64 MiB transfers per benchmark per round), STEPS=300
# (round trips per benchmark per round), MIB=64, NO_BUILD=1 to skip the
# build, KEEP=DIR to keep the raw samples (JSON). GLIBC_TUNABLES reaches every
# process of the run (bench/RESULTS.md: glibc.malloc.trim_threshold and the
# RecvTensor figure).
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
build_dir=${1:-build-bench}
targets=(distributed_bench dist_bench_server dist_bench_peer)
if [[ "${NO_BUILD:-0}" != 1 ]]; then
  # As scripts/build.sh, but only the targets this needs.
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$repo_root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
  cfg=(-S . -B "$build_dir" -G Ninja -DFLOWVM_BUILD_BENCH=ON)
  [[ -f "$build_dir/CMakeCache.txt" ]] || cfg+=(-DCMAKE_BUILD_TYPE=Release -DFLOWVM_BUILD_TESTS=OFF)
  cmake "${cfg[@]}" > /dev/null
  cmake --build "$build_dir" --target "${targets[@]}"
fi
bench_bin="$build_dir/bench/distributed_bench"
for t in "${targets[@]}"; do
  [[ -x "$build_dir/bench/$t" ]] || { echo "run_distributed_bench.sh: $build_dir/bench/$t not found" >&2; exit 1; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "run_distributed_bench.sh: running $bench_bin (load average $load_before)" >&2
"$bench_bin" --rounds="${ROUNDS:-5}" --transfer_iters="${TRANSFER_ITERS:-3}" --steps="${STEPS:-300}" \
  --mib="${MIB:-64}" > "$tmp/out.json"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
if [[ -n "${KEEP:-}" ]]; then
  mkdir -p "$KEEP"
  cp "$tmp/out.json" "$KEEP/distributed.json"
fi

cpu_model=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
[[ -n "$cpu_model" ]] || cpu_model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
python3 - "$tmp/out.json" "$(nproc)" "$cpu_model" "$load_before" "$load_after" <<'PY'
import json, os, statistics, sys

data = json.load(open(sys.argv[1]))
s = data["samples_us"]
nbytes = data["bytes"]
mib = nbytes / (1 << 20)

def q(name, p):  # p-quantile of the samples
    v = sorted(s[name])
    return v[min(len(v) - 1, int(p * len(v)))]

med = lambda n: statistics.median(s[n])
mn = lambda n: min(s[n])
gbs = lambda us: nbytes / (us * 1e-6) / 1e9

rows = []
def row(label, a, b, unit, verdict=""):
    rows.append((label, a, b, unit, verdict))

# ---- RecvTensor throughput
xfer_min, xfer_med = mn("recv_remote") - mn("recv_local"), med("recv_remote") - med("recv_local")
row(f"flowvm step, Recv of {mib:g} MiB w0 -> w1", f"{mn('recv_remote') / 1e3:.2f}", f"{med('recv_remote') / 1e3:.2f}", "ms")
row("flowvm same step, no transfer", f"{mn('recv_local') / 1e3:.2f}", f"{med('recv_local') / 1e3:.2f}", "ms")
row("flowvm RecvTensor (difference)", f"{xfer_min / 1e3:.2f}", f"{xfer_med / 1e3:.2f}", "ms")
row("flowvm RecvTensor throughput", f"{gbs(xfer_min):.2f}", f"{gbs(xfer_med):.2f}", "GB/s")
row("flowvm whole step throughput", f"{gbs(mn('recv_remote')):.2f}", f"{gbs(med('recv_remote')):.2f}", "GB/s")
for name, label in (("tcp", "plain TCP, reused buffer (peer)"), ("tcp_fresh", "plain TCP, new buffer each time"),
                    ("grpc_bytes", "naive gRPC unary, bytes field")):
    row(f"{label}", f"{mn(name) / 1e3:.2f}", f"{med(name) / 1e3:.2f}", "ms")
    row(f"{label}", f"{gbs(mn(name)):.2f}", f"{gbs(med(name)):.2f}", "GB/s")
row("memcpy in one process (informational)", f"{mn('memcpy') / 1e3:.2f}", f"{med('memcpy') / 1e3:.2f}", "ms")
r_min, r_med = mn("tcp") / xfer_min, med("tcp") / xfer_med
row("ratio flowvm RecvTensor / plain TCP", f"{r_min:.2f}", f"{r_med:.2f}", "x",
    f"{'PASS' if r_med >= 0.5 else 'MISS'} (target >= 0.50)")
row("ratio flowvm whole step / plain TCP", f"{mn('tcp') / mn('recv_remote'):.2f}", f"{med('tcp') / med('recv_remote'):.2f}", "x")
row("ratio flowvm RecvTensor / TCP new buffer", f"{mn('tcp_fresh') / xfer_min:.2f}", f"{med('tcp_fresh') / xfer_med:.2f}", "x")
row("ratio flowvm RecvTensor / naive gRPC bytes", f"{mn('grpc_bytes') / xfer_min:.2f}", f"{med('grpc_bytes') / xfer_med:.2f}", "x")
rows.append(None)
# ---- trivial step round trip
for name, label in (("step", "flowvm step, 3 processes (master in w0)"),
                    ("step_master", "flowvm step, 4 processes (master task)"),
                    ("step_edge", "flowvm step + scalar w1 -> w0 (3 proc.)"),
                    ("step_in_master", "  of which in the master (its run_ms)"),
                    ("grpc_ping", "plain gRPC unary round trip (peer)"),
                    ("grpc_ping_callback", "plain gRPC round trip, callback API"),
                    ("grpc_relay", "plain gRPC, relayed by a second peer")):
    row(label, f"{mn(name):.1f}", f"{med(name):.1f}", "us", f"p90 {q(name, 0.9):.1f} us")
ratio = med("step") / med("grpc_ping")
row("ratio step / gRPC round trip", f"{mn('step') / mn('grpc_ping'):.2f}", f"{ratio:.2f}", "x",
    f"{'PASS' if ratio <= 3 else 'MISS'} (target <= 3, median)")
row("ratio step (master task) / gRPC", f"{mn('step_master') / mn('grpc_ping'):.2f}",
    f"{med('step_master') / med('grpc_ping'):.2f}", "x")
row("ratio step / relayed gRPC (3 processes)", f"{mn('step') / mn('grpc_relay'):.2f}",
    f"{med('step') / med('grpc_relay'):.2f}", "x")
row("ratio step + edge / gRPC", f"{mn('step_edge') / mn('grpc_ping'):.2f}", f"{med('step_edge') / med('grpc_ping'):.2f}", "x")

hdr = ("benchmark", "min", "median", "unit", "target / note")
real = [r for r in rows if r]
w = [max(len(r[i]) for r in real + [hdr]) for i in range(5)]
fmt = lambda r: "  ".join(c.ljust(w[i]) if i in (0, 3, 4) else c.rjust(w[i]) for i, c in enumerate(r)).rstrip()
print(fmt(hdr))
print("  ".join("-" * x for x in w))
for r in rows:
    print(fmt(r) if r else "")
print()
print(f"{data['rounds']} rounds: {data['transfer_iters']} transfers and {data['steps']} round trips per benchmark "
      f"per round ({len(s['recv_remote'])} and {len(s['step'])} samples); min/median over the samples; "
      f"the RecvTensor difference is min-min and median-median")
print(f"machine: nproc={sys.argv[2]}, cpu={sys.argv[3]}, load_avg before {sys.argv[4]}, after {sys.argv[5]}")
if os.environ.get("GLIBC_TUNABLES"):
    print(f"GLIBC_TUNABLES={os.environ['GLIBC_TUNABLES']} (every process of the run)")
PY
