"""A convnet in TensorFlow 1.x's raw API (conv2d + bias_add + relu +
max_pool twice, a dense layer with dropout), weights in dicts, in the style
of the popular community examples (only the import differs)."""
import argparse
import sys

import flowvm.compat.v1 as tf
from flowvm.compat.v1.examples.tutorials.mnist import input_data


def conv2d(x, W, b, strides=1):
    x = tf.nn.conv2d(x, W, strides=[1, strides, strides, 1], padding="SAME")
    x = tf.nn.bias_add(x, b)
    return tf.nn.relu(x)


def maxpool2d(x, k=2):
    return tf.nn.max_pool(x, ksize=[1, k, k, 1], strides=[1, k, k, 1], padding="SAME")


def main(args):
    tf.set_random_seed(3)
    mnist = input_data.read_data_sets("/tmp/data/", one_hot=True, seed=3)
    X = tf.placeholder(tf.float32, [None, 784])
    Y = tf.placeholder(tf.float32, [None, 10])
    keep_prob = tf.placeholder(tf.float32)
    weights = {
        "wc1": tf.Variable(tf.random_normal([5, 5, 1, 32], stddev=0.1)),
        "wc2": tf.Variable(tf.random_normal([5, 5, 32, 64], stddev=0.1)),
        "wd1": tf.Variable(tf.random_normal([7 * 7 * 64, 256], stddev=0.02)),
        "out": tf.Variable(tf.random_normal([256, 10], stddev=0.05)),
    }
    biases = {
        "bc1": tf.Variable(tf.zeros([32])),
        "bc2": tf.Variable(tf.zeros([64])),
        "bd1": tf.Variable(tf.zeros([256])),
        "out": tf.Variable(tf.zeros([10])),
    }

    def conv_net(x, weights, biases, dropout):
        x = tf.reshape(x, shape=[-1, 28, 28, 1])
        conv1 = maxpool2d(conv2d(x, weights["wc1"], biases["bc1"]), k=2)
        conv2 = maxpool2d(conv2d(conv1, weights["wc2"], biases["bc2"]), k=2)
        fc1 = tf.reshape(conv2, [-1, weights["wd1"].get_shape().as_list()[0]])
        fc1 = tf.nn.relu(tf.add(tf.matmul(fc1, weights["wd1"]), biases["bd1"]))
        fc1 = tf.nn.dropout(fc1, dropout)
        return tf.add(tf.matmul(fc1, weights["out"]), biases["out"])

    logits = conv_net(X, weights, biases, keep_prob)
    prediction = tf.nn.softmax(logits)
    loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y))
    train_op = tf.train.AdamOptimizer(learning_rate=args.learning_rate).minimize(loss_op)
    correct_pred = tf.equal(tf.argmax(prediction, 1), tf.argmax(Y, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))
    init = tf.global_variables_initializer()
    with tf.Session() as sess:
        sess.run(init)
        for step in range(1, args.steps + 1):
            batch_x, batch_y = mnist.train.next_batch(args.batch_size)
            sess.run(train_op, feed_dict={X: batch_x, Y: batch_y, keep_prob: 0.75})
            if step % 50 == 0 or step == 1:
                loss, acc = sess.run([loss_op, accuracy], feed_dict={X: batch_x, Y: batch_y, keep_prob: 1.0})
                print("Step " + str(step) + ", Minibatch Loss= " + "{:.4f}".format(loss) +
                      ", Training Accuracy= " + "{:.3f}".format(acc))
        acc = sess.run(accuracy, feed_dict={X: mnist.test.images[:2000], Y: mnist.test.labels[:2000], keep_prob: 1.0})
        print("Testing Accuracy:", acc)
        return acc


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--batch_size", type=int, default=128)
    p.add_argument("--learning_rate", type=float, default=0.001)
    p.add_argument("--min_accuracy", type=float, default=0.0)
    a = p.parse_args()
    sys.exit(0 if main(a) >= a.min_accuracy else 1)
