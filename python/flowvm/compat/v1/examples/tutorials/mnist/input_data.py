"""read_data_sets, as in TensorFlow 1.x's MNIST tutorials, without a
download: the IDX files are read from `train_dir` when they are there, and
otherwise from Debian's dataset-fashion-mnist package
(/usr/share/datasets/fashion-mnist, or $FLOWVM_MNIST_DIR). Fashion-MNIST
has MNIST's format and sizes (28x28 grey images, 10 classes, 60,000 + 10,000),
so the tutorials run unchanged; it is a harder problem, so accuracies are
lower than MNIST's."""
import collections
import gzip
import os
import sys

import numpy as np

DEFAULT_DIR = "/usr/share/datasets/fashion-mnist"
_FILES = {
    "train_images": "train-images-idx3-ubyte.gz",
    "train_labels": "train-labels-idx1-ubyte.gz",
    "test_images": "t10k-images-idx3-ubyte.gz",
    "test_labels": "t10k-labels-idx1-ubyte.gz",
}

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


def _read32(f):
    return int.from_bytes(f.read(4), "big")


def extract_images(f):
    """[N, 28, 28, 1] uint8 from an IDX3 stream."""
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read32(stream)
        if magic != 2051:
            raise ValueError("Invalid magic number %d in MNIST image file: %s" % (magic, f.name))
        n, rows, cols = _read32(stream), _read32(stream), _read32(stream)
        data = np.frombuffer(stream.read(rows * cols * n), dtype=np.uint8)
        if data.size != rows * cols * n:
            raise ValueError("MNIST image file %s is truncated" % f.name)
        return data.reshape(n, rows, cols, 1)


def dense_to_one_hot(labels_dense, num_classes):
    out = np.zeros((labels_dense.shape[0], num_classes))
    out[np.arange(labels_dense.shape[0]), labels_dense] = 1
    return out


def extract_labels(f, one_hot=False, num_classes=10):
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read32(stream)
        if magic != 2049:
            raise ValueError("Invalid magic number %d in MNIST label file: %s" % (magic, f.name))
        n = _read32(stream)
        labels = np.frombuffer(stream.read(n), dtype=np.uint8)
        if labels.size != n:
            raise ValueError("MNIST label file %s is truncated" % f.name)
        return dense_to_one_hot(labels, num_classes) if one_hot else labels


class DataSet(object):
    """Images and labels with epoch-wise shuffled batches (next_batch)."""

    def __init__(self, images, labels, fake_data=False, one_hot=False, dtype=np.float32, reshape=True, seed=None):
        if fake_data:
            raise NotImplementedError("fake_data is not supported")
        dtype = np.dtype(getattr(dtype, "as_numpy_dtype", dtype))
        if dtype not in (np.dtype(np.uint8), np.dtype(np.float32)):
            raise TypeError("Invalid image dtype %r, expected uint8 or float32" % dtype)
        assert images.shape[0] == labels.shape[0], "images.shape: %s labels.shape: %s" % (images.shape, labels.shape)
        self._num_examples = images.shape[0]
        if reshape:
            images = images.reshape(images.shape[0], images.shape[1] * images.shape[2] * images.shape[3])
        if dtype == np.float32:
            images = images.astype(np.float32) * (1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0
        self._rng = np.random.RandomState(seed)

    @property
    def images(self):
        return self._images

    @property
    def labels(self):
        return self._labels

    @property
    def num_examples(self):
        return self._num_examples

    @property
    def epochs_completed(self):
        return self._epochs_completed

    def _shuffle(self):
        perm = self._rng.permutation(self._num_examples)
        self._images = self._images[perm]
        self._labels = self._labels[perm]

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._shuffle()
        if start + batch_size > self._num_examples:
            self._epochs_completed += 1
            rest = self._num_examples - start
            images_rest, labels_rest = self._images[start:], self._labels[start:]
            if shuffle:
                self._shuffle()
            self._index_in_epoch = batch_size - rest
            end = self._index_in_epoch
            return (np.concatenate((images_rest, self._images[:end]), axis=0),
                    np.concatenate((labels_rest, self._labels[:end]), axis=0))
        self._index_in_epoch += batch_size
        end = self._index_in_epoch
        return self._images[start:end], self._labels[start:end]


_announced = [False]


def _source_dir(train_dir):
    if train_dir and all(os.path.exists(os.path.join(train_dir, f)) for f in _FILES.values()):
        return train_dir
    d = os.environ.get("FLOWVM_MNIST_DIR", DEFAULT_DIR)
    missing = [f for f in _FILES.values() if not os.path.exists(os.path.join(d, f))]
    if missing:
        raise IOError("read_data_sets: %s not found in %r or %r (install Debian's dataset-fashion-mnist, or set "
                      "FLOWVM_MNIST_DIR)" % (", ".join(missing), train_dir, d))
    if not _announced[0]:
        _announced[0] = True
        sys.stderr.write("input_data: reading Fashion-MNIST from %s instead of downloading MNIST\n" % d)
    return d


def read_data_sets(train_dir=None, fake_data=False, one_hot=False, dtype=np.float32, reshape=True,
                   validation_size=5000, seed=None, source_url=None):
    d = _source_dir(train_dir)

    def opened(key):
        return open(os.path.join(d, _FILES[key]), "rb")

    with opened("train_images") as f:
        train_images = extract_images(f)
    with opened("train_labels") as f:
        train_labels = extract_labels(f, one_hot=one_hot)
    with opened("test_images") as f:
        test_images = extract_images(f)
    with opened("test_labels") as f:
        test_labels = extract_labels(f, one_hot=one_hot)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError("Validation size should be between 0 and %d. Received: %d."
                         % (len(train_images), validation_size))
    validation_images, validation_labels = train_images[:validation_size], train_labels[:validation_size]
    train_images, train_labels = train_images[validation_size:], train_labels[validation_size:]
    kw = dict(dtype=dtype, reshape=reshape, seed=seed)
    return Datasets(train=DataSet(train_images, train_labels, **kw),
                    validation=DataSet(validation_images, validation_labels, **kw),
                    test=DataSet(test_images, test_labels, **kw))


def load_mnist(train_dir="MNIST-data"):
    return read_data_sets(train_dir)
