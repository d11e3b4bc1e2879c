"""Queue-based input pipelines (TensorFlow's training/input.py).

The producers (tf.train.limit_epochs, input_producer,
string_input_producer, range_input_producer, slice_input_producer) each
feed a FIFOQueue from a QueueRunner; with num_epochs the enqueued tensor is
gated by a CountUpTo on a local "epochs" variable, whose OutOfRangeError at
the limit stops the runner and closes the queue, so readers see
OutOfRangeError once the queue is drained. The epoch counters are local
variables: run tf.local_variables_initializer() first.

tf.train.batch and tf.train.shuffle_batch: a queue filled by a QueueRunner
with the given tensors (num_threads enqueue ops), dequeued batch_size at a
time, with a "fraction full" summary, as TensorFlow 1.x builds them. Start
the runners with tf.train.start_queue_runners."""
from flowvm.tf.framework import constant_op
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import random_seed
from flowvm.tf.framework import tensor_shape
from flowvm.tf.ops import control_flow_ops
from flowvm.tf.ops import data_flow_ops
from flowvm.tf.ops import gen_ops
from flowvm.tf.ops import variables
from flowvm.tf.summary import summary as summary_ops
from flowvm.tf.training import queue_runner

__all__ = ["limit_epochs", "input_producer", "string_input_producer", "range_input_producer",
           "slice_input_producer", "batch", "shuffle_batch"]


