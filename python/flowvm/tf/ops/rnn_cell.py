"""tf.nn.rnn_cell (TF's ops/rnn_cell.py): the RNN cells and wrappers of
rnn_cell_impl under their public names."""
from flowvm.tf.ops.rnn_cell_impl import (  # noqa: F401
    RNNCell, BasicRNNCell, BasicLSTMCell, LSTMCell, GRUCell, MultiRNNCell, LSTMStateTuple, DropoutWrapper,
    ResidualWrapper, DeviceWrapper)

__all__ = ["RNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell", "MultiRNNCell", "LSTMStateTuple",
           "DropoutWrapper", "ResidualWrapper", "DeviceWrapper"]
