"""The behaviour of TensorFlow 1.x's RNN cell wrappers (TF's
ops/rnn_cell_wrapper_impl.py): dropout around a cell, a residual
connection, a device for a cell.

These are mixins without a base class of their own: rnn_cell_impl puts
each in front of its RNNCell base to make tf.nn.rnn_cell.DropoutWrapper,
ResidualWrapper and DeviceWrapper. A wrapper adds no variable scope: the
wrapped cell's variables keep their names ("rnn/basic_lstm_cell/kernel").
"""
import hashlib
import numbers

from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_shape
from flowvm.tf.framework import tensor_util
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import math_ops
from flowvm.tf.ops import nn_ops
from flowvm.tf.ops import random_ops
from flowvm.tf.util import nest


# ---- structure helpers (TF's nest.map_structure_up_to and friends) ------------
def _flatten_up_to(shallow, structure):
    """`structure` flattened only as deep as `shallow` goes."""
    if not nest.is_sequence(shallow):
        return [structure]
    if not nest.is_sequence(structure):
        raise TypeError("If shallow structure is a sequence, input must also be a sequence. Input has type: %s."
                        % type(structure))
    s_children, children = nest._children(shallow), nest._children(structure)
    if len(s_children) != len(children):
        raise ValueError("The two structures don't have the same sequence length. Input structure has length %d, "
                         "while shallow structure has length %d." % (len(children), len(s_children)))
    out = []
    for s, c in zip(s_children, children):
        out.extend(_flatten_up_to(s, c))
    return out


def map_structure_up_to(shallow, fn, *structures):
    flats = [_flatten_up_to(shallow, s) for s in structures]
    return nest.pack_sequence_as(shallow, [fn(*args) for args in zip(*flats)])


def enumerated_map_structure_up_to(shallow, fn, *structures):
    """map_structure_up_to with fn(index, *leaves): leaves numbered in order."""
    counter = [0]

    def numbered(*args):
        i = counter[0]
        counter[0] += 1
        return fn(i, *args)
    return map_structure_up_to(shallow, numbered, *structures)


def get_traverse_shallow_structure(traverse_fn, structure):
    """The booleans traverse_fn chooses, as a structure shallower than
    `structure`: True enters (or keeps) a part, False leaves it out."""
    to_traverse = traverse_fn(structure)
    if not nest.is_sequence(structure):
        if not isinstance(to_traverse, bool):
            raise TypeError("traverse_fn returned structure: %s for non-structure: %s" % (to_traverse, structure))
        return to_traverse
    level = []
    if isinstance(to_traverse, bool):
        if not to_traverse:
            return False
        for branch in nest._children(structure):
            level.append(get_traverse_shallow_structure(traverse_fn, branch))
    elif not nest.is_sequence(to_traverse):
        raise TypeError("traverse_fn returned a non-bool scalar: %s for input: %s" % (to_traverse, structure))
    else:
        flags = _flatten_up_to(to_traverse, to_traverse)
        if len(flags) != len(nest._children(structure)):
            raise ValueError("traverse_fn returned %s, which does not match the structure %s"
                             % (to_traverse, structure))
        for t, branch in zip(flags, nest._children(structure)):
            if not isinstance(t, bool):
                raise TypeError("traverse_fn didn't return a depth=1 structure of bools.  saw: %s for structure: %s"
                                % (to_traverse, structure))
            level.append(get_traverse_shallow_structure(traverse_fn, branch) if t else False)
    return nest._sequence_like(structure, level)


