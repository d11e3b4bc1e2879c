#!/usr/bin/env bash
# Null-step overhead against the number of workers (the OSDI'16 paper's
# Figure: a null step, 1.8 ms on 1 worker to 8.8 ms on 100). For N in
# WORKERS: a local cluster of one master task (/job:ps) and N worker tasks;
# each step runs one scalar Const per worker as a target (one RunGraph per
# worker, nothing moves between tasks). Prints the median of the master's
# step time (RunStats.run_ms: from the master's first RunGraph to its last
# answer) over STEPS steps, and its growth per added worker.
#
#   bash bench/run_step_scaling.sh [BUILD_DIR]        # WORKERS="1 2 4 8" STEPS=300
#
# Every task is a process on this machine: with more tasks than cores the
# figure measures CPU contention as much as the runtime, so read it with the
# core count printed at the top.
set -euo pipefail
build=${1:-build}
flowvm="$build/flowvm"
workers_list=${WORKERS:-"1 2 4 8"}
steps=${STEPS:-300}
[[ -x $flowvm ]] || { echo "run_step_scaling.sh: no $flowvm (build first)" >&2; exit 1; }
echo "cores: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg); $(lscpu | sed -n 's/^Model name: *//p')"
printf '%8s %14s %14s\n' workers "median ms" "per worker ms"
base=""
for n in $workers_list; do
  dir=$(mktemp -d)
  trap '"$flowvm" cluster down --dir "$dir/c" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
  "$flowvm" cluster up --ps 1 --workers "$n" --dir "$dir/c" >/dev/null 2>&1
  master="grpc://$(sed -n 's/.*"ps": *\[ *"\([^"]*\)".*/\1/p' "$dir/c/cluster.json")"
  targets=()
  : >"$dir/g.pbtxt"
  for ((i = 0; i < n; i++)); do
    cat >>"$dir/g.pbtxt" <<PBTXT
node { name: "c$i" op: "Const" device: "/job:worker/task:$i"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
PBTXT
    targets+=(--target "c$i")
  done
  "$flowvm" run "$dir/g.pbtxt" "${targets[@]}" --repeat "$steps" --target-server "$master" \
    --device-filter /job:worker --device-filter /job:ps -v 2>"$dir/v.txt" >/dev/null
  median=$(sed -n 's/.*main step .* in \([0-9.]*\) ms$/\1/p' "$dir/v.txt" | tail -n +2 | sort -n |
           awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  if [[ -z $base ]]; then base=$median; base_n=$n; fi
  per=$(awk -v m="$median" -v b="$base" -v n="$n" -v bn="$base_n" 'BEGIN { if (n > bn) printf "%.3f", (m - b) / (n - bn); else print "-" }')
  printf '%8d %14s %14s\n' "$n" "$median" "$per"
  "$flowvm" cluster down --dir "$dir/c" >/dev/null 2>&1 || true
  rm -rf "$dir"
  trap - EXIT
done
