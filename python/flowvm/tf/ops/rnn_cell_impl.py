"""TensorFlow 1.x's RNN cells (TF's ops/rnn_cell_impl.py): tf.nn.rnn_cell.

A cell maps (inputs [batch, input_size], state) to (output, new state) for
one time step; rnn.py unrolls it. The cells are layers: their variables are
made on the first call, under a scope named after the class inside the
caller's variable scope, with TensorFlow's names, shapes and gate layouts,
so checkpoints and GraphDefs line up with TF's:

- BasicRNNCell: rnn/basic_rnn_cell/{kernel [in+units, units], bias}
- BasicLSTMCell: rnn/basic_lstm_cell/{kernel [in+units, 4*units], bias};
  gates i, j, f, o in that order along the kernel's columns.
- LSTMCell: rnn/lstm_cell/{kernel [in+proj_or_units, 4*units], bias,
  w_f_diag, w_i_diag, w_o_diag, projection/kernel [units, proj]}.
- GRUCell: rnn/gru_cell/gates/{kernel [in+units, 2*units], bias (ones)}
  (r then u) and rnn/gru_cell/candidate/{kernel [in+units, units], bias}.
- MultiRNNCell: rnn/multi_rnn_cell/cell_<i>/<cell's own scope>.

Later calls reuse the variables (a built layer enters its scope with
reuse=True); a second cell object under the same scope makes its own
scope ("basic_lstm_cell_1") unless reuse is set, as in TensorFlow.
"""
import collections

from flowvm.tf.framework import constant_op
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_shape
from flowvm.tf.framework import tensor_util
from flowvm.tf.layers import base as base_layer
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import init_ops
from flowvm.tf.ops import math_ops
from flowvm.tf.ops import nn_ops
from flowvm.tf.ops import rnn_cell_wrapper_impl
from flowvm.tf.ops import variable_scope as vs
from flowvm.tf.platform import tf_logging as logging
from flowvm.tf.util import nest

__all__ = ["RNNCell", "LayerRNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell", "MultiRNNCell",
           "LSTMStateTuple", "DropoutWrapper", "ResidualWrapper", "DeviceWrapper", "assert_like_rnncell"]

_BIAS_VARIABLE_NAME = "bias"
_WEIGHTS_VARIABLE_NAME = "kernel"

ASSERT_LIKE_RNNCELL_ERROR_REGEXP = "is not an RNNCell"


def assert_like_rnncell(cell_name, cell):
    """TypeError unless `cell` has output_size, state_size, zero_state (or
    get_initial_state) and is callable."""
    conditions = [hasattr(cell, "output_size"), hasattr(cell, "state_size"),
                  hasattr(cell, "get_initial_state") or hasattr(cell, "zero_state"), callable(cell)]
    errors = ["'output_size' property is missing", "'state_size' property is missing",
              "either 'zero_state' or 'get_initial_state' method is required", "is not callable"]
    if not all(conditions):
        missing = [e for e, ok in zip(errors, conditions) if not ok]
        raise TypeError("The argument {!r} ({}) is not an RNNCell: {}.".format(cell_name, cell, ", ".join(missing)))


def _concat(prefix, suffix, static=False):
    """prefix + suffix, each an int, a TensorShape or a scalar/vector int32
    tensor: a 1-D tensor, or (static) a list with None for unknown dims."""
    def part(x, what):
        if isinstance(x, ops.Tensor):
            value = tensor_util.constant_value(x)
            if x.shape.ndims == 0:
                static_part = [int(value)] if value is not None else [None]
                x = array_ops.expand_dims(x, 0)
            elif x.shape.ndims == 1:
                n = x.shape.as_list()[0]
                static_part = ([int(v) for v in value] if value is not None else
                               ([None] * n if n is not None else None))
            else:
                raise ValueError("%s tensor must be either a scalar or vector, but saw tensor: %s" % (what, x))
            return x, static_part
        s = tensor_shape.as_shape(x)
        static_part = s.as_list() if s.ndims is not None else None
        dynamic = constant_op.constant(s.as_list(), dtype=dtypes.int32) if s.is_fully_defined() else None
        return dynamic, static_part

    p, p_static = part(prefix, "prefix")
    s, s_static = part(suffix, "suffix")
    if static:
        if p_static is None or s_static is None:
            return None
        return p_static + s_static
    if p is None or s is None:
        raise ValueError("Provided a prefix or suffix of None: %s and %s" % (prefix, suffix))
    return array_ops.concat((p, s), 0)


