"""The MLP 784-512-512-10 training step driven from Python with a feed_dict
each step: flowvm.compat.v1 (a TensorFlow 1.x program) against PyTorch
eager on the same random data, batch and thread count, in one process.
Prints the median ms/step of each and the ratio flowvm/PyTorch.

    PYTHONPATH=build/python python3 bench/python/train_mlp.py [--threads 2] [--reps 5] [--steps 200]
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def flowvm_trainer(threads, batch, data, labels):
    import flowvm.compat.v1 as tf
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.int32, [None])
        h = x
        for i, (n_in, n_out) in enumerate([(784, 512), (512, 512), (512, 10)]):
            w = tf.Variable(tf.truncated_normal([n_in, n_out], stddev=1.0 / np.sqrt(n_in)), name="w%d" % i)
            b = tf.Variable(tf.zeros([n_out]), name="b%d" % i)
            h = tf.nn.bias_add(tf.matmul(h, w), b)  # as tf.layers.dense and the C++ bench build it
            if i < 2:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        init = tf.global_variables_initializer()
    config = tf.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
    sess = tf.Session(graph=g, config=config)
    sess.run(init)

    def step(i):
        sess.run(train, feed_dict={x: data[i], y: labels[i]})
    return step


def torch_trainer(threads, batch, data, labels):
    import torch
    from torch import nn
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    lossf = nn.CrossEntropyLoss()
    tdata = [torch.from_numpy(d) for d in data]
    tlabels = [torch.from_numpy(l.astype(np.int64)) for l in labels]

    def step(i):
        opt.zero_grad()
        loss = lossf(model(tdata[i]), tlabels[i])
        loss.backward()
        opt.step()
    return step


def timed(step, steps, nbatches):
    """The median step time in ms (the C++ bench reports its median too)."""
    for i in range(5):
        step(i % nbatches)
    times = []
    for i in range(steps):
        t0 = time.perf_counter()
        step(i % nbatches)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.RandomState(0)
    nb = 16
    data = [rng.rand(args.batch, 784).astype(np.float32) for _ in range(nb)]
    labels = [rng.randint(0, 10, size=args.batch).astype(np.int32) for _ in range(nb)]
    f = flowvm_trainer(args.threads, args.batch, data, labels)
    t = torch_trainer(args.threads, args.batch, data, labels)
    fv, tv = [], []
    for _ in range(args.reps):  # alternate, so both see the same machine
        fv.append(timed(f, args.steps, nb))
        tv.append(timed(t, args.steps, nb))
    fm, tm = statistics.median(fv), statistics.median(tv)
    print("flowvm.compat.v1 from Python: %.3f ms/step (runs: %s)" % (fm, ", ".join("%.3f" % v for v in fv)))
    print("PyTorch eager from Python:    %.3f ms/step (runs: %s)" % (tm, ", ".join("%.3f" % v for v in tv)))
    print("ratio flowvm/PyTorch %.3f (target <= 1.0: %s)" % (fm / tm, "PASS" if fm <= tm else "MISS"))
    print("FLOWVM_PY_MS_PER_STEP=%.4f" % fm)


if __name__ == "__main__":
    main()