# ---- DropoutWrapper -----------------------------------------------------------
class DropoutWrapperBase(object):
    """Dropout on a cell's inputs, outputs and (filtered) new state.

    keep probabilities are floats in [0, 1] or scalar tensors; a constant 1
    adds no op. With variational_recurrent, one mask per wrapper ([1, size],
    the same for every example and every step) is drawn when the wrapper is
    made, as TensorFlow does."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None, **kwargs):
        super(DropoutWrapperBase, self).__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._dropout_state_filter = dropout_state_filter_visitor or self._default_dropout_state_filter
        with ops.name_scope("DropoutWrapperInit"):
            for prob, attr in [(input_keep_prob, "input_keep_prob"), (state_keep_prob, "state_keep_prob"),
                               (output_keep_prob, "output_keep_prob")]:
                tensor_prob = ops.convert_to_tensor(prob)
                const_prob = tensor_util.constant_value(tensor_prob)
                if const_prob is not None:
                    if const_prob < 0 or const_prob > 1:
                        raise ValueError("Parameter %s must be between 0 and 1: %d" % (attr, const_prob))
                    setattr(self, "_%s" % attr, float(const_prob))
                else:
                    setattr(self, "_%s" % attr, tensor_prob)
        self._variational_recurrent = variational_recurrent
        self._seed = seed
        self._recurrent_input_noise = None
        self._recurrent_state_noise = None
        self._recurrent_output_noise = None
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")

            def batch_noise(s, inner_seed):
                shape = array_ops.concat(([1], tensor_shape.TensorShape(s).as_list()), 0)
                return random_ops.random_uniform(shape, seed=inner_seed, dtype=dtype)

            if not isinstance(self._input_keep_prob, numbers.Real) or self._input_keep_prob < 1.0:
                if input_size is None:
                    raise ValueError("When variational_recurrent=True and input_keep_prob < 1.0 or is unknown, "
                                     "input_size must be provided")
                self._recurrent_input_noise = enumerated_map_structure_up_to(
                    input_size, lambda i, s: batch_noise(s, self._gen_seed("input", i)), input_size)
            self._recurrent_state_noise = enumerated_map_structure_up_to(
                cell.state_size, lambda i, s: batch_noise(s, self._gen_seed("state", i)), cell.state_size)
            self._recurrent_output_noise = enumerated_map_structure_up_to(
                cell.output_size, lambda i, s: batch_noise(s, self._gen_seed("output", i)), cell.output_size)

    def _default_dropout_state_filter(self, substate):
        return True

    def _gen_seed(self, salt_prefix, index):
        """The op seed of one dropout: TensorFlow's digest of the wrapper's
        seed and "<input|state|output>_<index>"."""
        if self._seed is None:
            return None
        salt = "%s_%d" % (salt_prefix, index)
        digest = hashlib.md5((str(self._seed) + salt).encode("utf-8")).hexdigest()
        return int(digest[:8], 16) & 0x7FFFFFFF

    @property
    def wrapped_cell(self):
        return self.cell

    def _variational_recurrent_dropout_value(self, index, value, noise, keep_prob):
        # keep_prob + U[0, 1) floors to 1 with probability keep_prob.
        binary = math_ops.floor(keep_prob + noise)
        ret = math_ops.div(value, keep_prob) * binary
        ret.set_shape(value.get_shape())
        return ret

    def _dropout(self, values, salt_prefix, recurrent_noise, keep_prob, shallow_filtered_substructure=None):
        if shallow_filtered_substructure is None:
            shallow_filtered_substructure = values
        if not self._variational_recurrent:
            def dropout(i, do_dropout, v):
                if not isinstance(do_dropout, bool) or do_dropout:
                    return nn_ops.dropout(v, keep_prob=keep_prob, seed=self._gen_seed(salt_prefix, i))
                return v
            return enumerated_map_structure_up_to(shallow_filtered_substructure, dropout,
                                                  shallow_filtered_substructure, values)

        def variational(i, do_dropout, v, n):
            if not isinstance(do_dropout, bool) or do_dropout:
                return self._variational_recurrent_dropout_value(i, v, n, keep_prob)
            return v
        return enumerated_map_structure_up_to(shallow_filtered_substructure, variational,
                                              shallow_filtered_substructure, values, recurrent_noise)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        def should_dropout(p):
            return not isinstance(p, float) or p < 1

        if should_dropout(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._recurrent_input_noise, self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if should_dropout(self._state_keep_prob):
            shallow = get_traverse_shallow_structure(self._dropout_state_filter, new_state)
            new_state = self._dropout(new_state, "state", self._recurrent_state_noise, self._state_keep_prob,
                                      shallow)
        if should_dropout(self._output_keep_prob):
            output = self._dropout(output, "output", self._recurrent_output_noise, self._output_keep_prob)
        return output, new_state


# ---- ResidualWrapper ----------------------------------------------------------
class ResidualWrapperBase(object):
    """outputs = residual_fn(inputs, cell outputs); by default inputs + outputs
    (the two must have the same structure and compatible shapes)."""

    def __init__(self, cell, residual_fn=None, **kwargs):
        super(ResidualWrapperBase, self).__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def check_shape(inp, out):
            inp.get_shape().assert_is_compatible_with(out.get_shape())

        def default_residual_fn(inputs, outputs):
            nest.assert_same_structure(inputs, outputs)
            nest.map_structure(check_shape, inputs, outputs)
            return nest.map_structure(lambda inp, out: inp + out, inputs, outputs)
        return (self._residual_fn or default_residual_fn)(inputs, outputs), new_state


# ---- DeviceWrapper ------------------------------------------------------------
class DeviceWrapperBase(object):
    """Runs the cell (and makes its zero state) on `device`."""

    def __init__(self, cell, device, **kwargs):
        super(DeviceWrapperBase, self).__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size, dtype):
        with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            with ops.device(self._device):
                return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        with ops.device(self._device):
            return cell_call_fn(inputs, state, **kwargs)
