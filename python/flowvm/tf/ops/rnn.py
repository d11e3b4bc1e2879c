"""Unrolling RNN cells over time (TF's ops/rnn.py): tf.nn.dynamic_rnn,
static_rnn, bidirectional_dynamic_rnn and static_bidirectional_rnn.

dynamic_rnn builds what TensorFlow builds: the inputs, time-major, are
unstacked into TensorArrays; a while loop reads step t, calls the cell
and writes its output into an output TensorArray; the outputs are
stacked at the end. The loop runs max(sequence_length) steps (all of
them without sequence_length). With sequence_length, a batch entry whose
sequence has ended (t >= its length) gets zeros as output and keeps its
state, by Select against the step's results, so its final state is the
state at its length. Variables are made under the scope "rnn" (or
`scope`): "rnn/basic_lstm_cell/kernel".

static_rnn calls the cell once per element of a Python list of inputs,
reusing the variables from the second step on; with sequence_length it
uses the same copy-through under tf.cond.
"""
from flowvm.tf.framework import constant_op
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_shape
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import control_flow_ops
from flowvm.tf.ops import math_ops
from flowvm.tf.ops import rnn_cell_impl
from flowvm.tf.ops import tensor_array_ops
from flowvm.tf.ops import variable_scope as vs
from flowvm.tf.util import nest

__all__ = ["dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn", "static_bidirectional_rnn"]

_concat = rnn_cell_impl._concat


def _transpose_batch_time(x):
    """[batch, time, ...] <-> [time, batch, ...] (rank < 2: unchanged)."""
    x = ops.convert_to_tensor(x)
    shape = x.get_shape()
    if shape.ndims is not None and shape.ndims < 2:
        return x
    rank = array_ops.rank(x)
    perm = array_ops.concat(([1, 0], math_ops.range(2, rank)), axis=0)
    x_t = array_ops.transpose(x, perm)
    if shape.ndims is not None:
        x_t.set_shape(tensor_shape.TensorShape([shape[1].value, shape[0].value]).concatenate(shape[2:]))
    return x_t


def _best_effort_input_batch_size(flat_input):
    """The batch size (dim 1 of time-major inputs): an int when some input
    knows it, else a scalar tensor."""
    for input_ in flat_input:
        shape = input_.shape
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError("Expected input tensor %s to have rank at least 2" % input_)
        batch_size = shape[1].value
        if batch_size is not None:
            return batch_size
    return array_ops.shape(flat_input[0])[1]


def _infer_state_dtype(explicit_dtype, state):
    if explicit_dtype is not None:
        return explicit_dtype
    if nest.is_sequence(state):
        inferred = [element.dtype for element in nest.flatten(state)]
        if not inferred:
            raise ValueError("Unable to infer dtype from empty state.")
        if not all(x == inferred[0] for x in inferred):
            raise ValueError("State has tensors of different inferred_dtypes. Unable to infer a single "
                             "representative dtype.")
        return inferred[0]
    return state.dtype


def _maybe_tensor_shape_from_tensor(shape):
    if isinstance(shape, ops.Tensor):
        from_value = shape.op.type == "Const"
        if from_value:
            return tensor_shape.as_shape(list(shape.op.get_attr("value").reshape(-1)))
        return tensor_shape.unknown_shape()
    return tensor_shape.as_shape(shape)


