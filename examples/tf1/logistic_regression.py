"""Multinomial logistic regression in TensorFlow 1.x's raw API, with the
cross-entropy written out by hand (tf.log of the softmax), as the popular
community examples do (only the import differs)."""
import argparse
import sys

import flowvm.compat.v1 as tf
from flowvm.compat.v1.examples.tutorials.mnist import input_data


def main(args):
    mnist = input_data.read_data_sets("/tmp/data/", one_hot=True, seed=0)
    x = tf.placeholder(tf.float32, [None, 784])
    y = tf.placeholder(tf.float32, [None, 10])
    W = tf.Variable(tf.zeros([784, 10]))
    b = tf.Variable(tf.zeros([10]))
    pred = tf.nn.softmax(tf.matmul(x, W) + b)
    cost = tf.reduce_mean(-tf.reduce_sum(y * tf.log(pred + 1e-10), reduction_indices=1))
    optimizer = tf.train.GradientDescentOptimizer(args.learning_rate).minimize(cost)
    init = tf.global_variables_initializer()
    with tf.Session() as sess:
        sess.run(init)
        for epoch in range(args.epochs):
            avg_cost = 0.0
            total_batch = min(int(mnist.train.num_examples / args.batch_size), args.max_batches)
            for _ in range(total_batch):
                batch_xs, batch_ys = mnist.train.next_batch(args.batch_size)
                _, c = sess.run([optimizer, cost], feed_dict={x: batch_xs, y: batch_ys})
                avg_cost += c / total_batch
            print("Epoch:", "%04d" % (epoch + 1), "cost=", "{:.9f}".format(avg_cost))
        correct_prediction = tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1))
        accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
        acc = accuracy.eval({x: mnist.test.images, y: mnist.test.labels})
        print("Accuracy:", acc)
        return acc


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=25)
    p.add_argument("--batch_size", type=int, default=100)
    p.add_argument("--max_batches", type=int, default=1 << 30)
    p.add_argument("--learning_rate", type=float, default=0.01)
    p.add_argument("--min_accuracy", type=float, default=0.0)
    a = p.parse_args()
    sys.exit(0 if main(a) >= a.min_accuracy else 1)
