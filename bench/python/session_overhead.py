"""sess.run of a cached 1-node graph from Python, against torch.add of two
scalar tensors from Python, in the same process; prints microseconds per
call for each and the ratio. Usage: PYTHONPATH=build/python python3 THIS [--reps R]"""
import argparse
import statistics
import time

import flowvm.compat.v1 as tf


def per_call_us(fn, n):
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--calls", type=int, default=20000)
    args = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    a, b = torch.tensor(1.0), torch.tensor(2.0)
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)
    sess = tf.Session(graph=g, config=tf.ConfigProto(intra_op_parallelism_threads=1))
    sess.run(c)  # prepares and caches the step
    fv, tv = [], []
    for _ in range(args.reps):
        fv.append(per_call_us(lambda: sess.run(c), args.calls))
        tv.append(per_call_us(lambda: torch.add(a, b), args.calls))
    f, t = statistics.median(fv), statistics.median(tv)
    print("sess.run(1-node graph)   %.2f us/call (min %.2f)" % (f, min(fv)))
    print("torch.add(scalar, scalar) %.2f us/call (min %.2f)" % (t, min(tv)))
    print("ratio flowvm/torch %.2f; target: flowvm <= 10 us: %s" % (f / t, "PASS" if f <= 10 else "MISS"))
    sess.close()


if __name__ == "__main__":
    main()
