#!/usr/bin/env bash
# What writing summaries costs a training step: the digits MLP
# (flowvm_digits, one session thread) trained without summaries (the peer)
# and with --logdir, in the same invocation. Target (issue 13): summaries
# every step cost at most 2% of the step time.
#
#   bash bench/run_summary_bench.sh [BUILD_DIR]      # default: build-bench
#
# Environment: NO_BUILD=1 (use the binaries in BUILD_DIR), STEPS=20000 and
# RUNS=9 (wall-clock runs of each configuration), CALLGRIND=0 to skip the
# instruction counts.
#
# Configurations, each against the same training without --logdir:
#   scalars   --histogram-every 0 --trace-every 0: loss, accuracy, learning
#             rate and examples/s every step (what the target is about)
#   default   --logdir alone: the scalars every step, weight histograms and
#             input images every 500 steps, a full step trace every 500
#
# Two measurements:
# - wall clock: the training loop's time ("training: ... us/step"), the
#   configurations alternating round by round; the overhead is the median
#   over rounds of each round's ratio to its own no-summary run, so a
#   slow patch of the machine cancels out. On a shared 2-vCPU guest one
#   run varies by +-5%, so this resolves a few percent at best;
# - instructions (valgrind's callgrind, deterministic): each configuration
#   at 1000 and 3000 steps; the difference / 2000 is the cost of a step
#   without the start-up, the slope compared with the no-summary slope.
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
build_dir=${1:-build-bench}
steps=${STEPS:-20000}
runs=${RUNS:-9}

if [[ "${NO_BUILD:-0}" != 1 ]]; then
  bash scripts/build.sh "$build_dir" -DFLOWVM_BUILD_TESTS=OFF -DFLOWVM_BUILD_BENCH=ON
fi
digits_bin="$build_dir/examples/flowvm_digits"
[[ -x "$digits_bin" ]] || { echo "run_summary_bench.sh: $digits_bin not found" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(--no-progress --threads 1)
config_args() {  # config run-id -> extra flags
  case $1 in
    none) ;;
    scalars) echo "--logdir $tmp/logs/$1-$2 --histogram-every 0 --trace-every 0" ;;
    default) echo "--logdir $tmp/logs/$1-$2" ;;
  esac
}
"$digits_bin" "${common[@]}" --steps 10 > /dev/null  # warm the page cache

echo "run_summary_bench.sh: $runs rounds of $steps steps (none, scalars, default)" >&2
for ((r = 0; r < runs; ++r)); do
  for config in none scalars default; do
    # shellcheck disable=SC2046
    secs=$("$digits_bin" "${common[@]}" --steps "$steps" $(config_args "$config" "w$r") |
      sed -n 's/^training: [0-9]* steps in \([0-9.]*\) s.*/\1/p')
    [[ -n $secs ]] || { echo "run_summary_bench.sh: no 'training:' line from $digits_bin" >&2; exit 1; }
    echo "wall $config $r $secs" >> "$tmp/results"
  done
done

if [[ "${CALLGRIND:-1}" == 1 ]] && command -v valgrind > /dev/null; then
  echo "run_summary_bench.sh: instruction counts under callgrind (about a minute)" >&2
  for config in none scalars default; do
    for n in 1000 3000; do
      # shellcheck disable=SC2046
      valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$digits_bin" "${common[@]}" --steps "$n" \
        $(config_args "$config" "cg$n") > /dev/null 2> "$tmp/cg.err"
      count=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/cg.err")
      echo "instr $config $n $count" >> "$tmp/results"
    done
  done
fi
event_bytes=$(find "$tmp/logs/scalars-w0" -name 'events.out.tfevents.*' -printf '%s')

python3 - "$tmp/results" "$steps" "$runs" "$event_bytes" <<'PY'
import statistics, sys
path, steps, runs, event_bytes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
wall, instr = {}, {}
for line in open(path):
    kind, config, key, value = line.split()
    if kind == "wall":
        wall.setdefault(config, {})[int(key)] = float(value)
    else:
        instr.setdefault(config, {})[int(key)] = int(value)
labels = {"scalars": "4 scalars every step", "default": "--logdir (+ histograms, images, traces /500)"}
print(f"digits MLP, 1 session thread; wall clock: {runs} rounds of {steps} steps, alternating")
base = statistics.median(wall["none"].values())
print(f"  {'configuration':<46} {'us/step':>8} {'overhead':>9}   (median of per-round ratios)")
print(f"  {'no summaries':<46} {1e6 * base / steps:8.2f}")
wall_overhead = {}
for config in ("scalars", "default"):
    ratios = [wall[config][r] / wall["none"][r] for r in wall["none"]]
    wall_overhead[config] = statistics.median(ratios) - 1
    t = statistics.median(wall[config].values())
    print(f"  {labels[config]:<46} {1e6 * t / steps:8.2f} {100 * wall_overhead[config]:8.2f}%"
          f"   (rounds: {min(ratios) - 1:+.1%} .. {max(ratios) - 1:+.1%})")
print(f"  event file of the scalars run: {event_bytes} bytes ({event_bytes / steps:.0f} bytes/step)")
verdict_value = wall_overhead["scalars"]
if instr:
    slope = {c: (instr[c][3000] - instr[c][1000]) / 2000 for c in instr}
    print("instructions per step (callgrind, (3000 steps - 1000 steps) / 2000):")
    print(f"  {'no summaries':<46} {slope['none']:10.0f}")
    for config in ("scalars", "default"):
        extra = slope[config] / slope["none"] - 1
        print(f"  {labels[config]:<46} {slope[config]:10.0f} {100 * extra:8.2f}%")
    verdict_value = slope["scalars"] / slope["none"] - 1
    source = "instructions"
else:
    source = "wall clock"
verdict = "PASS" if verdict_value <= 0.02 else "FAIL"
print(f"summaries every step: {100 * verdict_value:.2f}% of the step ({source}; target <= 2%): {verdict}")
PY
