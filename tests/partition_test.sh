#!/usr/bin/env bash
# A network partition: worker 1 runs in a network namespace of its own,
# joined to the rest of the cluster (ps 0, worker 0 and the client, in a
# second namespace) by a veth pair with addresses this test makes up
# (10.200.N.1/30 and 10.200.N.2/30; they exist only inside the two
# namespaces). Mid-step the link goes down: the master's health checks
# (every 500 ms, 1000 ms to answer) find worker 1 unreachable and the step
# fails with Unavailable naming it, within the configured bound (plus
# grace for a loaded machine). The link comes up again and the next
# session runs steps across all three tasks: nothing was restarted.
#
#   tests/partition_test.sh FLOWVM_BINARY
#
# Needs root (CAP_NET_ADMIN) and iproute2; exits 77 (ctest: skipped) with a
# message where network namespaces cannot be made. Removes every namespace
# (and so the veth pair) and process it made, also when it fails.
set -euo pipefail

flowvm=${1:?usage: partition_test.sh FLOWVM_BINARY}
tag="fvp$$"
ns_a="${tag}a"  # ps 0, worker 0, the client
ns_b="${tag}b"  # worker 1
subnet="10.200.$(( $$ % 250 ))"
addr_a="$subnet.1"
addr_b="$subnet.2"
interval_ms=500
timeout_ms=1000
grace_s=5
work=$(mktemp -d)
pids=()

cleanup() {
  set +e
  for pid in "${pids[@]}"; do kill -CONT "$pid" 2>/dev/null; kill -TERM "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  done
  # Deleting a namespace deletes the veth end in it, and so the pair.
  ip netns del "$ns_a" 2>/dev/null
  ip netns del "$ns_b" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAILED: $*"
  for f in "$work"/*.log "$work"/*.err; do [[ -f $f ]] && { echo "== $f"; cat "$f"; }; done
  exit 1
}

if ! ip netns add "$ns_a" 2>"$work/err"; then
  echo "SKIPPED: cannot create network namespaces here ($(cat "$work/err")); run as root with iproute2"
  exit 77
fi
ip netns add "$ns_b"
ip -n "$ns_a" link set lo up
ip -n "$ns_b" link set lo up
ip link add "${tag}x" netns "$ns_a" type veth peer name "${tag}y" netns "$ns_b"
ip -n "$ns_a" addr add "$addr_a/30" dev "${tag}x"
ip -n "$ns_b" addr add "$addr_b/30" dev "${tag}y"
ip -n "$ns_a" link set "${tag}x" up
ip -n "$ns_b" link set "${tag}y" up

# Each namespace is a fresh host: its ports are free.
cat >"$work/cluster.json" <<JSON
{"ps": ["$addr_a:2222"], "worker": ["$addr_a:2223", "$addr_b:2222"]}
JSON
# A server on an address other than loopback must say it runs without TLS,
# where the server knows that flag.
insecure=()
if "$flowvm" help 2>&1 | grep -q -- "--insecure"; then insecure=(--insecure); fi
start_server() {  # ns job task
  ip netns exec "$1" "$flowvm" server --cluster "$work/cluster.json" --job "$2" --task "$3" "${insecure[@]}" \
    >"$work/$2-$3.log" 2>&1 &
  pids+=($!)
}
start_server "$ns_a" ps 0
start_server "$ns_a" worker 0
start_server "$ns_b" worker 1
target="grpc://$addr_a:2223"

# c = (a * x on worker 1) + a on worker 0, a on ps; x fed.
cat >"$work/across.pbtxt" <<'PBTXT'
node { name: "a" op: "Const" device: "/job:ps/task:0"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 } } } }
node { name: "three" op: "Const" device: "/job:worker/task:1"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 3 } } } }
node { name: "b" op: "Mul" input: "a" input: "three" device: "/job:worker/task:1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "c" op: "Add" input: "b" input: "a" device: "/job:worker/task:0" attr { key: "T" value { type: DT_FLOAT } } }
PBTXT
run_across() {  # what: a step across the three tasks must work
  local out
  out=$(timeout 120 ip netns exec "$ns_a" "$flowvm" run "$work/across.pbtxt" --fetch c --target-server "$target" \
          --output-dir "$work" --connect-timeout-ms 30000 2>"$work/across.err") ||
    fail "$1: the step across the tasks failed"
  grep -q "c:0 float \[2\] \[4 8\]" <<<"$out" || fail "$1: wrong result: $out"
}
run_across "before the partition"

# Seconds of MatMuls on worker 1, summed on worker 0.
{
  cat <<'PBTXT'
node { name: "shape" op: "Const" device: "/job:worker/task:1"
       attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 1500 int_val: 1500 } } } }
node { name: "m0" op: "RandomUniform" input: "shape" device: "/job:worker/task:1"
       attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } } }
PBTXT
  for i in $(seq 1 300); do
    echo "node { name: \"m$i\" op: \"MatMul\" input: \"m$((i - 1))\" input: \"m0\" device: \"/job:worker/task:1\" attr { key: \"T\" value { type: DT_FLOAT } } }"
  done
  cat <<'PBTXT'
node { name: "axes" op: "Const" device: "/job:worker/task:0"
       attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 0 int_val: 1 } } } }
node { name: "total" op: "Sum" input: "m300" input: "axes" device: "/job:worker/task:0"
       attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } } }
PBTXT
} >"$work/slow.pbtxt"

timeout 120 ip netns exec "$ns_a" "$flowvm" run "$work/slow.pbtxt" --fetch total --target-server "$target" \
  --output-dir "$work" --health-check-interval-ms "$interval_ms" --health-check-timeout-ms "$timeout_ms" \
  >"$work/slow.out" 2>"$work/slow.err" &
client=$!
pids+=("$client")
sleep 1.5
kill -0 "$client" 2>/dev/null || fail "the slow step ended before the partition"
ip -n "$ns_a" link set "${tag}x" down
down_at=$(date +%s%N)
rc=0
wait "$client" || rc=$?
detected_ms=$(( ($(date +%s%N) - down_at) / 1000000 ))
err=$(cat "$work/slow.err")
echo "the client heard of the partition ${detected_ms} ms after the link went down: $err"
[[ $rc -eq 1 ]] || fail "the step should fail with exit status 1, got $rc"
grep -q "Unavailable" <<<"$err" || fail "the error is not Unavailable"
grep -q "/job:worker/replica:0/task:1" <<<"$err" || fail "the error does not name worker 1"
if grep -q "health check" <<<"$err"; then
  grep -q "within $timeout_ms ms" <<<"$err" || fail "the health check's error does not give its bound"
fi
bound_ms=$(( interval_ms + timeout_ms + grace_s * 1000 ))
(( detected_ms <= bound_ms )) || fail "the partition was found after $detected_ms ms (bound with grace: $bound_ms ms)"

# The partition heals: the same servers (none restarted) serve a new session.
ip -n "$ns_a" link set "${tag}x" up
for pid in "${pids[@]:0:3}"; do kill -0 "$pid" 2>/dev/null || fail "server pid $pid died in the partition"; done
run_across "after the partition healed"
echo "PASSED: a partition of worker 1 failed the step in ${detected_ms} ms naming the task; the next session worked"
