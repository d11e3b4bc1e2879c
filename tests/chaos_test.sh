#!/usr/bin/env bash
# Chaos test: the digits MLP trained on a local cluster (1 ps, 2 workers,
# the chief on worker 0; `flowvm cluster up --restart`, so a task whose
# process dies is restarted) by examples/distributed_digits.cc in --mode
# sync under the training supervisor (--checkpoint-dir), while a fault
# injector kills a randomly chosen task with SIGKILL, stops one with
# SIGSTOP (and SIGCONT after a while), or restarts one (`flowvm cluster
# restart`) at random moments. The faults are drawn from a seed before the
# run starts and printed, so a failing run can be replayed with the same
# faults (their moments relative to training vary with the machine).
#
# It first trains the same model undisturbed on the same cluster (the
# reference; or takes FLOWVM_CHAOS_REFERENCE_ACCURACY), then the disturbed
# run, which must finish with a test accuracy within 0.5 points of the
# reference. Every fault is logged (time, task, pid, kind), every restart
# by the cluster's manager and every recovery by the supervisor; at the
# end it prints the faults injected and survived and the time lost.
#
#   tests/chaos_test.sh FLOWVM_BINARY DISTRIBUTED_DIGITS_BINARY
#
# Environment (defaults: the CI run, under a minute on 2 cores):
#   FLOWVM_CHAOS_SEED=4             the faults' seed (4: each kind, each task)
#   FLOWVM_CHAOS_FAULTS=4           how many faults to inject (fewer if training ends first)
#   FLOWVM_CHAOS_STEPS=2000         training steps
#   FLOWVM_CHAOS_SAVE_EVERY=100     checkpoint every N steps
#   FLOWVM_CHAOS_GAP_MS=1000:3000   pause before each fault, once the cluster is whole
#   FLOWVM_CHAOS_STOP_MS=500:3000   how long a SIGSTOPped task stays stopped
#   FLOWVM_CHAOS_KINDS="kill stop restart"
#   FLOWVM_CHAOS_TASKS="ps-0 worker-0 worker-1"
#   FLOWVM_CHAOS_REFERENCE_ACCURACY  e.g. 97.21: skip the undisturbed run
#   FLOWVM_CHAOS_TIMEOUT_S=600      bound on each training run
#   FLOWVM_CHAOS_KEEP=1             keep the work directory (logs, checkpoints)
# A longer soak is the same script with more faults and steps, e.g.
#   FLOWVM_CHAOS_FAULTS=100 FLOWVM_CHAOS_STEPS=80000 FLOWVM_CHAOS_SEED=7 tests/chaos_test.sh build/flowvm \
#     build/examples/flowvm_distributed_digits
set -euo pipefail

flowvm=${1:?usage: chaos_test.sh FLOWVM_BINARY DISTRIBUTED_DIGITS_BINARY}
digits=${2:?usage: chaos_test.sh FLOWVM_BINARY DISTRIBUTED_DIGITS_BINARY}
seed=${FLOWVM_CHAOS_SEED:-4}
faults=${FLOWVM_CHAOS_FAULTS:-4}
steps=${FLOWVM_CHAOS_STEPS:-2000}
save_every=${FLOWVM_CHAOS_SAVE_EVERY:-100}
gap_ms=${FLOWVM_CHAOS_GAP_MS:-1000:3000}
stop_ms=${FLOWVM_CHAOS_STOP_MS:-500:3000}
read -r -a kinds <<<"${FLOWVM_CHAOS_KINDS:-kill stop restart}"
read -r -a tasks <<<"${FLOWVM_CHAOS_TASKS:-ps-0 worker-0 worker-1}"
reference_accuracy=${FLOWVM_CHAOS_REFERENCE_ACCURACY:-}
run_timeout=${FLOWVM_CHAOS_TIMEOUT_S:-600}
max_difference=0.5

work=$(mktemp -d "${TMPDIR:-/tmp}/flowvm-chaos.XXXXXX")
cluster="$work/cluster"
log="$work/chaos.log"
trainer_pid=""
stopped_pid=""

