"""A recurrent classifier written with tf.scan, in TensorFlow 1.x's raw API.

Each Fashion-MNIST image is read as a sequence of its 28 rows; a plain
tanh recurrence h_t = tanh(x_t Wx + h_{t-1} Wh + b) walks down the rows,
written as a tf.scan over the time-major sequence, and a softmax layer
classifies the last state. Trained with Adam on mini-batches, the gradients' global norm clipped.

    python3 -m flowvm.tf1 examples/tf1/scan_rnn.py --steps 600
"""
import argparse
import sys

import numpy as np
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data


def rnn_logits(images, n_steps, n_input, n_hidden, n_classes):
    # [batch, 784] -> [time, batch, row]
    rows = tf.reshape(images, [-1, n_steps, n_input])
    time_major = tf.transpose(rows, [1, 0, 2])
    with tf.variable_scope("rnn"):
        wx = tf.get_variable("wx", [n_input, n_hidden], initializer=tf.glorot_uniform_initializer())
        wh = tf.get_variable("wh", [n_hidden, n_hidden], initializer=tf.orthogonal_initializer())
        b = tf.get_variable("b", [n_hidden], initializer=tf.zeros_initializer())

    def step(h, x):
        return tf.tanh(tf.matmul(x, wx) + tf.matmul(h, wh) + b)

    h0 = tf.zeros(tf.stack([tf.shape(images)[0], n_hidden]))
    states = tf.scan(step, time_major, initializer=h0)  # [time, batch, hidden]
    last = states[-1]
    with tf.variable_scope("softmax"):
        w = tf.get_variable("w", [n_hidden, n_classes], initializer=tf.glorot_uniform_initializer())
        c = tf.get_variable("c", [n_classes], initializer=tf.zeros_initializer())
    return tf.matmul(last, w) + c


def main(args):
    tf.set_random_seed(args.seed)
    np.random.seed(args.seed)
    mnist = input_data.read_data_sets("/tmp/data/", one_hot=True, seed=args.seed)
    x = tf.placeholder(tf.float32, [None, 784])
    y = tf.placeholder(tf.float32, [None, 10])
    logits = rnn_logits(x, 28, 28, args.hidden, 10)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
    # Gradients through the recurrence can blow up: clip their global norm.
    optimizer = tf.train.AdamOptimizer(args.learning_rate)
    grads, params = zip(*optimizer.compute_gradients(loss))
    grads, _ = tf.clip_by_global_norm(grads, args.clip_norm)
    train_op = optimizer.apply_gradients(zip(grads, params))
    correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(args.steps):
            batch_x, batch_y = mnist.train.next_batch(args.batch_size)
            _, l = sess.run([train_op, loss], feed_dict={x: batch_x, y: batch_y})
            if step % 100 == 0 or step == args.steps - 1:
                print("step %d, loss %.4f" % (step, l))
        test_x = mnist.test.images[:args.test_examples]
        test_y = mnist.test.labels[:args.test_examples]
        acc = sess.run(accuracy, feed_dict={x: test_x, y: test_y})
        print("test accuracy %.4f" % acc)
        return acc


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--batch_size", type=int, default=128)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--learning_rate", type=float, default=0.002)
    p.add_argument("--clip_norm", type=float, default=5.0)
    p.add_argument("--test_examples", type=int, default=10000)
    p.add_argument("--min_accuracy", type=float, default=0.0)
    a = p.parse_args()
    sys.exit(0 if main(a) >= a.min_accuracy else 1)
