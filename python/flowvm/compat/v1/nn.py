"""tf.nn: neural-network ops under TensorFlow 1.x's tf.nn names, with the
RNN cells (tf.nn.rnn_cell) and the functions that unroll them."""
from flowvm.tf.ops.nn import *  # noqa: F401,F403
from flowvm.tf.ops import rnn_cell  # noqa: F401
from flowvm.tf.ops.rnn import (  # noqa: F401
    dynamic_rnn, static_rnn, bidirectional_dynamic_rnn, static_bidirectional_rnn)
