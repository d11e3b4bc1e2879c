#!/usr/bin/env bash
# Several hosts: three network namespaces (three "machines", each with its
# own address) joined by veth pairs to a fourth that switches between them,
# one `flowvm server` per machine listening on its own address, and a
# client on the first machine that runs steps across all three. Nothing
# listens on, or sends to, any other address.
#
#   tests/several_hosts_test.sh FLOWVM_BINARY [DISTRIBUTED_DIGITS_BINARY]
#
# With the second program it also trains the digits MLP across the machines
# (examples/distributed_digits.cc, synchronous data parallelism).
#
# Needs root (CAP_NET_ADMIN) and iproute2; exits 77 (ctest: skipped) with a
# message where network namespaces cannot be made.
set -euo pipefail

flowvm=${1:?usage: several_hosts_test.sh FLOWVM_BINARY [DISTRIBUTED_DIGITS_BINARY]}
digits=${2:-}
tag="fv$$"
switch="${tag}s"
hosts=("${tag}a" "${tag}b" "${tag}c")
subnet="10.213.$(( $$ % 250 ))"
work=$(mktemp -d)
pids=()

cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  for ns in "${hosts[@]}" "$switch"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

if ! ip netns add "$switch" 2>"$work/err"; then
  echo "SKIPPED: cannot create network namespaces here ($(cat "$work/err")); run as root with iproute2"
  exit 77
fi
ip -n "$switch" link add br0 type bridge
ip -n "$switch" link set br0 up
ip -n "$switch" link set lo up
for i in 0 1 2; do
  ns=${hosts[$i]}
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  # veth pair: eth0 in the host, port$i in the switch, on the bridge.
  ip link add "${tag}h$i" netns "$ns" type veth peer name "${tag}p$i" netns "$switch"
  ip -n "$ns" link set "${tag}h$i" name eth0
  ip -n "$ns" addr add "$subnet.$((i + 1))/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$switch" link set "${tag}p$i" master br0
  ip -n "$switch" link set "${tag}p$i" up
done

# Host a: ps; hosts b and c: the workers. One port for all: each host has
# its own address.
port=2222
# A secure cluster, as one on real machines must be: TLS with client
# certificates of the cluster's CA, and a cluster token.
bash "$(dirname "${BASH_SOURCE[0]}")/tls/make_test_certs.sh" "$work/tls" "$subnet.1" "$subnet.2" "$subnet.3"
creds=(--tls-ca "$work/tls/ca.pem" --tls-cert "$work/tls/task.pem" --tls-key "$work/tls/task.key"
       --token-file "$work/tls/token")
client_creds=(--tls-ca "$work/tls/ca.pem" --tls-cert "$work/tls/client.pem" --tls-key "$work/tls/client.key"
              --token-file "$work/tls/token")
cat >"$work/cluster.json" <<JSON
{"ps": ["$subnet.1:$port"], "worker": ["$subnet.2:$port", "$subnet.3:$port"]}
JSON
start_server() {  # ns job task
  ip netns exec "$1" "$flowvm" server --cluster "$work/cluster.json" --job "$2" --task "$3" "${creds[@]}" \
    >"$work/$2-$3.log" 2>&1 &
  pids+=($!)
}
start_server "${hosts[0]}" ps 0
start_server "${hosts[1]}" worker 0
start_server "${hosts[2]}" worker 1

# Training across the machines: w (on ps, host a) moves toward the target
# by SGD steps whose gradient is computed on the workers (hosts b and c).
cat >"$work/train.pbtxt" <<'PBTXT'
node { name: "w" op: "VariableV2" device: "/job:ps/task:0"
       attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "zeros" op: "Const" device: "/job:ps/task:0"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 float_val: 0 } } } }
