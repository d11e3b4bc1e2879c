"""One process of bench/run_python_dataset_bench.sh: the same SGD training
loop from Python, fed either by feed_dict with a shuffled NumPy batch
gathered each step (`x[perm[i:i + 128]]`) or by a tf.data pipeline
(from_tensor_slices of the arrays, fed once at initialization -> shuffle ->
repeat -> batch -> prefetch -> get_next). Prints one line
`MS_PER_STEP <median ms of the timed steps>`."""
import argparse
import statistics
import time

import numpy as np

import flowvm.compat.v1 as tf


def model(x, y, kind):
    if kind == "mlp":
        h = tf.layers.dense(x, 512, activation=tf.nn.relu)
        h = tf.layers.dense(h, 512, activation=tf.nn.relu)
    else:
        h = x
    logits = tf.layers.dense(h, 10)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
    return tf.train.GradientDescentOptimizer(0.01).minimize(loss)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mode", choices=["fed", "dataset"], required=True)
    p.add_argument("--model", choices=["mlp", "softmax"], default="mlp")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    rng = np.random.RandomState(0)
    n = 20000
    xs = rng.rand(n, 784).astype(np.float32)
    ys = rng.randint(0, 10, size=n).astype(np.int32)
    tf.set_random_seed(1)
    if a.mode == "fed":
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.int32, [None])
        train = model(x, y, a.model)
    else:
        fx = tf.placeholder(tf.float32, [n, 784])
        fy = tf.placeholder(tf.int32, [n])
        ds = tf.data.Dataset.from_tensor_slices((fx, fy)).shuffle(10000, seed=1).repeat().batch(a.batch).prefetch(2)
        it = ds.make_initializable_iterator()
        bx, by = it.get_next()
        train = model(bx, by, a.model)
    config = tf.ConfigProto(intra_op_parallelism_threads=a.threads, inter_op_parallelism_threads=a.threads)
    times = []
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        if a.mode == "dataset":
            sess.run(it.initializer, {fx: xs, fy: ys})
        perm = rng.permutation(n)
        pos = 0
        for step in range(a.warmup + a.steps):
            t0 = time.perf_counter()
            if a.mode == "fed":
                if pos + a.batch > n:
                    perm, pos = rng.permutation(n), 0
                idx = perm[pos:pos + a.batch]
                pos += a.batch
                sess.run(train, {x: xs[idx], y: ys[idx]})
            else:
                sess.run(train)
            if step >= a.warmup:
                times.append((time.perf_counter() - t0) * 1000.0)
    print("MS_PER_STEP %.4f" % statistics.median(times))


if __name__ == "__main__":
    main()
