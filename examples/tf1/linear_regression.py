"""Linear regression by gradient descent in TensorFlow 1.x's raw API, in
the style of the popular community examples (only the import differs).
Fits y = W x + b to noisy points of a known line and checks the fit."""
import argparse
import sys

import numpy as np

import flowvm.compat.v1 as tf


def main(args):
    rng = np.random.RandomState(0)
    train_X = rng.uniform(0.0, 10.0, size=args.points).astype(np.float32)
    train_Y = (0.7 * train_X + 2.5 + rng.normal(0.0, 0.3, size=args.points)).astype(np.float32)
    n_samples = train_X.shape[0]

    X = tf.placeholder("float")
    Y = tf.placeholder("float")
    W = tf.Variable(rng.randn(), name="weight", dtype=tf.float32)
    b = tf.Variable(rng.randn(), name="bias", dtype=tf.float32)
    pred = tf.add(tf.multiply(X, W), b)
    cost = tf.reduce_sum(tf.pow(pred - Y, 2)) / (2 * n_samples)
    optimizer = tf.train.GradientDescentOptimizer(args.learning_rate).minimize(cost)
    init = tf.global_variables_initializer()

    with tf.Session() as sess:
        sess.run(init)
        for epoch in range(args.epochs):
            for (x, y) in zip(train_X, train_Y):
                sess.run(optimizer, feed_dict={X: x, Y: y})
            if (epoch + 1) % 50 == 0:
                c = sess.run(cost, feed_dict={X: train_X, Y: train_Y})
                print("Epoch:", "%04d" % (epoch + 1), "cost=", "{:.9f}".format(c), "W=", sess.run(W), "b=", sess.run(b))
        w_val, b_val = sess.run([W, b])
        print("Optimization Finished! W=%.4f b=%.4f" % (w_val, b_val))
        return abs(w_val - 0.7) < 0.05 and abs(b_val - 2.5) < 0.3


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=1000)
    p.add_argument("--points", type=int, default=50)
    p.add_argument("--learning_rate", type=float, default=0.01)
    sys.exit(0 if main(p.parse_args()) else 1)