node { name: "init" op: "Assign" input: "w" input: "zeros" device: "/job:ps/task:0" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "target" op: "Const" device: "/job:worker/task:0"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 3 float_val: -1 } } } }
node { name: "diff" op: "Sub" input: "w" input: "target" device: "/job:worker/task:0" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "half" op: "Const" device: "/job:worker/task:1"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.5 } } } }
node { name: "step" op: "Mul" input: "diff" input: "half" device: "/job:worker/task:1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "update" op: "AssignSub" input: "w" input: "step" device: "/job:ps/task:0" attr { key: "T" value { type: DT_FLOAT } } }
PBTXT

# The client is on host a; it waits for the cluster (connect timeout).
out=$(ip netns exec "${hosts[0]}" "$flowvm" run "$work/train.pbtxt" --init init --target update --fetch w \
        --repeat 60 --target-server "grpc://$subnet.2:$port" --connect-timeout-ms 20000 --output-dir "$work" -v \
        "${client_creds[@]}" 2>"$work/run.err") || {
  echo "FAILED: the client failed:"; cat "$work/run.err"; for f in "$work"/*.log; do echo "== $f"; cat "$f"; done; exit 1; }
echo "$out"
grep -q "w:0 float \[2\] \[3 -1\]" <<<"$out" || { echo "FAILED: w did not converge to [3 -1]"; cat "$work/run.err"; exit 1; }
# The steps crossed the machines.
grep -q "/job:worker/replica:0/task:1" "$work/run.err" || { echo "FAILED: nothing ran on worker 1"; exit 1; }
# Every server listens on its own address only.
for i in 0 1 2; do
  # (an IPv4 address may show in its IPv6-mapped form, [::ffff:a.b.c.d]:port)
  listening=$(ip netns exec "${hosts[$i]}" ss -Hltn | awk '{print $4}' | sed -e 's/^\[::ffff:\(.*\)\]/\1/')
  [[ "$listening" == "$subnet.$((i + 1)):$port" ]] || { echo "FAILED: host $i listens on: $listening"; exit 1; }
done
# Clients without the cluster's credentials are refused.
grep -q "TLS, callers must present a certificate of the cluster's CA, cluster token required" "$work/ps-0.log" || {
  echo "FAILED: the server did not say how it is secured:"; cat "$work/ps-0.log"; exit 1; }
refused() {  # what ... : the run must fail with the given text
  local what=$1 expect=$2; shift 2
  if ip netns exec "${hosts[0]}" "$flowvm" run "$work/train.pbtxt" --fetch w --target-server "grpc://$subnet.2:$port" \
       --connect-timeout-ms 1500 --output-dir "$work" "$@" >"$work/refused.out" 2>&1; then
    echo "FAILED: a client with $what was let in"; exit 1
  fi
  grep -q "$expect" "$work/refused.out" || { echo "FAILED: a client with $what: unexpected error:"; cat "$work/refused.out"; exit 1; }
  echo "refused as it should be: a client with $what"
}
refused "no credentials" "did not answer"
refused "TLS but no certificate" "did not answer" --tls-ca "$work/tls/ca.pem" --token-file "$work/tls/token"
refused "a certificate of another CA" "did not answer" --tls-ca "$work/tls/ca.pem" --tls-cert "$work/tls/rogue.pem" \
  --tls-key "$work/tls/rogue.key" --token-file "$work/tls/token"
refused "a certificate but no token" "PermissionDenied" --tls-ca "$work/tls/ca.pem" --tls-cert "$work/tls/client.pem" \
  --tls-key "$work/tls/client.key"
if grep -q "$(cat "$work/tls/token")" "$work"/*.log "$work/refused.out"; then echo "FAILED: the token was logged"; exit 1; fi
if [[ -n "$digits" ]]; then
  FLOWVM_TLS_CA="$work/tls/ca.pem" FLOWVM_TLS_CERT="$work/tls/client.pem" FLOWVM_TLS_KEY="$work/tls/client.key" \
  FLOWVM_CLUSTER_TOKEN="$(cat "$work/tls/token")" ip netns exec "${hosts[0]}" "$digits" --mode sync --target "grpc://$subnet.2:$port" --workers 2 --steps 800 \
    --no-progress --min-accuracy 0.95 >"$work/digits.out" 2>&1 || {
    echo "FAILED: the digits MLP did not train across the machines:"; cat "$work/digits.out"; exit 1; }
  cat "$work/digits.out"
fi
echo "PASSED: trained across 3 network namespaces ($subnet.1-3), with TLS and a cluster token"