cleanup() {
  set +e
  [[ -n $stopped_pid ]] && kill -CONT "$stopped_pid" 2>/dev/null
  if [[ -n $trainer_pid ]] && kill -0 "$trainer_pid" 2>/dev/null; then
    kill -TERM "$trainer_pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$trainer_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$trainer_pid" 2>/dev/null
  fi
  # Stops the manager first (nothing is restarted meanwhile), then every task.
  [[ -f $cluster/cluster.json ]] && "$flowvm" cluster down --dir "$cluster" >/dev/null 2>&1
  if [[ ${FLOWVM_CHAOS_KEEP:-0} == 1 ]]; then echo "chaos: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 143' TERM INT  # (the EXIT trap cleans up)

say() { echo "chaos: $(date '+%F %T.%3N') $*" | tee -a "$log"; }
fail() {
  say "FAILED: $*"
  for f in "$cluster/manager.log" "$work"/*.out; do [[ -f $f ]] && { echo "== $f"; tail -n 60 "$f"; }; done
  exit 1
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# Sets `drawn` to a number in [lo, hi] ("lo:hi") from bash's seeded RANDOM
# (not in a subshell: a subshell reseeds it).
draw() { local lo=${1%:*} hi=${1#*:}; drawn=$(( lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 1) )); }
seconds() { awk -v ms="$1" 'BEGIN { printf "%.1f", ms / 1000 }'; }

# ---- the plan: every fault drawn from the seed before anything runs ----
RANDOM=$seed
plan_kind=() plan_task=() plan_gap=() plan_hold=()
for ((i = 0; i < faults; i++)); do
  plan_kind+=("${kinds[RANDOM % ${#kinds[@]}]}")
  plan_task+=("${tasks[RANDOM % ${#tasks[@]}]}")
  draw "$gap_ms"
  plan_gap+=("$drawn")
  draw "$stop_ms"
  plan_hold+=("$drawn")
done
say "seed $seed: $faults faults over $steps steps (checkpoint every $save_every); replay with FLOWVM_CHAOS_SEED=$seed"
for ((i = 0; i < faults; i++)); do
  hold=""
  [[ ${plan_kind[i]} == stop ]] && hold=" for $(seconds "${plan_hold[i]}") s"
  say "  plan $((i + 1)): after $(seconds "${plan_gap[i]}") s, ${plan_kind[i]} ${plan_task[i]}$hold"
done

# ---- the cluster: restarted tasks come back at once, without limit ----
# The checkpoints are written by the chief's server: allow it the work dir.
target=$("$flowvm" cluster up --ps 1 --workers 2 --dir "$cluster" --restart --max-restarts 1000 \
           --restart-backoff-ms 100 --allow-dir "$work" 2>"$work/up.err") || { cat "$work/up.err"; fail "the cluster did not come up"; }
say "cluster up at $target ($cluster)"

train_flags=(--mode sync --target "$target" --workers 2 --steps "$steps" --no-progress --save-every "$save_every"
             --health-check-interval-ms 500 --health-check-timeout-ms 1000 --cluster-wait-ms 60000)
accuracy_of() { sed -n 's/^test accuracy: \([0-9.]*\)%.*/\1/p' "$work/$1.out" | tail -n 1; }

# ---- the reference: the same training, undisturbed ----
reference_ms=""
if [[ -z $reference_accuracy ]]; then
  start=$(now_ms)
  timeout "$run_timeout" "$digits" "${train_flags[@]}" --checkpoint-dir "$work/reference.ckpt" \
    >"$work/reference.out" 2>&1 || fail "the undisturbed run failed"
  reference_ms=$(( $(now_ms) - start ))
  reference_accuracy=$(accuracy_of reference)
  [[ -n $reference_accuracy ]] || fail "the undisturbed run printed no test accuracy"
  say "undisturbed run: test accuracy $reference_accuracy% in $(seconds "$reference_ms") s"
fi

# ---- the disturbed run ----
# Whether every task runs (its pid file names a live process that is not
# stopped, and not one the injector killed or restarted: its pid file may
# name it for a moment after the kill): the cluster is whole again.
gone=" "
whole() {
  local t pid state
  for t in "${tasks[@]}"; do
    pid=$(cat "$cluster/$t.pid" 2>/dev/null) || return 1
    [[ $gone != *" $pid "* ]] || return 1
    state=$(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$pid/stat" 2>/dev/null) || return 1
    [[ -n $state && $state != [TtZX] ]] || return 1
  done
}
training() { kill -0 "$trainer_pid" 2>/dev/null; }
# Sleeps `ms` while training goes on; false if training ended.
pause() {
  local until=$(( $(now_ms) + $1 ))
  while (( $(now_ms) < until )); do training || return 1; sleep 0.05; done
}

start=$(now_ms)
timeout "$run_timeout" "$digits" "${train_flags[@]}" --checkpoint-dir "$work/disturbed.ckpt" \
  >"$work/disturbed.out" 2>&1 &
trainer_pid=$!
injected=0
kills=() restarts=()  # "task pid" of each, to find the manager's answer
for ((i = 0; i < faults; i++)); do
  # Wait for the cluster to be whole again (bounded), then the drawn pause.
  is_whole=0
  for _ in $(seq 1200); do
    if whole; then is_whole=1; break; fi
    training || break
    sleep 0.05
  done
  training || break
  (( is_whole )) || fail "the cluster was not whole 60 s after fault $i"
  pause "${plan_gap[i]}" || break
  task=${plan_task[i]}
  pid=$(cat "$cluster/$task.pid" 2>/dev/null) || { say "fault $((i + 1)): $task has no pid now; skipped"; continue; }
  injected=$((injected + 1))
  case ${plan_kind[i]} in
    kill)
      say "fault $injected: SIGKILL $task (pid $pid)"
      kill -KILL "$pid"
      gone+="$pid "
      kills+=("$task $pid")
      ;;
    stop)
      say "fault $injected: SIGSTOP $task (pid $pid) for $(seconds "${plan_hold[i]}") s"
      kill -STOP "$pid"
      stopped_pid=$pid
      sleep "$(seconds "${plan_hold[i]}")"
      kill -CONT "$pid"
      stopped_pid=""
      say "fault $injected: SIGCONT $task (pid $pid)"
      ;;
    restart)
      say "fault $injected: restart $task (pid $pid) with flowvm cluster restart"
      gone+="$pid "
      new=$("$flowvm" cluster restart --dir "$cluster" --task "$task" 2>>"$log") ||
        fail "flowvm cluster restart --task $task failed"
      say "fault $injected: $task restarted as pid $new"
      restarts+=("$task $pid")
      ;;
  esac