def _zero_state_tensors(state_size, batch_size, dtype):
    def zeros_of(size):
        z = array_ops.zeros(_concat(batch_size, size), dtype=dtype)
        static = _concat(batch_size, size, static=True)
        if static is not None:
            z.set_shape(static)
        return z
    return nest.map_structure(zeros_of, state_size)


def _check_rnn_cell_input_dtypes(inputs):
    for t in nest.flatten(inputs):
        dtype = dtypes.as_dtype(t.dtype)
        if not (dtype.is_floating or dtype.is_complex):
            raise ValueError("RNN cell only supports floating point inputs, but saw dtype: %s" % dtype)


def _activation(activation):
    """None (tanh), a callable, or one of Keras' activation names."""
    if activation is None:
        return math_ops.tanh
    if callable(activation):
        return activation
    table = {"tanh": math_ops.tanh, "sigmoid": math_ops.sigmoid, "relu": nn_ops.relu, "elu": nn_ops.elu,
             "softplus": nn_ops.softplus, "softsign": nn_ops.softsign, "linear": lambda x: x}
    if activation not in table:
        raise ValueError("Unknown activation function: %s" % activation)
    return table[activation]


class RNNCell(base_layer.Layer):
    """The base of the cells: state_size, output_size, zero_state and
    __call__(inputs, state, scope=None) -> (output, new_state).

    A subclass implements call(inputs, state) (or, old style, __call__).
    Variables it makes with tf.get_variable while called are tracked as its
    weights."""

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        super(RNNCell, self).__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._is_tf_rnn_cell = True

    def __call__(self, inputs, state, scope=None):
        if scope is not None:
            with vs.variable_scope(scope, custom_getter=self._rnn_get_variable) as scope:
                return super(RNNCell, self).__call__(inputs, state, scope=scope)
        # The scope current at the first call, entered again by later calls.
        cm = getattr(self, "rnncell_scope", None)
        if cm is None:
            cm = vs.variable_scope(vs.get_variable_scope(), custom_getter=self._rnn_get_variable)
            self.rnncell_scope = cm
        with cm:
            return super(RNNCell, self).__call__(inputs, state)

    def _rnn_get_variable(self, getter, *args, **kwargs):
        variable = getter(*args, **kwargs)
        trainable = bool(getattr(variable, "trainable", False))
        weights = self._trainable_weights if trainable else self._non_trainable_weights
        if not any(v is variable for v in weights):
            weights.append(variable)
        return variable

    @property
    def state_size(self):
        """An int, a TensorShape, or a (nested) tuple of them."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        raise NotImplementedError("Abstract method")

    def build(self, _):
        pass

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        if inputs is not None:
            inputs = ops.convert_to_tensor(inputs, name="inputs")
            if batch_size is not None:
                static = tensor_util.constant_value(batch_size) if isinstance(batch_size, ops.Tensor) \
                    else batch_size
                if inputs.shape[0].value != static:
                    raise ValueError("batch size from input tensor is different from the input param. Input tensor "
                                     "batch: {}, batch_size: {}".format(inputs.shape[0].value, batch_size))
            if dtype is not None and inputs.dtype != dtype:
                raise ValueError("dtype from input tensor is different from the input param. Input tensor dtype: "
                                 "{}, dtype: {}".format(inputs.dtype, dtype))
            batch_size = inputs.shape[0].value or array_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError("batch_size and dtype cannot be None while constructing initial state: batch_size={}, "
                             "dtype={}".format(batch_size, dtype))
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size, dtype):
        """Zeros of [batch_size] + s for each s in state_size (same nesting)."""
        with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return _zero_state_tensors(self.state_size, batch_size, dtype)


class LayerRNNCell(RNNCell):
    """A cell that makes its variables in build() (add_weight), as a layer."""

    def __call__(self, inputs, state, scope=None, *args, **kwargs):
        return base_layer.Layer.__call__(self, inputs, state, scope=scope, *args, **kwargs)

    def _input_depth(self, inputs_shape):
        shape = tensor_shape.as_shape(inputs_shape)
        if shape.ndims is not None and shape.ndims != 2:
            raise ValueError("Input 0 of layer %s is incompatible with the layer: expected ndim=2, found ndim=%d. "
                             "Full shape received: %s" % (self.name, shape.ndims, shape.as_list()))
        depth = shape[-1].value if shape.ndims else None
        if depth is None:
            raise ValueError("Expected inputs.shape[-1] to be known, saw shape: %s" % shape)
        return depth


class BasicRNNCell(LayerRNNCell):
    """output = new_state = activation(concat([inputs, state]) @ kernel + bias)."""

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super(BasicRNNCell, self).__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = num_units
        self._activation = _activation(activation)

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = self._input_depth(inputs_shape)
        self._kernel = self.add_weight(_WEIGHTS_VARIABLE_NAME, shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_weight(_BIAS_VARIABLE_NAME, shape=[self._num_units],
                                     initializer=init_ops.zeros_initializer(dtype=self.dtype))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel)
        output = self._activation(nn_ops.bias_add(gate_inputs, self._bias))
        return output, output


class GRUCell(LayerRNNCell):
    """Gated recurrent unit (Cho et al. 2014) as TensorFlow lays it out:
    r, u = split(sigmoid(concat([x, h]) @ gates/kernel + gates/bias))
    c = activation(concat([x, r * h]) @ candidate/kernel + candidate/bias)
    h' = u * h + (1 - u) * c. The gate bias starts at 1."""

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None, bias_initializer=None,
                 name=None, dtype=None, **kwargs):
        super(GRUCell, self).__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self._num_units = num_units
        self._activation = _activation(activation)
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = self._input_depth(inputs_shape)
        n = self._num_units
        self._gate_kernel = self.add_weight("gates/" + _WEIGHTS_VARIABLE_NAME, shape=[depth + n, 2 * n],
                                            initializer=self._kernel_initializer)
        self._gate_bias = self.add_weight(
            "gates/" + _BIAS_VARIABLE_NAME, shape=[2 * n],
            initializer=(self._bias_initializer if self._bias_initializer is not None
                         else init_ops.constant_initializer(1.0, dtype=self.dtype)))
        self._candidate_kernel = self.add_weight("candidate/" + _WEIGHTS_VARIABLE_NAME, shape=[depth + n, n],
                                                 initializer=self._kernel_initializer)
        self._candidate_bias = self.add_weight(
            "candidate/" + _BIAS_VARIABLE_NAME, shape=[n],
            initializer=(self._bias_initializer if self._bias_initializer is not None
                         else init_ops.zeros_initializer(dtype=self.dtype)))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = nn_ops.bias_add(math_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel),
                                      self._gate_bias)
        r, u = array_ops.split(value=math_ops.sigmoid(gate_inputs), num_or_size_splits=2, axis=1)
        candidate = nn_ops.bias_add(math_ops.matmul(array_ops.concat([inputs, r * state], 1),
                                                    self._candidate_kernel), self._candidate_bias)
        c = self._activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


