"""tf.contrib: of TensorFlow 1.x's contributed modules, flowvm offers
tf.contrib.rnn (the RNN cells and unrolling functions); importing any other
(tensorflow.contrib.slim, ...) fails with ModuleNotFoundError."""
from flowvm.compat.v1.contrib import rnn  # noqa: F401