def _rnn_step(time, sequence_length, min_sequence_length, max_sequence_length, zero_output, state, call_cell,
              state_size, skip_conditionals=False):
    """One step with sequence lengths: entries with time >= their length
    get zero_output and keep `state`; the others the cell's results.
    skip_conditionals selects every step (dynamic_rnn); otherwise tf.cond
    skips the cell past max_sequence_length and the select before
    min_sequence_length (static_rnn)."""
    flat_state = nest.flatten(state)
    flat_zero_output = nest.flatten(zero_output)
    copy_cond = time >= sequence_length

    def copy_one_through(output, new_output):
        if isinstance(output, tensor_array_ops.TensorArray) or output.shape.ndims == 0:
            return new_output
        with ops.colocate_with(new_output):
            return array_ops.where(copy_cond, output, new_output)

    def copy_some_through(flat_new_output, flat_new_state):
        return ([copy_one_through(z, n) for z, n in zip(flat_zero_output, flat_new_output)]
                + [copy_one_through(s, n) for s, n in zip(flat_state, flat_new_state)])

    def call_and_check():
        new_output, new_state = call_cell()
        nest.assert_same_structure(zero_output, new_output)
        nest.assert_same_structure(state, new_state)
        return nest.flatten(new_output), nest.flatten(new_state)

    if skip_conditionals:
        flat_new_output, flat_new_state = call_and_check()
        final = copy_some_through(flat_new_output, flat_new_state)
    else:
        def maybe_copy_some_through():
            flat_new_output, flat_new_state = call_and_check()
            return control_flow_ops.cond(time < min_sequence_length,
                                         lambda: flat_new_output + flat_new_state,
                                         lambda: copy_some_through(flat_new_output, flat_new_state))
        final = control_flow_ops.cond(time >= max_sequence_length, lambda: flat_zero_output + flat_state,
                                      maybe_copy_some_through)
        final = nest.flatten(final)
    if len(final) != len(flat_zero_output) + len(flat_state):
        raise ValueError("Internal error: state and output were not concatenated correctly.")
    final_output = final[:len(flat_zero_output)]
    final_state = final[len(flat_zero_output):]
    for output, zero in zip(final_output, flat_zero_output):
        output.set_shape(zero.get_shape())
    for substate, old in zip(final_state, flat_state):
        if not isinstance(substate, tensor_array_ops.TensorArray):
            substate.set_shape(old.get_shape())
    return (nest.pack_sequence_as(zero_output, final_output), nest.pack_sequence_as(state, final_state))


def _assert_has_shape(x, shape):
    x_shape = array_ops.shape(x)
    packed_shape = array_ops.stack(shape)
    return control_flow_ops.Assert(
        math_ops.reduce_all(math_ops.equal(x_shape, packed_shape)),
        ["Expected shape for Tensor %s is " % x.name, packed_shape, " but saw shape: ", x_shape])


def _initial_state(cell, initial_state, dtype, batch_size, no_dtype_message):
    if initial_state is not None:
        return initial_state
    if not dtype:
        raise ValueError(no_dtype_message)
    if getattr(cell, "get_initial_state", None) is not None:
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return cell.zero_state(batch_size, dtype)


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None, parallel_iterations=None,
                swap_memory=False, time_major=False, scope=None):
    """Runs `cell` over the time steps of `inputs` in a while loop.

    inputs: [batch, time, ...] (or [time, batch, ...] with time_major), or
    a nested structure of such tensors. Returns (outputs, final_state):
    outputs [batch, time, output_size] (time-major if time_major), zeros
    past each sequence's length; final_state the state at each length."""
    rnn_cell_impl.assert_like_rnncell("cell", cell)
    with vs.variable_scope(scope or "rnn"):
        flat_input = nest.flatten(inputs)
        if not time_major:
            flat_input = [ops.convert_to_tensor(input_) for input_ in flat_input]
            flat_input = tuple(_transpose_batch_time(input_) for input_ in flat_input)
        else:
            flat_input = tuple(ops.convert_to_tensor(input_) for input_ in flat_input)
        parallel_iterations = parallel_iterations or 32
        if sequence_length is not None:
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
            if sequence_length.get_shape().ndims not in (None, 1):
                raise ValueError("sequence_length must be a vector of length batch_size, but saw shape: %s"
                                 % sequence_length.get_shape())
            sequence_length = array_ops.identity(sequence_length, name="sequence_length")
        batch_size = _best_effort_input_batch_size(flat_input)
        state = _initial_state(cell, initial_state, dtype, batch_size,
                               "If there is no initial_state, you must give a dtype.")
        if sequence_length is not None:
            with ops.control_dependencies([_assert_has_shape(sequence_length, [batch_size])]):
                sequence_length = array_ops.identity(sequence_length, name="CheckSeqLen")
        inputs = nest.pack_sequence_as(structure=inputs, flat_sequence=flat_input)
        outputs, final_state = _dynamic_rnn_loop(cell, inputs, state, parallel_iterations=parallel_iterations,
                                                 swap_memory=swap_memory, sequence_length=sequence_length,
                                                 dtype=dtype)
        if not time_major:
            outputs = nest.map_structure(_transpose_batch_time, outputs)
        return outputs, final_state


