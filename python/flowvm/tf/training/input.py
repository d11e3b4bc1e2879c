"""tf.train.batch and tf.train.shuffle_batch: a queue filled by a
QueueRunner with the given tensors (num_threads enqueue ops), dequeued
batch_size at a time, with a "fraction full" summary, as TensorFlow 1.x
builds them. Start the runners with tf.train.start_queue_runners."""
from flowvm.tf import constant_op
from flowvm.tf import data_flow_ops
from flowvm.tf import dtypes
from flowvm.tf import gen_ops
from flowvm.tf import ops
from flowvm.tf import queue_runner
from flowvm.tf import summary_ops

__all__ = ["batch", "shuffle_batch"]


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