done
(( injected < faults )) && say "training ended after $injected of $faults faults"
rc=0
wait "$trainer_pid" || rc=$?
trainer_pid=""
disturbed_ms=$(( $(now_ms) - start ))
[[ $rc -eq 0 ]] || fail "the disturbed run failed (exit status $rc) after $injected faults"
accuracy=$(accuracy_of disturbed)
[[ -n $accuracy ]] || fail "the disturbed run printed no test accuracy"

# ---- what the logs say ----
echo "---- the supervisor (faults and recoveries) ----"
grep -E '^supervisor:|^faults survived' "$work/disturbed.out" || true
echo "---- the cluster's manager (deaths and restarts) ----"
grep -vE ': (started|managing) ' "$cluster/manager.log" || true
echo "----"
manager_log=$(cat "$cluster/manager.log")
for k in "${kills[@]}"; do
  read -r task pid <<<"$k"
  grep -q "$task (pid $pid) was killed by SIGKILL" <<<"$manager_log" || fail "the manager did not see $task (pid $pid) die"
done
for r in "${restarts[@]}"; do
  read -r task pid <<<"$r"
  grep -q "restart of $task (pid $pid) requested" <<<"$manager_log" || fail "the manager did not restart $task (pid $pid)"
done
grep -q "giving up" <<<"$manager_log" && fail "the manager gave up on a task"
restarted=$(grep -c "flowvm cluster manager: restarted " <<<"$manager_log" || true)
survived=$(sed -n 's/^faults survived: \([0-9]*\).*/\1/p' "$work/disturbed.out" | tail -n 1)
supervisor_lost=$(sed -n 's/^faults survived: .*time lost: \([0-9.]*\) s.*/\1/p' "$work/disturbed.out" | tail -n 1)

say "faults injected: $injected (${#kills[@]} SIGKILL, $((injected - ${#kills[@]} - ${#restarts[@]})) SIGSTOP, ${#restarts[@]} restarts); tasks restarted by the manager: $restarted"
say "faults survived: $injected (the run finished); recoveries by the supervisor: ${survived:-?}"
if [[ -n $reference_ms ]]; then
  say "time: $(seconds "$disturbed_ms") s disturbed, $(seconds "$reference_ms") s undisturbed: $(seconds $((disturbed_ms - reference_ms))) s lost (the supervisor counts ${supervisor_lost:-?} s)"
else
  say "time: $(seconds "$disturbed_ms") s disturbed (the supervisor counts ${supervisor_lost:-?} s lost)"
fi
fp_ref=""
[[ -f $work/reference.out ]] && fp_ref=$(sed -n 's/^weights fingerprint: //p' "$work/reference.out" | tail -n 1)
fp=$(sed -n 's/^weights fingerprint: //p' "$work/disturbed.out" | tail -n 1)
if [[ -n $fp_ref && -n $fp ]]; then
  say "weights fingerprint: $fp (undisturbed: $fp_ref$([[ $fp == "$fp_ref" ]] && echo ', the same' || true))"
fi
say "test accuracy: $accuracy% (undisturbed: $reference_accuracy%)"
awk -v a="$accuracy" -v r="$reference_accuracy" -v m="$max_difference" \
  'BEGIN { d = a - r; if (d < 0) d = -d; exit !(d <= m) }' ||
  fail "the accuracy $accuracy% is more than $max_difference points from the undisturbed $reference_accuracy%"
say "PASSED"
