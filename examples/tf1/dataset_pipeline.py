"""A classifier fed by a tf.data input pipeline, in TensorFlow 1.x's API.

The Fashion-MNIST files are read as they are distributed: gzip'd IDX files,
a header and then fixed-length records (784 bytes an image, 1 byte a
label). FixedLengthRecordDataset streams them, `map` decodes the bytes,
`zip` pairs images with labels, and the training pipeline caches,
shuffles, repeats, batches and prefetches. One reinitializable iterator
(Iterator.from_structure) serves both the training and the test data, so
the model is built once on its get_next().

    python3 -m flowvm.tf1 examples/tf1/dataset_pipeline.py --steps 1500
"""
import argparse
import os
import sys

import tensorflow as tf

DATA_DIR = "/usr/share/datasets/fashion-mnist"


def decode_image(record):
    pixels = tf.decode_raw(record, tf.uint8)
    return tf.reshape(tf.cast(pixels, tf.float32) / 255.0, [784])


def decode_label(record):
    return tf.reshape(tf.cast(tf.decode_raw(record, tf.uint8), tf.int32), [])


def idx_dataset(data_dir, prefix, parallel_calls):
    images = tf.data.FixedLengthRecordDataset(os.path.join(data_dir, prefix + "-images-idx3-ubyte.gz"),
                                              record_bytes=28 * 28, header_bytes=16, compression_type="GZIP")
    labels = tf.data.FixedLengthRecordDataset(os.path.join(data_dir, prefix + "-labels-idx1-ubyte.gz"),
                                              record_bytes=1, header_bytes=8, compression_type="GZIP")
    return tf.data.Dataset.zip((images.map(decode_image, num_parallel_calls=parallel_calls),
                                labels.map(decode_label)))


def model(images, hidden):
    h = tf.layers.dense(images, hidden, activation=tf.nn.relu, name="hidden")
    return tf.layers.dense(h, 10, name="logits")


def main(args):
    tf.set_random_seed(args.seed)
    train = idx_dataset(args.data_dir, "train", args.parallel_calls)
    train = train.cache().shuffle(args.shuffle_buffer, seed=args.seed).repeat().batch(args.batch_size)
    train = train.prefetch(tf.data.experimental.AUTOTUNE)
    test = idx_dataset(args.data_dir, "t10k", args.parallel_calls).take(args.test_examples).batch(1000)

    iterator = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
    images, labels = iterator.get_next()
    train_init = iterator.make_initializer(train)
    test_init = iterator.make_initializer(test)

    logits = model(images, args.hidden)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train_op = tf.train.AdamOptimizer(args.learning_rate).minimize(
        loss, global_step=tf.train.get_or_create_global_step())
    correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, 1, output_type=tf.int32), labels), tf.int32))
    count = tf.shape(labels)[0]

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train_init)
        for step in range(args.steps):
            _, l = sess.run([train_op, loss])
            if step % args.log_every == 0 or step == args.steps - 1:
                print("step %d, loss %.4f" % (step, l))
        sess.run(test_init)
        right = seen = 0
        while True:
            try:
                c, n = sess.run([correct, count])
            except tf.errors.OutOfRangeError:
                break
            right += c
            seen += n
        acc = right / float(seen)
        print("test accuracy %.4f on %d examples" % (acc, seen))
        return acc


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--data_dir", default=DATA_DIR)
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--batch_size", type=int, default=100)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--learning_rate", type=float, default=0.001)
    p.add_argument("--shuffle_buffer", type=int, default=10000)
    p.add_argument("--parallel_calls", type=int, default=2)
    p.add_argument("--test_examples", type=int, default=10000)
    p.add_argument("--log_every", type=int, default=250)
    p.add_argument("--min_accuracy", type=float, default=0.0)
    a = p.parse_args()
    sys.exit(0 if main(a) >= a.min_accuracy else 1)
