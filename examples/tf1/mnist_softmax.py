"""Softmax regression on MNIST-format data, written against TensorFlow 1.x's
API the way its beginners' tutorial does (only the import line differs).

    PYTHONPATH=build/python /usr/bin/python3 examples/tf1/mnist_softmax.py [--steps N]

The data is Fashion-MNIST from Debian's dataset-fashion-mnist (the tutorial
reader, input_data, reads it instead of downloading MNIST).
"""
import argparse
import sys

import flowvm.compat.v1 as tf
from flowvm.compat.v1.examples.tutorials.mnist import input_data


def main(args):
    mnist = input_data.read_data_sets(args.data_dir, one_hot=True, seed=args.seed)

    # The model: y = softmax(x W + b).
    x = tf.placeholder(tf.float32, [None, 784])
    W = tf.Variable(tf.zeros([784, 10]))
    b = tf.Variable(tf.zeros([10]))
    y = tf.matmul(x, W) + b

    # Cross-entropy against the one-hot labels, minimized by gradient descent.
    y_ = tf.placeholder(tf.float32, [None, 10])
    cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=y))
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)

    sess = tf.InteractiveSession()
    tf.global_variables_initializer().run()
    for _ in range(args.steps):
        batch_xs, batch_ys = mnist.train.next_batch(100)
        sess.run(train_step, feed_dict={x: batch_xs, y_: batch_ys})

    correct_prediction = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
    acc = sess.run(accuracy, feed_dict={x: mnist.test.images, y_: mnist.test.labels})
    print("test accuracy %g" % acc)
    return acc


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", type=str, default="/tmp/tensorflow/mnist/input_data")
    parser.add_argument("--steps", type=int, default=1000)
    # The tutorial shuffles its batches differently each run; a seed makes
    # a run repeatable (its result moves by a few points with the order).
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--min_accuracy", type=float, default=0.0)
    FLAGS, unparsed = parser.parse_known_args()
    sys.exit(0 if main(FLAGS) >= FLAGS.min_accuracy else 1)
