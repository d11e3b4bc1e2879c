"""tf.contrib.rnn: TensorFlow 1.x's RNN cells and unrolling functions under
their contrib names (the same classes as tf.nn.rnn_cell's)."""
from flowvm.tf.ops.rnn import static_rnn, static_bidirectional_rnn  # noqa: F401
from flowvm.tf.ops.rnn_cell_impl import (  # noqa: F401
    RNNCell, LayerRNNCell, BasicRNNCell, BasicLSTMCell, LSTMCell, GRUCell, MultiRNNCell, LSTMStateTuple,
    DropoutWrapper, ResidualWrapper, DeviceWrapper)
from flowvm.tf.ops.rnn_contrib import (  # noqa: F401
    LSTMBlockCell, stack_bidirectional_dynamic_rnn, stack_bidirectional_rnn)
