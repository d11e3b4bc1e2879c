#!/usr/bin/env bash
# What writing summaries costs a training step: the digits MLP
# (flowvm_digits) trained for the same steps without summaries and with
# --logdir, alternating, several runs of each; prints the medians and the
# overhead. Target (issue 13): summaries every step cost at most 2% of the
# step time.
#
#   bash bench/run_summary_bench.sh [BUILD_DIR]      # default: build-bench
#
# Environment: NO_BUILD=1 (use the binaries in BUILD_DIR), STEPS=20000,
# RUNS=7 (runs of each configuration).
# Configurations, each against the same run without --logdir:
#   scalars     --summary-every 1 --histogram-every 0 --trace-every 0
#               (loss, accuracy, learning rate, examples/s every step)
#   default     --logdir alone: scalars every step, weight histograms every
#               100 steps, a full step trace every 100 steps
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
build_dir=${1:-build-bench}
steps=${STEPS:-20000}
runs=${RUNS:-7}

if [[ "${NO_BUILD:-0}" != 1 ]]; then
  bash scripts/build.sh "$build_dir" -DFLOWVM_BUILD_TESTS=OFF -DFLOWVM_BUILD_BENCH=ON
fi
digits_bin="$build_dir/examples/flowvm_digits"
[[ -x "$digits_bin" ]] || { echo "run_summary_bench.sh: $digits_bin not found" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Single-threaded sessions: the step is then the same work every run, and
# the other core absorbs the machine's noise.
common=(--steps "$steps" --no-progress --threads 1)
"$digits_bin" "${common[@]}" --steps 10 > /dev/null  # warm the page cache

timings="$tmp/timings"
for ((r = 0; r < runs; ++r)); do
  for config in none scalars default; do
    args=("${common[@]}")
    case $config in
      scalars) args+=(--logdir "$tmp/logs/$config-$r" --summary-every 1 --histogram-every 0 --trace-every 0) ;;
      default) args+=(--logdir "$tmp/logs/$config-$r") ;;
    esac
    # "training: N steps in X s (Y us/step)": the loop alone, no setup.
    secs=$("$digits_bin" "${args[@]}" | sed -n 's/^training: [0-9]* steps in \([0-9.]*\) s.*/\1/p')
    [[ -n $secs ]] || { echo "run_summary_bench.sh: no 'training:' line from $digits_bin" >&2; exit 1; }
    echo "$config $secs" >> "$timings"
  done
done
events=$(find "$tmp/logs/scalars-0" -name 'events.out.tfevents.*' -printf '%s')

python3 - "$timings" "$steps" "$runs" "$events" <<'PY'
import statistics, sys
path, steps, runs, events = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
times = {}
for line in open(path):
    config, secs = line.split()
    times.setdefault(config, []).append(float(secs))
base = statistics.median(times["none"])
print(f"digits MLP, {steps} steps, {runs} runs of each, alternating (medians):")
print(f"  {'configuration':<40} {'seconds':>8} {'us/step':>8} {'overhead':>9}")
print(f"  {'no summaries':<40} {base:8.3f} {1e6 * base / steps:8.2f} {'':>9}")
worst = 0
for config, label in (("scalars", "4 scalars every step"),
                      ("default", "--logdir (+ histograms, traces /100)")):
    t = statistics.median(times[config])
    overhead = (t - base) / base
    if config == "scalars":
        worst = overhead
    print(f"  {label:<40} {t:8.3f} {1e6 * t / steps:8.2f} {100 * overhead:8.2f}%")
print(f"  event file of the scalars run: {events} bytes ({events / steps:.0f} bytes/step)")
verdict = "PASS" if worst <= 0.02 else "FAIL"
print(f"summaries every step: {100 * worst:.2f}% of the step time (target <= 2%): {verdict}")
PY
