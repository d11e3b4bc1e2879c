"""A recurrent classifier in TensorFlow 1.x: each 28x28 Fashion-MNIST image
is read as a sequence of 28 rows of 28 pixels by an LSTM
(tf.nn.rnn_cell.BasicLSTMCell unrolled by tf.nn.dynamic_rnn), and a dense
layer on the LSTM's last output picks one of the 10 classes. Trained with
Adam on mini-batches; prints the test accuracy.

A plain TensorFlow 1.x program; run it under flowvm with

    python3 -m flowvm.tf1 examples/tf1/lstm_classifier.py [--steps N]
"""
import argparse
import sys

import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

TIME_STEPS = 28  # image rows
ROW_SIZE = 28  # pixels per row
NUM_CLASSES = 10


def build_model(units):
    images = tf.placeholder(tf.float32, [None, TIME_STEPS * ROW_SIZE], name="images")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    rows = tf.reshape(images, [-1, TIME_STEPS, ROW_SIZE])
    cell = tf.nn.rnn_cell.BasicLSTMCell(units)
    outputs, state = tf.nn.dynamic_rnn(cell, rows, dtype=tf.float32)
    last = outputs[:, -1, :]  # the output after the last row (= state.h)
    logits = tf.layers.dense(last, NUM_CLASSES, name="classifier")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))
    return images, labels, loss, accuracy


def main(args):
    tf.set_random_seed(args.seed)
    data = input_data.read_data_sets("/tmp/data/", one_hot=False, seed=args.seed)
    images, labels, loss, accuracy = build_model(args.units)
    train_op = tf.train.AdamOptimizer(args.learning_rate).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(1, args.steps + 1):
            batch_images, batch_labels = data.train.next_batch(args.batch_size)
            _, batch_loss = sess.run([train_op, loss], {images: batch_images, labels: batch_labels})
            if step % args.log_every == 0:
                batch_acc = sess.run(accuracy, {images: batch_images, labels: batch_labels})
                print("step %d, loss %.4f, training accuracy %.3f" % (step, batch_loss, batch_acc))
        n = min(args.test_examples, data.test.num_examples)
        correct = 0.0
        for start in range(0, n, 1000):
            end = min(start + 1000, n)
            correct += (end - start) * sess.run(accuracy, {images: data.test.images[start:end],
                                                           labels: data.test.labels[start:end]})
        test_accuracy = correct / n
        print("test accuracy %.4f (%d examples)" % (test_accuracy, n))
        return test_accuracy


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--batch_size", type=int, default=64)
    p.add_argument("--units", type=int, default=128)
    p.add_argument("--learning_rate", type=float, default=0.001)
    p.add_argument("--test_examples", type=int, default=10000)
    p.add_argument("--log_every", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--min_accuracy", type=float, default=0.0)
    a = p.parse_args()
    sys.exit(0 if main(a) >= a.min_accuracy else 1)