_LSTMStateTuple = collections.namedtuple("LSTMStateTuple", ("c", "h"))


class LSTMStateTuple(_LSTMStateTuple):
    """(c, h): an LSTM's cell state and its output (hidden state)."""
    __slots__ = ()

    @property
    def dtype(self):
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError("Inconsistent internal state: %s vs %s" % (str(c.dtype), str(h.dtype)))
        return c.dtype


class BasicLSTMCell(LayerRNNCell):
    """LSTM without peepholes or projection (Zaremba et al. 2014):
    i, j, f, o = split(concat([x, h]) @ kernel + bias, 4)
    c' = c * sigmoid(f + forget_bias) + sigmoid(i) * activation(j)
    h' = activation(c') * sigmoid(o)."""

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super(BasicLSTMCell, self).__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        if not state_is_tuple:
            logging.warning("%s: Using a concatenated state is slower and will soon be deprecated.  Use "
                            "state_is_tuple=True.", self)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)

    @property
    def state_size(self):
        return (LSTMStateTuple(self._num_units, self._num_units) if self._state_is_tuple else 2 * self._num_units)

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = self._input_depth(inputs_shape)
        n = self._num_units
        self._kernel = self.add_weight(_WEIGHTS_VARIABLE_NAME, shape=[depth + n, 4 * n])
        self._bias = self.add_weight(_BIAS_VARIABLE_NAME, shape=[4 * n],
                                     initializer=init_ops.zeros_initializer(dtype=self.dtype))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_ops.split(value=state, num_or_size_splits=2, axis=1)
        gate_inputs = nn_ops.bias_add(math_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel), self._bias)
        i, j, f, o = array_ops.split(value=gate_inputs, num_or_size_splits=4, axis=1)
        forget_bias = constant_op.constant(self._forget_bias, dtype=f.dtype)
        new_c = math_ops.add(math_ops.multiply(c, math_ops.sigmoid(math_ops.add(f, forget_bias))),
                             math_ops.multiply(math_ops.sigmoid(i), self._activation(j)))
        new_h = math_ops.multiply(self._activation(new_c), math_ops.sigmoid(o))
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else array_ops.concat([new_c, new_h], 1)
        return new_h, new_state


