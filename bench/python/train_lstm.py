"""The training step of the LSTM sequence classifier (examples/tf1/
lstm_classifier.py): batch 64, 28 steps of 28 inputs, 128 units, a dense
layer to 10 classes, softmax cross-entropy, Adam (lr 1e-3), fed a new NumPy
batch every step. One implementation per process:

    PYTHONPATH=build/python python3 bench/python/train_lstm.py --impl flowvm [--threads 2]
    python3 bench/python/train_lstm.py --impl torch [--threads 2]

flowvm: tf.nn.rnn_cell.BasicLSTMCell + tf.nn.dynamic_rnn + tf.layers.dense,
the graph TensorFlow 1.x builds (a while loop over TensorArrays, and its
gradient loop). PyTorch: torch.nn.LSTM (batch_first) + nn.Linear on CPU,
eager. Prints "MS_PER_STEP=<median>" (the median step of --steps timed
steps, after a warm-up). --profile (flowvm) also runs traced steps
(RunOptions FULL_TRACE) and prints the time per op type.
"""
import argparse
import collections
import os
import statistics
import sys
import time

import numpy as np

BATCH, STEPS, INPUTS, UNITS, CLASSES = 64, 28, 28, 128, 10


def data(nbatches):
    rng = np.random.RandomState(0)
    xs = [rng.rand(BATCH, STEPS, INPUTS).astype(np.float32) for _ in range(nbatches)]
    ys = [rng.randint(0, CLASSES, size=BATCH).astype(np.int64) for _ in range(nbatches)]
    return xs, ys


def flowvm_trainer(threads, xs, ys):
    import flowvm.compat.v1 as tf
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, STEPS, INPUTS])
        y = tf.placeholder(tf.int64, [None])
        outputs, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(UNITS), x, dtype=tf.float32)
        logits = tf.layers.dense(outputs[:, -1, :], CLASSES)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        init = tf.global_variables_initializer()
    config = tf.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
    sess = tf.Session(graph=g, config=config)
    sess.run(init)

    def step(i):
        return sess.run([train, loss], feed_dict={x: xs[i], y: ys[i]})[1]

    def profile(n):
        """Summed op time by op type over n traced steps (all devices)."""
        by_type = collections.Counter()
        count = collections.Counter()
        types = {op.name: op.type for op in g.get_operations()}
        total = 0.0
        for i in range(n):
            md = tf.RunMetadata()
            t0 = time.perf_counter()
            sess.run(train, feed_dict={x: xs[i % len(xs)], y: ys[i % len(ys)]},
                     options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
            total += time.perf_counter() - t0
            for dev in md.step_stats.dev_stats:
                for ns in dev.node_stats:
                    t = types.get(ns.node_name, ns.node_name)
                    by_type[t] += ns.all_end_rel_micros
                    count[t] += 1
        busy = sum(by_type.values())
        print("profile: %d traced steps, %.1f ms/step wall (tracing on), %.1f ms/step summed over ops"
              % (n, total / n * 1e3, busy / n / 1e3))
        for t, us in by_type.most_common(15):
            print("  %-34s %8.3f ms/step  %5.1f%%  (%d runs/step)"
                  % (t, us / n / 1e3, 100.0 * us / busy, count[t] // n))
    return step, profile


def torch_trainer(threads, xs, ys):
    import torch
    from torch import nn
    torch.set_num_threads(threads)
    torch.manual_seed(1)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(INPUTS, UNITS, batch_first=True)
            self.dense = nn.Linear(UNITS, CLASSES)

        def forward(self, x):
            out, _ = self.lstm(x)
            return self.dense(out[:, -1, :])

    model = Model()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    lossf = nn.CrossEntropyLoss()
    txs = [torch.from_numpy(v) for v in xs]
    tys = [torch.from_numpy(v) for v in ys]

    def step(i):
        opt.zero_grad()
        loss = lossf(model(txs[i]), tys[i])
        loss.backward()
        opt.step()
        return loss.item()
    return step, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--impl", choices=["flowvm", "torch"], required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--profile", type=int, default=0, help="flowvm: traced steps to profile (0: none)")
    args = ap.parse_args()
    nb = 8
    xs, ys = data(nb)
    make = flowvm_trainer if args.impl == "flowvm" else torch_trainer
    step, profile = make(args.threads, xs, ys)
    first = step(0)
    for i in range(1, args.warmup):
        step(i % nb)
    times = []
    for i in range(args.steps):
        t0 = time.perf_counter()
        last = step(i % nb)
        times.append(time.perf_counter() - t0)
    if not (np.isfinite(first) and np.isfinite(last)):
        sys.exit("non-finite loss: first %s, last %s" % (first, last))
    ms = statistics.median(times) * 1e3
    print("%s: %.3f ms/step (median of %d; min %.3f, max %.3f), loss %.4f -> %.4f"
          % (args.impl, ms, len(times), min(times) * 1e3, max(times) * 1e3, first, last))
    print("MS_PER_STEP=%.4f" % ms)
    if args.profile and profile is not None:
        profile(args.profile)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    main()
