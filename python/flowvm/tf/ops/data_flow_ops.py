"""Queues (tf.FIFOQueue, tf.RandomShuffleQueue, tf.PaddingFIFOQueue) over
the resource-handle queue ops (FIFOQueueV2, QueueEnqueueV2, ...).

A queue lives in the session's resource manager from the first run that
touches it; enqueue blocks while it is full and dequeue while it is empty
(both give up with CancelledError when a close cancels them, and dequeue
with OutOfRangeError once it is closed and too empty). Components are
given as a list (or a dict, when the queue has names).
"""
from flowvm.tf.framework import dtypes as dtypes_lib
from flowvm.tf.framework import ops
from flowvm.tf.framework import random_seed
from flowvm.tf.framework import tensor_shape
from flowvm.tf.framework import tensor_util
from flowvm.tf.ops import gen_ops

__all__ = ["QueueBase", "FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue"]


def _as_type_list(dtypes):
    if not isinstance(dtypes, (list, tuple)):
        dtypes = [dtypes]
    return [dtypes_lib.as_dtype(d) for d in dtypes]


def _as_shape_list(shapes, dtypes, unknown_dim_allowed=False, unknown_rank_allowed=False):
    """None (shapes unknown), or one TensorShape per component."""
    if shapes is None:
        return None
    if isinstance(shapes, tensor_shape.TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError("shapes must be a TensorShape or a list or tuple of TensorShapes.")
    if all(s is None or isinstance(s, int) for s in shapes):
        # A single shape given as a list of dimensions.
        shapes = [shapes]
    shapes = [tensor_shape.as_shape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError("All shapes must be fully defined: %s" % shapes)
    if not unknown_rank_allowed and any(s.ndims is None for s in shapes):
        raise ValueError("All shapes must have a defined rank: %s" % shapes)
    if len(shapes) != len(dtypes):
        raise ValueError("shapes must have the same length as dtypes: %d vs %d" % (len(shapes), len(dtypes)))
    return shapes


def _as_name_list(names, dtypes):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError("List of names must have the same length as the list of dtypes")
    return list(names)


def _count(n):
    return ops.convert_to_tensor(n, dtype=dtypes_lib.int32, name="n")


def _shape_attr(shapes):
    return None if shapes is None else [s for s in shapes]


class QueueBase(object):
    """A queue of tuples of tensors: dtypes, shapes and names per component."""

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
            self._shapes = [tensor_shape.TensorShape(s) for s in shapes]
        else:
            self._shapes = [tensor_shape.unknown_shape() for _ in dtypes]
        self._names = names
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index, queues):
        raise NotImplementedError("QueueBase.from_list: flowvm has no RefSelect for queue handles")

    @property
    def queue_ref(self):
        return self._queue_ref

    @property
    def name(self):
        return self._queue_ref.op.name

    @property
    def dtypes(self):
        return self._dtypes

    @property
    def shapes(self):
        return self._shapes

    @property
    def names(self):
        return self._names

    def _check_enqueue_dtypes(self, vals):
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError("Keys in dictionary to enqueue do not match names of Queue.  Dictionary: (%s), "
                                 "Queue: (%s)" % (sorted(vals.keys()), sorted(self._names)))
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        if len(vals) != len(self._dtypes):
            raise ValueError("Expected %d components to enqueue, got %d" % (len(self._dtypes), len(vals)))
        tensors = []
        for i, (val, dtype) in enumerate(zip(vals, self._dtypes)):
            tensors.append(ops.convert_to_tensor(val, dtype=dtype, name="component_%d" % i))
        return tensors

    def _scope_vals(self, vals):
        if isinstance(vals, (list, tuple)):
            return list(vals)
        if isinstance(vals, dict):
            return list(vals.values())
        return [vals]

    def enqueue(self, vals, name=None):
        """Adds one element (blocks while the queue is full)."""
        with ops.name_scope(name, "%s_enqueue" % self._name, self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            for val, shape in zip(vals, self._shapes):
                if not val.shape.is_compatible_with(shape):
                    raise ValueError("Shapes %s and %s are incompatible" % (val.shape, shape))
            return gen_ops.queue_enqueue_v2(self._queue_ref, vals, name=scope)

    def enqueue_many(self, vals, name=None):
        """Adds the slices of `vals` along their first dimension (the same size in each)."""
        with ops.name_scope(name, "%s_EnqueueMany" % self._name, self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch = None
            for val, shape in zip(vals, self._shapes):
                vs = val.shape
                if vs.ndims == 0:
                    raise ValueError("Shape must be at least rank 1 but is rank 0 (component %s)" % val.name)
                if vs.ndims is not None:
                    if not tensor_shape.TensorShape(vs.as_list()[1:]).is_compatible_with(shape):
                        raise ValueError("Shapes %s and %s are incompatible" % (vs[1:], shape))
                    d = vs.as_list()[0]
                    if d is not None and batch is not None and d != batch:
                        raise ValueError("Dimension 0 in both shapes must be equal, but are %d and %d"
                                         % (batch, d))
                    batch = d if d is not None else batch
            return gen_ops.queue_enqueue_many_v2(self._queue_ref, vals, name=scope)

    def _dequeue_return_value(self, tensors):
        if self._names:
            return {n: t for n, t in zip(self._names, tensors)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def dequeue(self, name=None):
        """Removes one element (blocks while the queue is empty)."""
        if name is None:
            name = "%s_Dequeue" % self._name
        ret = gen_ops.queue_dequeue_v2(self._queue_ref, self._dtypes, name=name)
        for t, shape in zip(ret, self._shapes):
            t.set_shape(shape)
        return self._dequeue_return_value(list(ret))

    def _batch_shapes(self, ret, n):
        batch = tensor_util.constant_value(ops.convert_to_tensor(n)) if not isinstance(n, int) else n
        batch_dim = None if batch is None else int(batch)
        for t, shape in zip(ret, self._shapes):
            if shape.ndims is not None:
                t.set_shape([batch_dim] + shape.as_list())
            elif batch_dim is not None:
                t.set_shape(tensor_shape.unknown_shape())

    def dequeue_many(self, n, name=None):
        """Removes n elements, stacked along a new first dimension."""
        if name is None:
            name = "%s_DequeueMany" % self._name
        ret = gen_ops.queue_dequeue_many_v2(self._queue_ref, _count(n), self._dtypes, name=name)
        self._batch_shapes(ret, n)
        return self._dequeue_return_value(list(ret))

    def dequeue_up_to(self, n, name=None):
        """Like dequeue_many, but once the queue is closed returns what is
        left (at least one element) instead of failing."""
        if name is None:
            name = "%s_DequeueUpTo" % self._name
        ret = gen_ops.queue_dequeue_up_to_v2(self._queue_ref, _count(n), self._dtypes, name=name)
        for t, shape in zip(ret, self._shapes):
            if shape.ndims is not None:
                t.set_shape([None] + shape.as_list())
        return self._dequeue_return_value(list(ret))

    def close(self, cancel_pending_enqueues=False, name=None):
        """No more enqueues; with cancel_pending_enqueues, blocked ones fail too."""
        if name is None:
            name = "%s_Close" % self._name
        return gen_ops.queue_close_v2(self._queue_ref, cancel_pending_enqueues=cancel_pending_enqueues, name=name)

    def is_closed(self, name=None):
        if name is None:
            name = "%s_IsClosed" % self._name
        return gen_ops.queue_is_closed_v2(self._queue_ref, name=name)

    def size(self, name=None):
        """The number of elements in the queue (an int32 scalar)."""
        if name is None:
            name = "%s_Size" % self._name
        return gen_ops.queue_size_v2(self._queue_ref, name=name)


class FIFOQueue(QueueBase):
    """tf.FIFOQueue(capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue")."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        with ops.control_dependencies(None):
            ref = gen_ops.fifo_queue_v2(component_types=dtypes, shapes=_shape_attr(shapes), capacity=capacity,
                                        shared_name=shared_name or "", name=name)
        super(FIFOQueue, self).__init__(dtypes, shapes, names, ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFOQueue whose dequeue_many pads each component to the batch's
    largest; shapes are required, with None for a dimension that varies."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None, name="padding_fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if shapes is None or len(dtypes) != len(shapes):
            raise ValueError("Shapes must be provided for all components, but received %d dtypes and %d shapes."
                             % (len(dtypes), 0 if shapes is None else len(shapes)))
        with ops.control_dependencies(None):
            ref = gen_ops.padding_fifo_queue_v2(component_types=dtypes, shapes=shapes, capacity=capacity,
                                                shared_name=shared_name or "", name=name)
        super(PaddingFIFOQueue, self).__init__(dtypes, shapes, names, ref)


class RandomShuffleQueue(QueueBase):
    """Dequeues elements in random order, keeping at least min_after_dequeue
    inside (until closed) so that the shuffle mixes well."""

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None, shared_name=None,
                 name="random_shuffle_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        seed1, seed2 = random_seed.seed_attrs(seed)
        with ops.control_dependencies(None):
            ref = gen_ops.random_shuffle_queue_v2(component_types=dtypes, shapes=_shape_attr(shapes),
                                                  capacity=capacity, min_after_dequeue=min_after_dequeue,
                                                  seed=seed1, seed2=seed2, shared_name=shared_name or "",
                                                  name=name)
        super(RandomShuffleQueue, self).__init__(dtypes, shapes, names, ref)