class LSTMCell(LayerRNNCell):
    """LSTM with optional peepholes (w_i_diag, w_f_diag, w_o_diag), cell
    clipping, and a projection of the output (Sak et al. 2014):
    c' = sigmoid(f + forget_bias [+ w_f_diag * c]) * c + sigmoid(i [+ w_i_diag * c]) * act(j),
    c' clipped to [-cell_clip, cell_clip],
    m = sigmoid(o [+ w_o_diag * c']) * act(c'), then m @ projection/kernel
    clipped to [-proj_clip, proj_clip]. State (c', m)."""

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None, num_proj=None,
                 proj_clip=None, num_unit_shards=None, num_proj_shards=None, forget_bias=1.0, state_is_tuple=True,
                 activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super(LSTMCell, self).__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        if not state_is_tuple:
            logging.warning("%s: Using a concatenated state is slower and will soon be deprecated.  Use "
                            "state_is_tuple=True.", self)
        for what, shards in (("num_unit_shards", num_unit_shards), ("num_proj_shards", num_proj_shards)):
            if shards is not None and shards != 1:
                raise NotImplementedError("LSTMCell: %s=%s asks for partitioned variables, which flowvm does not "
                                          "support; leave it None" % (what, shards))
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._num_unit_shards = num_unit_shards
        self._num_proj_shards = num_proj_shards
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)
        if num_proj:
            self._state_size = (LSTMStateTuple(num_units, num_proj) if state_is_tuple else num_units + num_proj)
            self._output_size = num_proj
        else:
            self._state_size = (LSTMStateTuple(num_units, num_units) if state_is_tuple else 2 * num_units)
            self._output_size = num_units

    @property
    def state_size(self):
        return self._state_size

    @property
    def output_size(self):
        return self._output_size

    def build(self, inputs_shape):
        depth = self._input_depth(inputs_shape)
        n = self._num_units
        h_depth = self._num_proj if self._num_proj is not None else n
        self._kernel = self.add_weight(_WEIGHTS_VARIABLE_NAME, shape=[depth + h_depth, 4 * n],
                                       initializer=self._initializer)
        self._bias = self.add_weight(_BIAS_VARIABLE_NAME, shape=[4 * n],
                                     initializer=init_ops.zeros_initializer(dtype=self.dtype))
        if self._use_peepholes:
            self._w_f_diag = self.add_weight("w_f_diag", shape=[n], initializer=self._initializer)
            self._w_i_diag = self.add_weight("w_i_diag", shape=[n], initializer=self._initializer)
            self._w_o_diag = self.add_weight("w_o_diag", shape=[n], initializer=self._initializer)
        if self._num_proj is not None:
            self._proj_kernel = self.add_weight("projection/" + _WEIGHTS_VARIABLE_NAME, shape=[n, self._num_proj],
                                                initializer=self._initializer)
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        num_proj = self._num_units if self._num_proj is None else self._num_proj
        sigmoid = math_ops.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = array_ops.slice(state, [0, 0], [-1, self._num_units])
            m_prev = array_ops.slice(state, [0, self._num_units], [-1, num_proj])
        input_size = inputs.get_shape().with_rank(2)[1].value
        if input_size is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]")
        lstm_matrix = nn_ops.bias_add(math_ops.matmul(array_ops.concat([inputs, m_prev], 1), self._kernel),
                                      self._bias)
        i, j, f, o = array_ops.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev
                 + sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = math_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = math_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else array_ops.concat([c, m], 1)
        return m, new_state


