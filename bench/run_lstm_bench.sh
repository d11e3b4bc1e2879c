#!/usr/bin/env bash
# The LSTM classifier's training step (examples/tf1/lstm_classifier.py's
# model: batch 64, 28 steps x 28 inputs, 128 units, 10 classes, Adam) in
# flowvm from Python (tf.nn.dynamic_rnn over tf.nn.rnn_cell.BasicLSTMCell)
# against the same model in PyTorch (torch.nn.LSTM, CPU, eager), each side
# in its own process, alternating, in the same run; prints ms/step of both
# and the ratio flowvm/PyTorch.
#
#   bash bench/run_lstm_bench.sh [BUILD_DIR]      # default: build
#
# Environment: REPS (5) rounds, THREADS (2) for both sides, STEPS (60)
# timed steps per round and side, PROFILE=N to end with N traced flowvm
# steps summed by op type, NO_BUILD=1 to skip building flowvm_python,
# TORCH_OMP_WAIT_POLICY (passive) for PyTorch's OpenMP threads: with its
# default (spinning) policy, 2 threads on a 2-vCPU machine that anything
# else is using take 20-40x longer per step (0.4-1.2 s instead of 30-60 ms),
# which would measure the contention, not the model.
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"
build_dir=${1:-build}
reps=${REPS:-5}
threads=${THREADS:-2}
steps=${STEPS:-60}
if [[ "${NO_BUILD:-0}" != 1 ]]; then
  cmake --build "$build_dir" --target flowvm_python -j2 >&2
fi
if [[ -z "${OPENBLAS_CORETYPE:-}" ]]; then
  if grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX
  elif grep -qw avx2 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Haswell
  fi
fi
export PYTHONPATH="$repo_root/$build_dir/python"
py=/usr/bin/python3
bench=bench/python/train_lstm.py

rounds=()
for ((r = 1; r <= reps; r++)); do
  out=$("$py" "$bench" --impl flowvm --threads "$threads" --steps "$steps")
  echo "$out" | grep -v '^MS_PER_STEP' >&2
  f=$(echo "$out" | sed -n 's/^MS_PER_STEP=//p')
  out=$(OMP_WAIT_POLICY=${TORCH_OMP_WAIT_POLICY:-passive} "$py" "$bench" --impl torch --threads "$threads" \
        --steps "$steps")
  echo "$out" | grep -v '^MS_PER_STEP' >&2
  t=$(echo "$out" | sed -n 's/^MS_PER_STEP=//p')
  echo "round $r: flowvm $f ms, PyTorch $t ms" >&2
  rounds+=("$f,$t")
done
"$py" - "${rounds[@]}" <<'PY'
import statistics, sys
rows = [tuple(float(v) for v in r.split(",")) for r in sys.argv[1:]]
f, t = [r[0] for r in rows], [r[1] for r in rows]
ratios = [a / b for a, b in rows]
print("LSTM classifier training step (batch 64, 28x28, 128 units, Adam), %d rounds:" % len(rows))
print("  flowvm (dynamic_rnn, Python): %.3f ms/step (median of round medians; min %.3f)" % (statistics.median(f), min(f)))
print("  PyTorch (torch.nn.LSTM, CPU): %.3f ms/step (min %.3f)" % (statistics.median(t), min(t)))
print("  ratio flowvm/PyTorch: median %.3f, per round %s" % (statistics.median(ratios),
                                                           ", ".join("%.2f" % x for x in ratios)))
PY
if [[ "${PROFILE:-0}" != 0 ]]; then
  "$py" "$bench" --impl flowvm --threads "$threads" --steps 10 --profile "$PROFILE"
fi
echo "machine: nproc=$(nproc), cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), load $(cut -d' ' -f1 /proc/loadavg)"