def _dynamic_rnn_loop(cell, inputs, initial_state, parallel_iterations, swap_memory, sequence_length=None,
                      dtype=None):
    state = initial_state
    state_size = cell.state_size
    flat_input = nest.flatten(inputs)
    flat_output_size = nest.flatten(cell.output_size)

    input_shape = array_ops.shape(flat_input[0])
    time_steps = input_shape[0]
    batch_size = _best_effort_input_batch_size(flat_input)
    inputs_got_shape = tuple(input_.get_shape().with_rank_at_least(3) for input_ in flat_input)
    const_time_steps, const_batch_size = inputs_got_shape[0].as_list()[:2]
    for shape in inputs_got_shape:
        if not shape[2:].is_fully_defined():
            raise ValueError("Input size (depth of inputs) must be accessible via shape inference, but saw value "
                             "None.")
        if const_time_steps != shape[0].value:
            raise ValueError("Time steps is not the same for all the elements in the input in a batch.")
        if const_batch_size != shape[1].value:
            raise ValueError("Batch_size is not the same for all the elements in the input.")

    state_dtype = _infer_state_dtype(dtype, state)

    def create_zero_arrays(size):
        return array_ops.zeros(_concat(batch_size, size), state_dtype)

    flat_zero_output = tuple(create_zero_arrays(output) for output in flat_output_size)
    zero_output = nest.pack_sequence_as(structure=cell.output_size, flat_sequence=flat_zero_output)

    if sequence_length is not None:
        min_sequence_length = math_ops.reduce_min(sequence_length)
        max_sequence_length = math_ops.reduce_max(sequence_length)
    else:
        max_sequence_length = time_steps

    time = constant_op.constant(0, dtype=dtypes.int32, name="time")
    with ops.name_scope("dynamic_rnn") as base_name:
        pass

    def create_ta(name, element_shape, ta_dtype):
        return tensor_array_ops.TensorArray(dtype=ta_dtype, size=time_steps, element_shape=element_shape,
                                            tensor_array_name=base_name + name)

    output_ta = tuple(
        create_ta("output_%d" % i,
                  tensor_shape.TensorShape([const_batch_size]).concatenate(_maybe_tensor_shape_from_tensor(size)),
                  state_dtype)
        for i, size in enumerate(flat_output_size))
    input_ta = tuple(create_ta("input_%d" % i, input_.shape[1:], input_.dtype) for i, input_ in enumerate(flat_input))
    input_ta = tuple(ta.unstack(input_) for ta, input_ in zip(input_ta, flat_input))

    def time_step(time, output_ta_t, state):
        input_t = tuple(ta.read(time) for ta in input_ta)
        for input_, shape in zip(input_t, inputs_got_shape):
            input_.set_shape(shape[1:])
        input_t = nest.pack_sequence_as(structure=inputs, flat_sequence=input_t)

        def call_cell():
            return cell(input_t, state)

        if sequence_length is not None:
            output, new_state = _rnn_step(time=time, sequence_length=sequence_length,
                                          min_sequence_length=min_sequence_length,
                                          max_sequence_length=max_sequence_length, zero_output=zero_output,
                                          state=state, call_cell=call_cell, state_size=state_size,
                                          skip_conditionals=True)
        else:
            output, new_state = call_cell()
        output = nest.flatten(output)
        output_ta_t = tuple(ta.write(time, out) for ta, out in zip(output_ta_t, output))
        return (time + 1, output_ta_t, new_state)

    # At least one step, so that the output TensorArrays learn their
    # element shape even when every sequence is empty.
    loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_sequence_length))
    _, output_final_ta, final_state = control_flow_ops.while_loop(
        cond=lambda time, *_: time < loop_bound, body=time_step, loop_vars=(time, output_ta, state),
        parallel_iterations=parallel_iterations, maximum_iterations=time_steps, swap_memory=swap_memory)

    final_outputs = tuple(ta.stack() for ta in output_final_ta)
    for output, output_size in zip(final_outputs, flat_output_size):
        output.set_shape(_concat([const_time_steps, const_batch_size], output_size, static=True))
    final_outputs = nest.pack_sequence_as(structure=cell.output_size, flat_sequence=final_outputs)
    return final_outputs, final_state


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """Runs `cell` over a Python list of inputs (each [batch, input_size]).

    Returns (outputs, state): the list of outputs and the final state."""
    rnn_cell_impl.assert_like_rnncell("cell", cell)
    if not nest.is_sequence(inputs):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    outputs = []
    with vs.variable_scope(scope or "rnn") as varscope:
        first_input = inputs
        while nest.is_sequence(first_input):
            first_input = first_input[0]
        first_input = ops.convert_to_tensor(first_input)
        if first_input.get_shape().ndims != 1:
            input_shape = first_input.get_shape().with_rank_at_least(2)
            fixed_batch_size = input_shape[0]
            for flat_input in nest.flatten(inputs):
                input_shape = ops.convert_to_tensor(flat_input).get_shape().with_rank_at_least(2)
                fixed_batch_size = fixed_batch_size.merge_with(input_shape[0])
                for i, size in enumerate(input_shape[1:].dims):
                    if tensor_shape.dimension_value(size) is None:
                        raise ValueError("Input size (dimension %d of inputs) must be accessible via shape "
                                         "inference, but saw value None." % i)
        else:
            fixed_batch_size = first_input.get_shape().with_rank_at_least(1)[0]
        if tensor_shape.dimension_value(fixed_batch_size):
            batch_size = tensor_shape.dimension_value(fixed_batch_size)
        else:
            batch_size = array_ops.shape(first_input)[0]
        state = _initial_state(cell, initial_state, dtype, batch_size,
                               "If no initial_state is provided, dtype must be specified")
        if sequence_length is not None:
            sequence_length = ops.convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.get_shape().ndims not in (None, 1):
                raise ValueError("sequence_length must be a vector of length batch_size")

            def create_zero_output(output_size):
                output = array_ops.zeros(_concat(batch_size, output_size), _infer_state_dtype(dtype, state))
                static = _concat(tensor_shape.dimension_value(fixed_batch_size), output_size, static=True)
                if static is not None:
                    output.set_shape(tensor_shape.TensorShape(static))
                return output

            output_size = cell.output_size
            flat_zero_output = tuple(create_zero_output(size) for size in nest.flatten(output_size))
            zero_output = nest.pack_sequence_as(structure=output_size, flat_sequence=flat_zero_output)
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
            min_sequence_length = math_ops.reduce_min(sequence_length)
            max_sequence_length = math_ops.reduce_max(sequence_length)

        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()

            def call_cell(input_=input_, state=state):
                return cell(input_, state)

            if sequence_length is not None:
                output, state = _rnn_step(time=time, sequence_length=sequence_length,
                                          min_sequence_length=min_sequence_length,
                                          max_sequence_length=max_sequence_length, zero_output=zero_output,
                                          state=state, call_cell=call_cell, state_size=cell.state_size)
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state


