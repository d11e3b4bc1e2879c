"""The "deep MNIST for experts" convnet in TensorFlow 1.x's raw API: two
5x5 convolution + 2x2 max-pool layers, a 1024-unit fully connected layer
with dropout, and softmax, trained with Adam (only the import line differs
from a TensorFlow program).

    PYTHONPATH=build/python /usr/bin/python3 examples/tf1/mnist_deep.py [--steps N]
"""
import argparse
import sys

import flowvm.compat.v1 as tf
from flowvm.compat.v1.examples.tutorials.mnist import input_data


def deepnn(x):
    """Logits [batch, 10] and the dropout keep probability placeholder."""
    with tf.name_scope("reshape"):
        x_image = tf.reshape(x, [-1, 28, 28, 1])
    with tf.name_scope("conv1"):
        W_conv1 = weight_variable([5, 5, 1, 32])
        b_conv1 = bias_variable([32])
        h_conv1 = tf.nn.relu(conv2d(x_image, W_conv1) + b_conv1)
    with tf.name_scope("pool1"):
        h_pool1 = max_pool_2x2(h_conv1)
    with tf.name_scope("conv2"):
        W_conv2 = weight_variable([5, 5, 32, 64])
        b_conv2 = bias_variable([64])
        h_conv2 = tf.nn.relu(conv2d(h_pool1, W_conv2) + b_conv2)
    with tf.name_scope("pool2"):
        h_pool2 = max_pool_2x2(h_conv2)
    with tf.name_scope("fc1"):
        W_fc1 = weight_variable([7 * 7 * 64, 1024])
        b_fc1 = bias_variable([1024])
        h_pool2_flat = tf.reshape(h_pool2, [-1, 7 * 7 * 64])
        h_fc1 = tf.nn.relu(tf.matmul(h_pool2_flat, W_fc1) + b_fc1)
    with tf.name_scope("dropout"):
        keep_prob = tf.placeholder(tf.float32)
        h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob)
    with tf.name_scope("fc2"):
        W_fc2 = weight_variable([1024, 10])
        b_fc2 = bias_variable([10])
        y_conv = tf.matmul(h_fc1_drop, W_fc2) + b_fc2
    return y_conv, keep_prob


def conv2d(x, W):
    return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="SAME")


def max_pool_2x2(x):
    return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")


def weight_variable(shape):
    return tf.Variable(tf.truncated_normal(shape, stddev=0.1))


def bias_variable(shape):
    return tf.Variable(tf.constant(0.1, shape=shape))


def main(args):
    tf.set_random_seed(args.seed)
    mnist = input_data.read_data_sets(args.data_dir, one_hot=True, seed=args.seed)
    x = tf.placeholder(tf.float32, [None, 784])
    y_ = tf.placeholder(tf.float32, [None, 10])
    y_conv, keep_prob = deepnn(x)
    with tf.name_scope("loss"):
        cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y_conv))
    with tf.name_scope("adam_optimizer"):
        train_step = tf.train.AdamOptimizer(1e-4).minimize(cross_entropy)
    with tf.name_scope("accuracy"):
        correct_prediction = tf.cast(tf.equal(tf.argmax(y_conv, 1), tf.argmax(y_, 1)), tf.float32)
        accuracy = tf.reduce_mean(correct_prediction)

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(args.steps):
            batch = mnist.train.next_batch(50)
            if i % 100 == 0:
                train_accuracy = accuracy.eval(feed_dict={x: batch[0], y_: batch[1], keep_prob: 1.0})
                print("step %d, training accuracy %g" % (i, train_accuracy))
            train_step.run(feed_dict={x: batch[0], y_: batch[1], keep_prob: 0.5})
        # The test set in slices, to bound memory.
        total = 0.0
        n = args.test_examples
        for start in range(0, n, 1000):
            xs = mnist.test.images[start:start + 1000][: n - start]
            ys = mnist.test.labels[start:start + 1000][: n - start]
            total += accuracy.eval(feed_dict={x: xs, y_: ys, keep_prob: 1.0}) * len(xs)
        acc = total / n
        print("test accuracy %g" % acc)
        return acc


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", type=str, default="/tmp/tensorflow/mnist/input_data")
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--test_examples", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min_accuracy", type=float, default=0.0)
    FLAGS, unparsed = parser.parse_known_args()
    sys.exit(0 if main(FLAGS) >= FLAGS.min_accuracy else 1)
