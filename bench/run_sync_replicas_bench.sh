#!/usr/bin/env bash
# Synchronous training with backup workers (cc/sync_replicas.h) on a local
# cluster: 1 ps + 3 workers (`flowvm cluster up`), one flowvm_sync_replicas
# client per worker task. Global steps per second, as the chief sees them,
# with all workers running and with worker 2 (its server and its client)
# stopped with SIGSTOP, for
#   - N=2 of 3 (one backup worker): the step needs any 2 workers' gradients;
#   - N=3 of 3 (no backup): 3 gradients per step. N counts gradients, not
#     workers: the token a stopped worker does not take lets another worker
#     compute the step again (at the current global step), so this does not
#     stall either; the others contribute a second gradient to each step.
# Benchmarks report: the script fails only if something does not run.
#
#   bash bench/run_sync_replicas_bench.sh [BUILD_DIR]      # default: build
#
# Environment: WINDOW=5 (seconds per measurement), DIM=256, BATCH=64 (the
# least-squares model of examples/sync_replicas.cc), POLL_MS=1000,
# NO_BUILD=1 to skip building flowvm and flowvm_sync_replicas.
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
build_dir=${1:-build}
window=${WINDOW:-5}
dim=${DIM:-256}
batch=${BATCH:-64}
poll_ms=${POLL_MS:-1000}
if [[ "${NO_BUILD:-0}" != 1 ]]; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$repo_root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
  [[ -f "$build_dir/CMakeCache.txt" ]] || cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build "$build_dir" --target flowvm_cli flowvm_sync_replicas
fi
cli="$build_dir/flowvm"
program="$build_dir/examples/flowvm_sync_replicas"
for f in "$cli" "$program"; do [[ -x "$f" ]] || { echo "run_sync_replicas_bench.sh: $f not found" >&2; exit 1; }; done

work=$(mktemp -d /tmp/flowvm_sync_bench_XXXXXX)
clients=()
stopped=()
cleanup() {
  for p in "${stopped[@]}"; do kill -CONT "$p" 2> /dev/null || true; done
  for p in "${clients[@]}"; do kill -9 "$p" 2> /dev/null || true; done
  "$cli" cluster down --dir "$work/cluster" > /dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# The chief's last "next step M" line.
chief_step() { grep -o 'next step [0-9]*' "$work/w0.out" 2> /dev/null | tail -n 1 | awk '{print $3}'; }
now() { date +%s.%N; }
# Steps per second over WINDOW seconds.
rate() {
  local s0 t0 s1 t1
  s0=$(chief_step); t0=$(now)
  sleep "$window"
  s1=$(chief_step); t1=$(now)
  awk -v a="$s0" -v b="$s1" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.1f", (b - a) / (t1 - t0) }'
}

run_config() {
  local aggregate=$1
  rm -rf "$work/cluster" "$work"/w*.out "$work"/w*.err "$work/stop"
  "$cli" cluster up --dir "$work/cluster" --ps 1 --workers 3 > /dev/null
  clients=()
  for i in 0 1 2; do
    local address
    address=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['worker'][int(sys.argv[2])])" \
      "$work/cluster/cluster.json" "$i")
    "$program" --target "grpc://$address" --task "$i" --workers 3 --replicas-to-aggregate "$aggregate" \
      --steps 1000000000 --dim "$dim" --batch "$batch" --poll-ms "$poll_ms" --stop-file "$work/stop" \
      > "$work/w$i.out" 2> "$work/w$i.err" &
    clients+=($!)
  done
  sleep 2  # start-up and warm-up
  local all one
  all=$(rate)
  local server
  server=$(cat "$work/cluster/worker-2.pid")
  kill -STOP "$server" "${clients[2]}"
  stopped=("$server" "${clients[2]}")
  sleep 1
  one=$(rate)
  kill -CONT "${stopped[@]}"
  stopped=()
  touch "$work/stop"
  for p in "${clients[@]}"; do wait "$p" || echo "a client failed: $(cat "$work"/w*.err)" >&2; done
  clients=()
  "$cli" cluster down --dir "$work/cluster" > /dev/null
  printf "N=%d of 3 workers: %8s steps/s with all 3 running, %8s steps/s with worker 2 stopped\n" "$aggregate" "$all" "$one"
}

echo "sync replicas bench: dim $dim, batch $batch, window ${window}s, poll ${poll_ms} ms, $(nproc) CPUs"
run_config 2
run_config 3
