"""A 784-256-128 autoencoder with sigmoid layers, trained with RMSProp on
the squared reconstruction error, in TensorFlow 1.x's raw API as the
popular community examples write it (only the import differs)."""
import argparse
import sys

import flowvm.compat.v1 as tf
from flowvm.compat.v1.examples.tutorials.mnist import input_data


def main(args):
    tf.set_random_seed(2)
    mnist = input_data.read_data_sets("/tmp/data/", one_hot=True, seed=2)
    num_hidden_1, num_hidden_2, num_input = 256, 128, 784
    X = tf.placeholder("float", [None, num_input])
    weights = {
        "encoder_h1": tf.Variable(tf.random_normal([num_input, num_hidden_1])),
        "encoder_h2": tf.Variable(tf.random_normal([num_hidden_1, num_hidden_2])),
        "decoder_h1": tf.Variable(tf.random_normal([num_hidden_2, num_hidden_1])),
        "decoder_h2": tf.Variable(tf.random_normal([num_hidden_1, num_input])),
    }
    biases = {
        "encoder_b1": tf.Variable(tf.random_normal([num_hidden_1])),
        "encoder_b2": tf.Variable(tf.random_normal([num_hidden_2])),
        "decoder_b1": tf.Variable(tf.random_normal([num_hidden_1])),
        "decoder_b2": tf.Variable(tf.random_normal([num_input])),
    }

    def encoder(x):
        layer_1 = tf.nn.sigmoid(tf.add(tf.matmul(x, weights["encoder_h1"]), biases["encoder_b1"]))
        return tf.nn.sigmoid(tf.add(tf.matmul(layer_1, weights["encoder_h2"]), biases["encoder_b2"]))

    def decoder(x):
        layer_1 = tf.nn.sigmoid(tf.add(tf.matmul(x, weights["decoder_h1"]), biases["decoder_b1"]))
        return tf.nn.sigmoid(tf.add(tf.matmul(layer_1, weights["decoder_h2"]), biases["decoder_b2"]))

    y_pred = decoder(encoder(X))
    y_true = X
    loss = tf.reduce_mean(tf.pow(y_true - y_pred, 2))
    optimizer = tf.train.RMSPropOptimizer(args.learning_rate).minimize(loss)
    init = tf.global_variables_initializer()
    with tf.Session() as sess:
        sess.run(init)
        first = None
        for i in range(1, args.steps + 1):
            batch_x, _ = mnist.train.next_batch(args.batch_size)
            _, l = sess.run([optimizer, loss], feed_dict={X: batch_x})
            if first is None:
                first = l
            if i % 100 == 0 or i == 1:
                print("Step %i: Minibatch Loss: %f" % (i, l))
        test_loss = sess.run(loss, feed_dict={X: mnist.test.images[:1000]})
        print("test reconstruction loss %f (first minibatch %f)" % (test_loss, first))
        return test_loss, first


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--batch_size", type=int, default=256)
    p.add_argument("--learning_rate", type=float, default=0.01)
    p.add_argument("--max_loss", type=float, default=1.0)
    a = p.parse_args()
    test_loss, first = main(a)
    sys.exit(0 if test_loss <= a.max_loss and test_loss < first else 1)