class MultiRNNCell(RNNCell):
    """Cells stacked: each one's output is the next one's input; the state
    is the tuple of their states (or, state_is_tuple=False, their
    concatenation). Cell i's variables live under "cell_<i>"."""

    def __init__(self, cells, state_is_tuple=True):
        super(MultiRNNCell, self).__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_sequence(cells):
            raise TypeError("cells must be a list or tuple, but saw: %s." % (cells,))
        if len(set(id(cell) for cell in cells)) < len(cells):
            logging.log_first_n(logging.WARN, "At least two cells provided to MultiRNNCell are the same object "
                                "and will share weights.", 1)
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(nest.is_sequence(c.state_size) for c in self._cells):
            raise ValueError("Some cells return tuples of states, but the flag state_is_tuple is not set.  State "
                             "sizes are: %s" % str([c.state_size for c in self._cells]))

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return super(MultiRNNCell, self).zero_state(batch_size, dtype)

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return [w for cell in self._cells if isinstance(cell, base_layer.Layer) for w in cell.trainable_weights]

    @property
    def non_trainable_weights(self):
        weights = [w for cell in self._cells if isinstance(cell, base_layer.Layer)
                   for w in cell.non_trainable_weights]
        if not self.trainable:
            weights = [w for cell in self._cells if isinstance(cell, base_layer.Layer)
                       for w in cell.trainable_weights] + weights
        return weights

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    def call(self, inputs, state):
        cur_state_pos = 0
        cur_inp = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with vs.variable_scope("cell_%d" % i):
                if self._state_is_tuple:
                    if not nest.is_sequence(state):
                        raise ValueError("Expected state to be a tuple of length %d, but received: %s"
                                         % (len(self.state_size), state))
                    cur_state = state[i]
                else:
                    cur_state = array_ops.slice(state, [0, cur_state_pos], [-1, cell.state_size])
                    cur_state_pos += cell.state_size
                cur_inp, new_state = cell(cur_inp, cur_state)
                new_states.append(new_state)
        new_states = tuple(new_states) if self._state_is_tuple else array_ops.concat(new_states, 1)
        return cur_inp, new_states


# ---- wrappers -----------------------------------------------------------------
class _RNNCellWrapperV1(RNNCell):
    """A cell around `cell`: no scope of its own; state and output sizes,
    zero state and weights are the wrapped cell's."""

    def __init__(self, cell, dtype=None, **kwargs):
        super(_RNNCellWrapperV1, self).__init__(dtype=dtype, **kwargs)
        assert_like_rnncell("cell", cell)
        self.cell = cell

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        raise NotImplementedError

    def __call__(self, inputs, state, scope=None):
        return self._call_wrapped_cell(inputs, state, cell_call_fn=self.cell.__call__, scope=scope)

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        return self.cell.output_size

    def zero_state(self, batch_size, dtype):
        with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return self.cell.zero_state(batch_size, dtype)

    @property
    def trainable_weights(self):
        return list(getattr(self.cell, "trainable_weights", [])) if self.trainable else []

    @property
    def non_trainable_weights(self):
        return list(getattr(self.cell, "non_trainable_weights", []))

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights


class DropoutWrapper(rnn_cell_wrapper_impl.DropoutWrapperBase, _RNNCellWrapperV1):
    """Dropout on a cell's inputs, outputs and new state; the c of an
    LSTMStateTuple is never dropped (unless dropout_state_filter_visitor
    says otherwise)."""

    def _default_dropout_state_filter(self, substate):
        if isinstance(substate, LSTMStateTuple):
            return LSTMStateTuple(c=False, h=True)
        if not isinstance(substate, ops.Tensor) and hasattr(substate, "flow") and hasattr(substate, "stack"):
            return False  # a TensorArray
        return True


class ResidualWrapper(rnn_cell_wrapper_impl.ResidualWrapperBase, _RNNCellWrapperV1):
    """The cell's outputs plus its inputs (or residual_fn(inputs, outputs))."""


class DeviceWrapper(rnn_cell_wrapper_impl.DeviceWrapperBase, _RNNCellWrapperV1):
    """The cell placed on a device."""
