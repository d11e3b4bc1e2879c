"""tf.TensorArray: an array of tensors that lives for one step, written and
read element by element (TensorFlow 1.x's graph-mode TensorArray over the
TensorArrayV3 ops of src/ops/tensor_array_ops.cc).

A TensorArray object is a (handle, flow) pair. The handle names the array
in the runtime; the flow is a float scalar that every op on the array
takes and every op that changes it produces, so data edges order the ops
on one array. Nothing changes the array in place on the Python side: each
write, scatter, unstack or split returns a new TensorArray carrying the new
flow, and the caller uses that one from then on. The objects made from one
array share its static element shape (so a write inside a loop body
teaches the array outside the shape of its elements) and the tensor the
array is colocated with.

Gradients need no Python code: the C++ gradient functions of the ops
(src/ops/tensor_array_grad.cc) make the gradient arrays (`grad`) that
tf.gradients uses, inside while loops too.
"""
import contextlib

import numpy as np

from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_shape
from flowvm.tf.framework import tensor_util
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import gen_ops
from flowvm.tf.ops import math_ops
from flowvm.tf.platform import tf_logging as logging


class TensorArray(object):
    """A list of `size` tensors of one dtype, for one run of the graph.

    Meant for tf.while_loop (and tf.scan, tf.map_fn, tf.nn.dynamic_rnn):
    iteration t reads element t of an input array and writes element t of
    an output array, which is a loop variable. Each element is written once
    (gradient arrays add up their writes); with clear_after_read (the
    default) each is read once.

    Args:
      dtype: the type of the elements.
      size: int32 scalar, the number of elements (required without handle).
      dynamic_size: writes past the end grow the array (default False).
      clear_after_read: reading an element releases it, and a second read
        fails (default True).
      tensor_array_name: the name of the array in the runtime.
      handle, flow: an existing array's handle and flow (instead of size).
      infer_shape: all elements have one shape, learned from the first
        write when element_shape does not give it (default True).
      element_shape: what is known of the elements' shape.
      colocate_with_first_write_call: put the array where the first value
        written to it is, rather than under the device scope it is made in.
      name: a name for the operation.
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None,
                 colocate_with_first_write_call=True, name=None):
        if handle is not None and tensor_array_name:
            raise ValueError("Cannot construct with both handle and tensor_array_name")
        if handle is not None and not isinstance(handle, ops.Tensor):
            raise TypeError("Handle must be a Tensor")
        if handle is None and size is None:
            raise ValueError("Size must be provided if handle is not provided")
        if handle is not None and size is not None:
            raise ValueError("Cannot provide both a handle and size at the same time")
        if handle is not None and element_shape is not None:
            raise ValueError("Cannot provide both a handle and element_shape at the same time")
        if handle is not None and dynamic_size is not None:
            raise ValueError("Cannot provide both a handle and dynamic_size at the same time")
        if handle is not None and clear_after_read is not None:
            raise ValueError("Cannot provide both a handle and clear_after_read at the same time")
        if clear_after_read is None:
            clear_after_read = True
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._dynamic_size = dynamic_size or False
        self._infer_shape = infer_shape
        self._size = size
        # One-element lists, shared with every TensorArray object made from
        # this one (build_ta_with_new_flow), so what one learns all see.
        self._element_shape = [tensor_shape.as_shape(element_shape)]
        self._colocate_with_first_write_call = colocate_with_first_write_call
        self._colocate_with = [] if colocate_with_first_write_call else None
        with ops.name_scope(name, "TensorArray", [handle, size, flow]) as scope:
            if handle is not None:
                if flow is None:
                    raise ValueError("flow must not be None if handle is not None.")
                self._handle = handle
                self._flow = flow
                return
            declared = self._element_shape[0]

            def create():
                return gen_ops.tensor_array_v3(
                    size, dtype=self._dtype,
                    element_shape=declared if declared.ndims is not None else None,
                    dynamic_size=self._dynamic_size, clear_after_read=clear_after_read,
                    identical_element_shapes=infer_shape, tensor_array_name=tensor_array_name or "",
                    name=scope)
            if colocate_with_first_write_call:
                # No device yet: the first write puts the array beside the
                # value it writes (the placer keeps a resource's users with
                # it, so the whole array follows).
                with ops.device(None), ops.colocate_with(None, ignore_existing=True):
                    self._handle, self._flow = create()
            else:
                self._handle, self._flow = create()

    # -- what it is
    @property
    def handle(self):
        """The array's handle (a resource tensor)."""
        return self._handle

    @property
    def flow(self):
        """The float scalar that orders the ops on the array: ops given this
        object's flow run after the op that made it."""
        return self._flow

    @property
    def dtype(self):
        return self._dtype

    @property
    def element_shape(self):
        """The static shape known of every element (a tf.TensorShape)."""
        return self._element_shape[0]

    @property
    def dynamic_size(self):
        return self._dynamic_size

    @property
    def _implementation(self):
        # TensorFlow's TensorArray wraps a graph- or eager-mode
        # implementation; here the object is its own.
        return self

    def _check_element_shape(self, shape):
        """Merges `shape`, the shape of a value being written as an element,
        into the element shape (when infer_shape)."""
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError("Inconsistent shapes: saw %s but expected %s " % (shape, self.element_shape))
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    @contextlib.contextmanager
    def _maybe_colocate_with(self, value):
        """Colocates what is built inside with the first value ever written
        to the array (when colocate_with_first_write_call)."""
        if not self._colocate_with_first_write_call:
            yield
            return
        if not self._colocate_with:
            self._colocate_with.append(value)
        with ops.colocate_with(self._colocate_with[0]):
            yield

    def _convert_value(self, value):
        value = ops.convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
        _check_dtypes(value, self._dtype)
        return value

    # -- the operations
    def identity(self):
        """This array with a new flow made by an Identity: ops given it wait
        for the control dependencies in force here."""
        return build_ta_with_new_flow(self, array_ops.identity(self._flow))

    def grad(self, source, flow=None, name=None):
        """The gradient array of this one for the gradient computation
        `source` (one per source and array; writes to it add up)."""
        if flow is None:
            flow = self.flow
        with ops.name_scope(name, "TensorArrayGrad", [self._handle]):
            with ops.colocate_with(self._handle):
                g_handle, _ = gen_ops.tensor_array_grad_v3(self._handle, flow, source=source, name=name)
                with ops.control_dependencies([g_handle]):
                    flow = array_ops.identity(flow, name="gradient_flow")
                g = TensorArray(dtype=self._dtype, handle=g_handle, flow=flow, infer_shape=self._infer_shape,
                                colocate_with_first_write_call=False)
                g._element_shape = self._element_shape
                return g

    def read(self, index, name=None):
        """The element at `index` (an int32 scalar)."""
        value = gen_ops.tensor_array_read_v3(self._handle, index, self._flow, dtype=self._dtype, name=name)
        value.set_shape(self.element_shape)
        return value

    def write(self, index, value, name=None):
        """Writes `value` at `index`; returns the TensorArray to use from now on."""
        with ops.name_scope(name, "TensorArrayWrite", [self._handle, index, value]):
            value = self._convert_value(value)
            self._check_element_shape(value.shape)
            with self._maybe_colocate_with(value):
                flow_out = gen_ops.tensor_array_write_v3(self._handle, index, value, self._flow, name=name)
            return build_ta_with_new_flow(self, flow_out)

    def stack(self, name=None):
        """Every element, stacked along a new first dimension."""
        with ops.colocate_with(self._handle):
            with ops.name_scope(name, "TensorArrayStack", [self._handle]):
                value = self.gather(math_ops.range(0, self.size()), name=name)
                n = self._static_size()
                if self.element_shape.ndims is not None and n is not None:
                    value.set_shape([n] + self.element_shape.as_list())
                return value

    def _static_size(self):
        """The size as a Python int when it is fixed and known here, else None."""
        if self._dynamic_size or self._size is None:
            return None
        n = tensor_util.constant_value(self._size) if isinstance(self._size, ops.Tensor) else self._size
        try:
            n = np.asarray(n)
        except (TypeError, ValueError):
            return None
        return int(n) if n.ndim == 0 and n.dtype.kind in "iu" else None

    def gather(self, indices, name=None):
        """The elements at `indices` (an int32 vector), stacked."""
        element_shape = self.element_shape
        value = gen_ops.tensor_array_gather_v3(
            self._handle, indices, self._flow, dtype=self._dtype,
            element_shape=element_shape if element_shape.ndims is not None else None, name=name)
        if element_shape.ndims is not None:
            # As many rows as there are indices, when that is known.
            rows = value.op.inputs[1].shape.with_rank_at_least(1)[0]
            value.set_shape([rows] + element_shape.as_list())
        return value

    def concat(self, name=None):
        """Every element, concatenated along their first dimension."""
        except0 = self.element_shape[1:]
        value, _ = gen_ops.tensor_array_concat_v3(
            self._handle, self._flow, dtype=self._dtype,
            element_shape_except0=except0 if except0.ndims is not None else None, name=name)
        if self.element_shape.ndims is not None:
            value.set_shape([None] + self.element_shape.as_list()[1:])
        return value

    def unstack(self, value, name=None):
        """Writes value[i] at index i for every i along value's first dimension."""
        with ops.name_scope(name, "TensorArrayUnstack", [self._handle, value]):
            value = self._convert_value(value)
            num_elements = array_ops.shape(value)[0]
            return self.scatter(indices=math_ops.range(0, num_elements), value=value, name=name)

    def scatter(self, indices, value, name=None):
        """Writes value[i] at indices[i]."""
        with ops.name_scope(name, "TensorArrayScatter", [self._handle, value, indices]):
            value = self._convert_value(value)
            self._check_element_shape(value.shape[1:])
            with self._maybe_colocate_with(value):
                flow_out = gen_ops.tensor_array_scatter_v3(self._handle, indices, value, self._flow, name=name)
            return build_ta_with_new_flow(self, flow_out)

    def split(self, value, lengths, name=None):
        """Splits value along its first dimension into pieces of `lengths`,
        written at 0, 1, ..."""
        with ops.name_scope(name, "TensorArraySplit", [self._handle, value, lengths]):
            value = ops.convert_to_tensor(value, dtype=self._dtype, name="value")
            with self._maybe_colocate_with(value):
                lengths = ops.convert_to_tensor(lengths, preferred_dtype=dtypes.int64, name="lengths")
                known = tensor_util.constant_value(lengths)
                lengths_64 = math_ops.cast(lengths, dtypes.int64)
                if value.shape.ndims is not None and known is not None:
                    if known.shape and known.size and known.max() == known.min():
                        # Equal pieces: their shape is the element shape.
                        self._check_element_shape(
                            tensor_shape.TensorShape([int(known[0])]).concatenate(value.shape[1:]))
                flow_out = gen_ops.tensor_array_split_v3(self._handle, value, lengths_64, self._flow, name=name)
            return build_ta_with_new_flow(self, flow_out)

    def size(self, name=None):
        """The number of elements (an int32 scalar; grown by writes past the
        end of a dynamic_size array)."""
        return gen_ops.tensor_array_size_v3(self._handle, self.flow, name=name)

    def close(self, name=None):
        """Releases the elements; later ops on the array fail."""
        return gen_ops.tensor_array_close_v3(self._handle, name=name)


def build_ta_with_new_flow(old_ta, flow):
    """A TensorArray like `old_ta` (same array, dtype and shared element
    shape and colocation) whose flow is `flow`."""
    new_ta = TensorArray(dtype=old_ta.dtype, handle=old_ta.handle, flow=flow, infer_shape=old_ta._infer_shape,
                         colocate_with_first_write_call=old_ta._colocate_with_first_write_call)
    new_ta._dynamic_size = old_ta._dynamic_size
    new_ta._size = old_ta._size
    new_ta._colocate_with = old_ta._colocate_with
    new_ta._element_shape = old_ta._element_shape
    return new_ta


def _check_dtypes(value, dtype):
    # TensorFlow 1.15 converts the value with the array's dtype preferred
    # and only logs a mismatch here; the write then fails when it runs
    # ("TensorArray dtype is float but Op is trying to write dtype int32").
    if value.dtype.base_dtype != dtype:
        logging.error("TensorArray of %s: the value %s written to it is of type %s; the write will fail when "
                      "it runs" % (dtype.name, value.name, value.dtype.name))
