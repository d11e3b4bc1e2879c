#!/usr/bin/env bash
# The two-command experience: installs what is needed, builds flowvm, starts
# a local cluster of flowvm server processes, trains a neural network on real
# handwritten digits across it, counts the words of flowvm's own sources
# with a map-reduce graph on it, and stops it; then trains the same network
# in one process (checkpointing as it goes) and runs a small saved GraphDef
# with the CLI.
#
#   bash scripts/demo.sh
#
# The steps are listed at the bottom of this file, one `step` line each:
# an explanation followed by the command. Edit that list to change the demo.
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"

step_no=0
# step "what this step does and why" command [args...]
step() {
  local explanation=$1
  shift
  step_no=$((step_no + 1))
  printf '\n==> [%d] %s\n    $ %s\n\n' "$step_no" "$explanation" "$*"
  if ! "$@"; then
    printf '\ndemo.sh: step %d failed: %s\n' "$step_no" "$*" >&2
    exit 1
  fi
}

mkdir -p out

# The cluster is stopped whatever happens to the demo.
cluster_dir=out/cluster
stop_cluster() {
  if [[ -f $cluster_dir/cluster.json && -x build/flowvm ]]; then
    build/flowvm cluster down --dir "$cluster_dir" >/dev/null 2>&1 || true
  fi
}
trap stop_cluster EXIT

# ---- the demo, step by step ------------------------------------------------
step "Install the compilers and libraries flowvm needs (apt-get; skipped when all are present)." \
  bash scripts/setup.sh

step "Configure and build flowvm (library, CLI, examples) into build/ with CMake + Ninja, Release mode." \
  bash scripts/build.sh build

stop_cluster
rm -rf "$cluster_dir"
step "Start a local cluster on free loopback ports: one parameter server and two workers, each a 'flowvm server' process (out/cluster/cluster.json; each task's pid and log beside it). It prints the master's target." \
  build/flowvm cluster up --ps 1 --workers 2 --dir "$cluster_dir"
# The master is worker 0's: the first address of the "worker" job.
target="grpc://$(sed -n 's/.*"worker": *\[ *"\([^"]*\)".*/\1/p' "$cluster_dir/cluster.json")"

step "Train the digits MLP across the cluster by synchronous data parallelism: the weights live on /job:ps, each worker computes the gradient of half of every batch, the ps averages and applies them (800 steps). It must reach 95% test accuracy. Summaries (loss, accuracy, weight histograms, step traces of every task) go to out/logs/cluster." \
  build/examples/flowvm_distributed_digits --mode sync --target "$target" --workers 2 --steps 800 --min-accuracy 0.95 \
    --logdir out/logs/cluster

step "Count the words of flowvm's own sources as a map-reduce graph on the cluster: one mapper per worker (ReadFile, StringSplitV2, UniqueWithCounts), one reducer (ConcatV2, Unique, UnsortedSegmentSum)." \
  build/examples/flowvm_word_count --target "$target" --dir src/runtime --top 10

step "Stop the cluster: one shutdown request to the master stops every task cleanly." \
  build/flowvm cluster down --dir "$cluster_dir"

step "Train a 64-128-10 MLP on the 1,797 8x8 digits Debian's python3-sklearn ships (80/20 split, Adam, 1500 steps), checkpointing to out/digits_ckpt every 500 steps; it must reach 95% test accuracy. Run it again and it resumes from the newest checkpoint. Summaries go to out/logs/digits." \
  build/examples/flowvm_digits --checkpoint-dir out/digits_ckpt --save-every 500 --min-accuracy 0.95 \
    --logdir out/logs/digits

step "Run TensorFlow 1.x's beginners' tutorial, softmax regression on MNIST-format data, unmodified apart from its import line (examples/tf1/mnist_softmax.py: tf.placeholder, tf.Variable, tf.nn.softmax_cross_entropy_with_logits_v2, tf.train.GradientDescentOptimizer, tf.InteractiveSession), on Fashion-MNIST from Debian's package; with its batches shuffled by seed 1 it must reach 80% test accuracy (Fashion-MNIST is harder than MNIST)." \
  env PYTHONPATH=build/python /usr/bin/python3 examples/tf1/mnist_softmax.py --seed 1 --min_accuracy 0.80

step "Build a small graph from plain GraphDef protos (TensorFlow's format) and save it (out/demo.pb); also write its input x as out/x.npy." \
  build/examples/flowvm_demo out/demo.pb

step "Run the saved graph with the flowvm CLI: initialise the variables (--init), then run 3 steps feeding x from out/x.npy and fetching y and the step counter; results go to out/ (-v explains what the runtime decides)." \
  build/flowvm run out/demo.pb --init init --fetch y --fetch steps --feed x=out/x.npy --repeat 3 --output-dir out -v
# ----------------------------------------------------------------------------

printf '\nDone. Files in out/:\n'
ls -l out
printf '\nWatch the training runs (curves, histograms, graph, step traces) in a browser:\n'
printf '  build/flowvm board --logdir out/logs     # then open the URL it prints\n'
