"""A two-hidden-layer perceptron in TensorFlow 1.x's raw API, weights kept
in dicts of tf.Variables, trained with Adam, in the style of the popular
community examples (only the import differs)."""
import argparse
import sys

import flowvm.compat.v1 as tf
from flowvm.compat.v1.examples.tutorials.mnist import input_data


def main(args):
    tf.set_random_seed(1)
    mnist = input_data.read_data_sets("/tmp/data/", one_hot=True, seed=1)
    n_hidden_1, n_hidden_2, n_input, n_classes = 256, 256, 784, 10
    X = tf.placeholder("float", [None, n_input])
    Y = tf.placeholder("float", [None, n_classes])
    weights = {
        "h1": tf.Variable(tf.random_normal([n_input, n_hidden_1], stddev=0.05)),
        "h2": tf.Variable(tf.random_normal([n_hidden_1, n_hidden_2], stddev=0.05)),
        "out": tf.Variable(tf.random_normal([n_hidden_2, n_classes], stddev=0.05)),
    }
    biases = {
        "b1": tf.Variable(tf.random_normal([n_hidden_1], stddev=0.05)),
        "b2": tf.Variable(tf.random_normal([n_hidden_2], stddev=0.05)),
        "out": tf.Variable(tf.random_normal([n_classes], stddev=0.05)),
    }

    def multilayer_perceptron(x):
        layer_1 = tf.nn.relu(tf.add(tf.matmul(x, weights["h1"]), biases["b1"]))
        layer_2 = tf.nn.relu(tf.add(tf.matmul(layer_1, weights["h2"]), biases["b2"]))
        return tf.matmul(layer_2, weights["out"]) + biases["out"]

    logits = multilayer_perceptron(X)
    loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y))
    train_op = tf.train.AdamOptimizer(learning_rate=args.learning_rate).minimize(loss_op)
    init = tf.global_variables_initializer()
    with tf.Session() as sess:
        sess.run(init)
        for epoch in range(args.epochs):
            avg_cost = 0.0
            total_batch = min(int(mnist.train.num_examples / args.batch_size), args.max_batches)
            for _ in range(total_batch):
                batch_x, batch_y = mnist.train.next_batch(args.batch_size)
                _, c = sess.run([train_op, loss_op], feed_dict={X: batch_x, Y: batch_y})
                avg_cost += c / total_batch
            print("Epoch:", "%04d" % (epoch + 1), "cost={:.9f}".format(avg_cost))
        pred = tf.nn.softmax(logits)
        correct_prediction = tf.equal(tf.argmax(pred, 1), tf.argmax(Y, 1))
        accuracy = tf.reduce_mean(tf.cast(correct_prediction, "float"))
        acc = accuracy.eval({X: mnist.test.images, Y: mnist.test.labels})
        print("Accuracy:", acc)
        return acc


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--batch_size", type=int, default=100)
    p.add_argument("--max_batches", type=int, default=1 << 30)
    p.add_argument("--learning_rate", type=float, default=0.001)
    p.add_argument("--min_accuracy", type=float, default=0.0)
    a = p.parse_args()
    sys.exit(0 if main(a) >= a.min_accuracy else 1)