def _reverse_seq(input_seq, lengths):
    """A list of [batch, ...] steps reversed, each sequence only up to its length."""
    if lengths is None:
        return list(reversed(input_seq))
    flat_input_seq = tuple(nest.flatten(input_) for input_ in input_seq)
    flat_results = [[] for _ in range(len(input_seq))]
    for sequence in zip(*flat_input_seq):
        sequence = [ops.convert_to_tensor(s) for s in sequence]
        input_shape = tensor_shape.unknown_shape(ndims=sequence[0].get_shape().ndims)
        for input_ in sequence:
            input_shape = input_shape.merge_with(input_.get_shape())
            input_.set_shape(input_shape)
        s_joined = array_ops.stack(sequence)
        s_reversed = array_ops.reverse_sequence(s_joined, lengths, seq_axis=0, batch_axis=1)
        result = array_ops.unstack(s_reversed)
        for r, flat_result in zip(result, flat_results):
            r.set_shape(input_shape)
            flat_result.append(r)
    return [nest.pack_sequence_as(structure=input_, flat_sequence=flat_result)
            for input_, flat_result in zip(input_seq, flat_results)]


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None, initial_state_fw=None,
                              initial_state_bw=None, dtype=None, parallel_iterations=None, swap_memory=False,
                              time_major=False, scope=None):
    """dynamic_rnn forward (scope "bidirectional_rnn/fw") and over the
    inputs reversed in time, each sequence up to its length ("bw"); the
    backward outputs are reversed back. Returns ((output_fw, output_bw),
    (output_state_fw, output_state_bw))."""
    rnn_cell_impl.assert_like_rnncell("cell_fw", cell_fw)
    rnn_cell_impl.assert_like_rnncell("cell_bw", cell_bw)
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)

    def reverse(input_, seq_lengths):
        if seq_lengths is not None:
            return array_ops.reverse_sequence(input=input_, seq_lengths=seq_lengths, seq_axis=time_axis,
                                              batch_axis=batch_axis)
        return array_ops.reverse(input_, axis=[time_axis])

    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = dynamic_rnn(
                cell=cell_fw, inputs=inputs, sequence_length=sequence_length, initial_state=initial_state_fw,
                dtype=dtype, parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=fw_scope)
        with vs.variable_scope("bw") as bw_scope:
            inputs_reverse = nest.map_structure(lambda inp: reverse(inp, sequence_length), inputs)
            tmp, output_state_bw = dynamic_rnn(
                cell=cell_bw, inputs=inputs_reverse, sequence_length=sequence_length, initial_state=initial_state_bw,
                dtype=dtype, parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=bw_scope)
    output_bw = nest.map_structure(lambda out: reverse(out, sequence_length), tmp)
    return (output_fw, output_bw), (output_state_fw, output_state_bw)


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None, initial_state_bw=None, dtype=None,
                             sequence_length=None, scope=None):
    """static_rnn forward and backward over a list of inputs; each output is
    the concatenation [fw, bw] along the last axis. Returns (outputs,
    output_state_fw, output_state_bw)."""
    rnn_cell_impl.assert_like_rnncell("cell_fw", cell_fw)
    rnn_cell_impl.assert_like_rnncell("cell_bw", cell_bw)
    if not nest.is_sequence(inputs):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, output_state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype, sequence_length,
                                                    scope=fw_scope)
        with vs.variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(inputs, sequence_length)
            tmp, output_state_bw = static_rnn(cell_bw, reversed_inputs, initial_state_bw, dtype, sequence_length,
                                              scope=bw_scope)
    output_bw = _reverse_seq(tmp, sequence_length)
    flat_outputs = tuple(array_ops.concat([fw, bw], 1)
                         for fw, bw in zip(nest.flatten(output_fw), nest.flatten(output_bw)))
    outputs = nest.pack_sequence_as(structure=output_fw, flat_sequence=flat_outputs)
    return outputs, output_state_fw, output_state_bw

