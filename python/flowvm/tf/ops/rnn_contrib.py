"""The parts of tf.contrib.rnn that are not tf.nn's: LSTMBlockCell (the
fused LSTM's cell, here the same computation as LSTMCell with peepholes,
under the same variable names) and the stacked bidirectional RNNs."""
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import rnn
from flowvm.tf.ops import rnn_cell_impl
from flowvm.tf.ops import variable_scope as vs

__all__ = ["LSTMBlockCell", "stack_bidirectional_dynamic_rnn", "stack_bidirectional_rnn"]


class LSTMBlockCell(rnn_cell_impl.LSTMCell):
    """tf.contrib.rnn.LSTMBlockCell: TensorFlow computes it with the fused
    LSTMBlockCell op; the equations, the variables ("lstm_cell/kernel",
    "lstm_cell/bias", w_i_diag, w_f_diag, w_o_diag) and the gate order
    (i, j, f, o) are LSTMCell's. cell_clip None or <= 0: no clipping."""

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False, dtype=None, reuse=None,
                 name="lstm_cell"):
        super(LSTMBlockCell, self).__init__(
            num_units, use_peepholes=use_peephole,
            cell_clip=cell_clip if cell_clip is not None and cell_clip > 0 else None, forget_bias=forget_bias,
            reuse=reuse, name=name, dtype=dtype)


def _check_stack_args(cells_fw, cells_bw, initial_states_fw, initial_states_bw):
    if not cells_fw:
        raise ValueError("Must specify at least one fw cell for BidirectionalRNN.")
    if not cells_bw:
        raise ValueError("Must specify at least one bw cell for BidirectionalRNN.")
    if not isinstance(cells_fw, list):
        raise ValueError("cells_fw must be a list of RNNCells (one per layer).")
    if not isinstance(cells_bw, list):
        raise ValueError("cells_bw must be a list of RNNCells (one per layer).")
    if len(cells_fw) != len(cells_bw):
        raise ValueError("Forward and Backward cells must have the same depth.")
    if initial_states_fw is not None and (not isinstance(initial_states_fw, list)
                                          or len(initial_states_fw) != len(cells_fw)):
        raise ValueError("initial_states_fw must be a list of state tensors (one per layer).")
    if initial_states_bw is not None and (not isinstance(initial_states_bw, list)
                                          or len(initial_states_bw) != len(cells_bw)):
        raise ValueError("initial_states_bw must be a list of state tensors (one per layer).")


def stack_bidirectional_dynamic_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None, initial_states_bw=None,
                                    dtype=None, sequence_length=None, parallel_iterations=None, time_major=False,
                                    scope=None, swap_memory=False):
    """Layers of bidirectional_dynamic_rnn ("stack_bidirectional_rnn/cell_<i>"),
    each fed the concatenated [fw, bw] outputs of the one below. Returns
    (outputs, output_states_fw, output_states_bw)."""
    _check_stack_args(cells_fw, cells_bw, initial_states_fw, initial_states_bw)
    states_fw, states_bw = [], []
    prev_layer = inputs
    with vs.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
            with vs.variable_scope("cell_%d" % i):
                outputs, (state_fw, state_bw) = rnn.bidirectional_dynamic_rnn(
                    cell_fw, cell_bw, prev_layer,
                    initial_state_fw=initial_states_fw[i] if initial_states_fw else None,
                    initial_state_bw=initial_states_bw[i] if initial_states_bw else None,
                    sequence_length=sequence_length, parallel_iterations=parallel_iterations, dtype=dtype,
                    swap_memory=swap_memory, time_major=time_major)
                prev_layer = array_ops.concat(outputs, 2)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return prev_layer, tuple(states_fw), tuple(states_bw)


def stack_bidirectional_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None, initial_states_bw=None, dtype=None,
                            sequence_length=None, scope=None):
    """stack_bidirectional_dynamic_rnn over a list of inputs with
    static_bidirectional_rnn."""
    _check_stack_args(cells_fw, cells_bw, initial_states_fw, initial_states_bw)
    states_fw, states_bw = [], []
    prev_layer = inputs
    with vs.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
            with vs.variable_scope("cell_%d" % i) as cell_scope:
                prev_layer, state_fw, state_bw = rnn.static_bidirectional_rnn(
                    cell_fw, cell_bw, prev_layer,
                    initial_state_fw=initial_states_fw[i] if initial_states_fw else None,
                    initial_state_bw=initial_states_bw[i] if initial_states_bw else None,
                    sequence_length=sequence_length, dtype=dtype, scope=cell_scope)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return prev_layer, tuple(states_fw), tuple(states_bw)