# ---- producers ----------------------------------------------------------------------
def limit_epochs(tensor, num_epochs=None, name=None):
    """`tensor`, but each evaluation counts one epoch; evaluating it more than
    `num_epochs` times fails with OutOfRangeError. num_epochs=None: unlimited."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError("num_epochs must be > 0 not %d." % num_epochs)
    with ops.name_scope(name, "limit_epochs", [tensor]) as scope:
        epochs = variables.Variable(constant_op.constant(0, dtype=dtypes.int64), name="epochs", trainable=False,
                                    collections=[ops.GraphKeys.LOCAL_VARIABLES])
        counter = epochs.count_up_to(num_epochs)
        with ops.control_dependencies([counter]):
            return gen_ops.identity(tensor, name=scope)


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None, capacity=32,
                   shared_name=None, summary_name=None, name=None, cancel_op=None):
    """A FIFOQueue filled, by a QueueRunner, with the rows of `input_tensor`
    (shuffled each epoch when `shuffle`), for `num_epochs` epochs or forever."""
    with ops.name_scope(name, "input_producer", [input_tensor]):
        input_tensor = ops.convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(tensor_shape.as_shape(element_shape) if element_shape is not None
                                             else tensor_shape.unknown_shape())
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or `element_shape` must be "
                             "specified")
        if shuffle:
            s1, s2 = random_seed.seed_attrs(seed)
            input_tensor = gen_ops.random_shuffle(input_tensor, seed=s1, seed2=s2)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        queue = data_flow_ops.FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype.base_dtype],
                                        shapes=[element_shape], shared_name=shared_name, name=name or "fifo_queue")
        enqueue = queue.enqueue_many([input_tensor])
        queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, [enqueue], cancel_op=cancel_op))
        if summary_name is not None:
            frac = gen_ops.mul(gen_ops.cast(queue.size(), dtypes.float32),
                               constant_op.constant(1.0 / capacity, dtype=dtypes.float32))
            summary_ops.scalar(summary_name, frac)
        return queue


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                          name=None, cancel_op=None):
    """A queue of the strings (file names, usually) in the 1-D `string_tensor`."""
    empty_error = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, ops.Tensor) and not string_tensor:
        raise ValueError(empty_error)
    with ops.name_scope(name, "input_producer", [string_tensor]) as scope:
        string_tensor = ops.convert_to_tensor(string_tensor, dtype=dtypes.string)
        non_empty = gen_ops.greater(gen_ops.size(string_tensor), 0)
        with ops.control_dependencies([control_flow_ops.Assert(non_empty, [empty_error])]):
            string_tensor = gen_ops.identity(string_tensor)
        return input_producer(string_tensor, element_shape=[], num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                              capacity=capacity, shared_name=shared_name, name=scope,
                              summary_name="fraction_of_%d_full" % capacity, cancel_op=cancel_op)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None, name=None):
    """A queue of the int32s 0 .. limit-1."""
    with ops.name_scope(name, "input_producer", [limit]) as scope:
        limit = ops.convert_to_tensor(limit, dtype=dtypes.int32, name="limit")
        indices = gen_ops.range(0, limit, 1)
        return input_producer(indices, element_shape=[], num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                              capacity=capacity, shared_name=shared_name,
                              summary_name="fraction_of_%d_full" % capacity, name=scope)


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                         name=None):
    """One row of each tensor in `tensor_list` (same first dimension) at a
    time, the rows of each step taken at the same index."""
    with ops.name_scope(name, "input_producer", tensor_list):
        tensor_list = [ops.convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        first_dim = gen_ops.strided_slice(gen_ops.shape(tensor_list[0]), [0], [1], [1], shrink_axis_mask=1)
        queue = range_input_producer(first_dim, num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                                     capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [gen_ops.gather_v2(t, index, 0) for t in tensor_list]


# ---- batching -----------------------------------------------------------------------
def _flatten(tensors):
    if isinstance(tensors, dict):
        keys = sorted(tensors)
        return keys, [ops.convert_to_tensor(tensors[k]) for k in keys]
    if isinstance(tensors, (list, tuple)):
        return None, [ops.convert_to_tensor(t) for t in tensors]
    return None, [ops.convert_to_tensor(tensors)]


def _restore(original, keys, dequeued):
    if keys is not None:
        if len(keys) == 1:
            dequeued = [dequeued]
        return {k: dequeued[i] for i, k in enumerate(keys)}
    return dequeued


def _shapes(tensor_list, shapes, enqueue_many):
    if shapes is not None:
        return shapes
    out = []
    for t in tensor_list:
        s = t.shape
        if enqueue_many:
            if s.ndims is None or s.ndims < 1:
                raise ValueError("enqueue_many: %s must have rank at least 1" % t.name)
            s = s[1:]
        if not s.is_fully_defined():
            raise ValueError("All shapes must be fully defined: %s (pass shapes=, or dynamic_pad=True)"
                             % [x.shape for x in tensor_list])
        out.append(s)
    return out


def _fraction_summary(name, numerator, denominator):
    frac = gen_ops.mul(gen_ops.cast(numerator, dtypes.float32),
                       constant_op.constant(1.0 / denominator, dtype=dtypes.float32))
    summary_ops.scalar(name, frac)


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
          allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of `tensors` (a list or dict, or one tensor) in order of enqueueing."""
    keys, tensor_list = _flatten(tensors)
    if not tensor_list:
        raise ValueError("Cannot batch an empty list of tensors")
    with ops.name_scope(name, "batch", tensor_list) as scope:
        dts = [t.dtype.base_dtype for t in tensor_list]
        if dynamic_pad:
            shapes = shapes or [t.shape[1:] if enqueue_many else t.shape for t in tensor_list]
            queue = data_flow_ops.PaddingFIFOQueue(capacity, dts, shapes, shared_name=shared_name,
                                                   name="padding_fifo_queue")
        else:
            queue = data_flow_ops.FIFOQueue(capacity, dts, _shapes(tensor_list, shapes, enqueue_many),
                                            shared_name=shared_name, name="fifo_queue")
        enqueue = queue.enqueue_many(tensor_list) if enqueue_many else queue.enqueue(tensor_list)
        queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, [enqueue] * num_threads))
        _fraction_summary("fraction_of_%d_full" % capacity, queue.size(), capacity)
        if allow_smaller_final_batch:
            dequeued = queue.dequeue_up_to(batch_size, name=scope)
        else:
            dequeued = queue.dequeue_many(batch_size, name=scope)
        return _restore(tensors, keys, dequeued)


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None, enqueue_many=False,
                  shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches drawn at random from a RandomShuffleQueue holding at least min_after_dequeue."""
    keys, tensor_list = _flatten(tensors)
    if not tensor_list:
        raise ValueError("Cannot batch an empty list of tensors")
    with ops.name_scope(name, "shuffle_batch", tensor_list) as scope:
        dts = [t.dtype.base_dtype for t in tensor_list]
        queue = data_flow_ops.RandomShuffleQueue(capacity, min_after_dequeue, dts,
                                                 _shapes(tensor_list, shapes, enqueue_many), seed=seed,
                                                 shared_name=shared_name, name="random_shuffle_queue")
        enqueue = queue.enqueue_many(tensor_list) if enqueue_many else queue.enqueue(tensor_list)
        queue_runner.add_queue_runner(queue_runner.QueueRunner(queue, [enqueue] * num_threads))
        above = gen_ops.maximum(0, gen_ops.sub(queue.size(), min_after_dequeue))
        _fraction_summary("fraction_over_%d_of_%d_full" % (min_after_dequeue, capacity - min_after_dequeue),
                          above, max(1, capacity - min_after_dequeue))
        if allow_smaller_final_batch:
            dequeued = queue.dequeue_up_to(batch_size, name=scope)
        else:
            dequeued = queue.dequeue_many(batch_size, name=scope)
        return _restore(tensors, keys, dequeued)
