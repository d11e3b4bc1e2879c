"""TensorFlow 1.x's array wrappers (tf.zeros, tf.reshape, tf.concat, ...),
Tensor.__getitem__ (NumPy-style slicing as StridedSlice), and the
conversion of lists holding tensors ("autopacking": tf.reshape(x, [n, -1])
with a tensor n)."""
import builtins as _builtins
import numbers

import numpy as np

from flowvm.tf.framework import constant_op
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_shape
from flowvm.tf.framework import tensor_util
from flowvm.tf.ops import gen_ops

__all__ = [
    "zeros", "ones", "zeros_like", "ones_like", "fill", "reshape", "shape", "shape_n", "size", "rank",
    "expand_dims", "squeeze", "concat", "stack", "unstack", "split", "tile", "pad", "transpose", "gather",
    "gather_nd", "one_hot", "slice", "strided_slice", "identity", "stop_gradient", "where", "where_v2",
    "boolean_mask", "reverse", "reverse_v2", "sequence_mask", "placeholder", "placeholder_with_default",
    "meshgrid", "broadcast_to", "unique", "unique_with_counts", "invert_permutation", "dynamic_stitch",
    "scatter_nd", "tensor_scatter_update", "tensor_scatter_add", "tensor_scatter_nd_update",
    "tensor_scatter_nd_add", "depth_to_space", "space_to_depth", "matrix_transpose", "pack", "unpack",
    "broadcast_static_shape", "broadcast_dynamic_shape", "batch_gather", "newaxis", "prevent_gradient", "eye",
    "reverse_sequence",
]

newaxis = None

_MAX_SMALL_CONSTANT = 1000  # TensorFlow makes smaller zeros/ones constants, larger ones Fill nodes


def _t(x, name=None, dtype=None):
    return ops.convert_to_tensor(x, dtype=dtype, name=name)


def _static_shape(shape):
    """A Python list of ints if `shape` is a constant shape, else None."""
    if isinstance(shape, ops.Tensor):
        v = tensor_util.constant_value(shape)
        return None if v is None else [int(d) for d in np.reshape(v, [-1])]
    if isinstance(shape, tensor_shape.TensorShape):
        return shape.as_list() if shape.is_fully_defined() else None
    if tensor_util._contains_tensor(shape):
        return None
    try:
        dims = [tensor_shape.dimension_value(d) for d in (shape if isinstance(shape, (list, tuple)) else
                                                          np.reshape(np.asarray(shape), [-1]))]
    except TypeError:
        return None
    if any(d is None for d in dims):
        raise ValueError("Cannot convert a partially known TensorShape %s to a Tensor." % (shape,))
    return [int(d) for d in dims]


def _shape_tensor(shape):
    if isinstance(shape, tensor_shape.TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)) and not shape:
        return constant_op.constant([], dtype=dtypes.int32, name="shape_as_tensor")
    if isinstance(shape, ops.Tensor):
        return shape
    return ops.convert_to_tensor(shape, name="shape_as_tensor", preferred_dtype=dtypes.int32)


# ---- creation --------------------------------------------------------------------
def _filled(value, shape, dtype, name, default_name):
    dtype = dtypes.as_dtype(dtype).base_dtype
    static = _static_shape(shape)
    with ops.name_scope(name, default_name, [shape]) as name:
        if static is not None and int(np.prod(static, dtype=np.int64)) < _MAX_SMALL_CONSTANT:
            return constant_op.constant(value, dtype=dtype, shape=static, name=name)
        shape_t = _shape_tensor(shape)
        if shape_t.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            shape_t = gen_ops.cast(shape_t, dtypes.int32)
        return _set_list_shape(gen_ops.fill(shape_t, constant_op.constant(value, dtype=dtype), name=name), shape)


def zeros(shape, dtype=dtypes.float32, name=None):
    dt = dtypes.as_dtype(dtype).base_dtype
    return _filled(b"" if dt == dtypes.string else False if dt == dtypes.bool else 0, shape, dt, name, "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    dt = dtypes.as_dtype(dtype).base_dtype
    return _filled(True if dt == dtypes.bool else 1, shape, dt, name, "ones")


def fill(dims, value, name=None):
    return _set_list_shape(gen_ops.fill(dims, value, name=name), dims)


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    with ops.name_scope(name, "zeros_like", [tensor]) as name:
        tensor = _t(tensor, "tensor")
        dt = dtypes.as_dtype(dtype).base_dtype if dtype is not None else tensor.dtype.base_dtype
        if optimize and tensor.shape.is_fully_defined():
            return zeros(tensor.shape.as_list(), dtype=dt, name=name)
        if dt != tensor.dtype.base_dtype:
            return zeros(shape(tensor), dtype=dt, name=name)
        return gen_ops.zeros_like(tensor, name=name)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    with ops.name_scope(name, "ones_like", [tensor]) as name:
        tensor = _t(tensor, "tensor")
        dt = dtypes.as_dtype(dtype).base_dtype if dtype is not None else tensor.dtype.base_dtype
        if optimize and tensor.shape.is_fully_defined():
            return ones(tensor.shape.as_list(), dtype=dt, name=name)
        if dt != tensor.dtype.base_dtype:
            out = ones(shape(tensor), dtype=dt, name=name)
        else:
            out = gen_ops.ones_like(tensor, name=name)
        out.set_shape(tensor.shape)
        return out


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """An identity matrix (or a batch of them); the sizes must be Python ints."""
    sizes = [num_rows, num_columns] + list(batch_shape or [])
    if any(isinstance(v, ops.Tensor) for v in sizes):
        raise NotImplementedError("eye: flowvm needs num_rows, num_columns and batch_shape as Python ints")
    dtype = dtypes.as_dtype(dtype).base_dtype
    m = np.eye(num_rows, num_rows if num_columns is None else num_columns, dtype=dtype.as_numpy_dtype)
    if batch_shape:
        m = np.broadcast_to(m, list(batch_shape) + list(m.shape)).copy()
    return constant_op.constant(m, dtype=dtype, name=name or "eye")


def placeholder(dtype, shape=None, name=None):
    """A value fed at run time; `shape` None accepts any shape."""
    return gen_ops.placeholder(dtypes.as_dtype(dtype).base_dtype,
                               shape=None if shape is None else tensor_shape.as_shape(shape), name=name)


def placeholder_with_default(input, shape, name=None):  # noqa: A002
    input = _t(input, "input")
    return gen_ops.placeholder_with_default(input, shape=tensor_shape.as_shape(shape), name=name)


# ---- shapes ----------------------------------------------------------------------
def shape(input, name=None, out_type=dtypes.int32):  # noqa: A002
    """The shape of `input`: a constant when fully known (as TensorFlow folds it)."""
    input = _t(input, "input")
    s = input.shape
    out_type = dtypes.as_dtype(out_type).base_dtype
    if s.is_fully_defined():
        return constant_op.constant(s.as_list(), dtype=out_type, name=name or "Shape")
    return gen_ops.shape(input, out_type=out_type, name=name)


def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002
    with ops.name_scope(name, "ShapeN", input):
        return [shape(x, out_type=out_type) for x in input]


def size(input, name=None, out_type=dtypes.int32):  # noqa: A002
    input = _t(input, "input")
    s = input.shape
    out_type = dtypes.as_dtype(out_type).base_dtype
    if s.is_fully_defined():
        return constant_op.constant(s.num_elements(), dtype=out_type, name=name or "Size")
    return gen_ops.size(input, out_type=out_type, name=name)


def rank(input, name=None):  # noqa: A002
    input = _t(input, "input")
    if input.shape.ndims is not None:
        return constant_op.constant(input.shape.ndims, dtype=dtypes.int32, name=name or "Rank")
    return gen_ops.rank(input, name=name)


def reshape(tensor, shape, name=None):  # noqa: F811 - TensorFlow's argument name
    return _set_list_shape(gen_ops.reshape(tensor, shape, name=name), shape)


def _set_list_shape(out, shape):
    """Shape inference sees a packed list's tensors as unknown; the
    dimensions given as Python ints are known all the same."""
    if isinstance(shape, (list, tuple)) and tensor_util._contains_tensor(shape):
        dims = [int(d) if isinstance(d, numbers.Integral) and d >= 0 else None for d in shape]
        if out.shape.ndims is None or out.shape.is_compatible_with(dims):
            out.set_shape(out.shape.merge_with(dims) if out.shape.ndims is not None else dims)
    return out


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return gen_ops.expand_dims(input, axis, name=name)


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    if squeeze_dims is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'squeeze_dims' and 'axis'")
        axis = squeeze_dims
    if axis is None:
        axis = []
    elif isinstance(axis, numbers.Integral):
        axis = [int(axis)]
    return gen_ops.squeeze(input, squeeze_dims=[int(a) for a in axis], name=name)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    with ops.name_scope(name, "matrix_transpose", [a]) as name:
        a = _t(a, "a")
        nd = a.shape.ndims
        if nd is None:
            raise NotImplementedError("matrix_transpose needs the rank of its input to be known")
        if nd < 2:
            raise ValueError("Argument 'a' should be a (batch) matrix, with rank >= 2.  Found: %s" % a.shape)
        perm = list(_builtins.range(nd - 2)) + [nd - 1, nd - 2]
        return transpose(a, perm, name=name, conjugate=conjugate)


def transpose(a, perm=None, name="transpose", conjugate=False):
    """Permutes the dimensions; perm None reverses them."""
    if conjugate:
        raise NotImplementedError("transpose(conjugate=True) needs Conj, which flowvm lacks")
    with ops.name_scope(name, "transpose", [a]) as name:
        a = _t(a, "a")
        if perm is None:
            nd = a.shape.ndims
            if nd is not None:
                perm = np.arange(nd - 1, -1, -1, dtype=np.int32)
            else:
                r = gen_ops.rank(a)
                perm = gen_ops.sub(gen_ops.sub(r, 1), gen_ops.range(0, r, 1))
        return gen_ops.transpose(a, perm, name=name)


def broadcast_to(input, shape, name=None):  # noqa: A002
    return gen_ops.broadcast_to(input, shape, name=name)


def broadcast_static_shape(shape_x, shape_y):
    x, y = tensor_shape.as_shape(shape_x), tensor_shape.as_shape(shape_y)
    if x.ndims is None or y.ndims is None:
        return tensor_shape.unknown_shape()
    xs, ys = x.as_list()[::-1], y.as_list()[::-1]
    out = []
    for i in _builtins.range(_builtins.max(len(xs), len(ys))):
        a = xs[i] if i < len(xs) else 1
        b = ys[i] if i < len(ys) else 1
        if a == 1:
            out.append(b)
        elif b == 1 or a == b:
            out.append(a)
        elif a is None or b is None:
            out.append(a if b is None else b)
        else:
            raise ValueError("Incompatible shapes for broadcasting: %s and %s" % (x, y))
    return tensor_shape.TensorShape(out[::-1])


def broadcast_dynamic_shape(shape_x, shape_y):
    with ops.name_scope(None, "BroadcastDynamicShape", [shape_x, shape_y]):
        shape_x = _t(shape_x, "shape_x")
        zero = np.zeros((), np.int8)
        both = gen_ops.add_v2(gen_ops.fill(shape_x, zero), gen_ops.fill(shape_y, zero))
        return gen_ops.shape(both, out_type=shape_x.dtype.base_dtype)


# ---- joining and splitting -------------------------------------------------------
def concat(values, axis, name="concat"):
    """Joins tensors along `axis`."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with ops.name_scope(name) as scope:
            ax = _t(axis, "concat_dim", dtype=dtypes.int32)
            if ax.shape.ndims is not None and ax.shape.ndims != 0:
                raise ValueError("concat: axis must be a scalar, got shape %s" % ax.shape)
            return identity(values[0], name=scope)
    return gen_ops.concat_v2(list(values), axis, name=name)


def stack(values, axis=0, name="stack"):
    """Packs a list of rank-R tensors into one rank-(R+1) tensor."""
    if axis == 0:
        try:
            return ops.convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass
    values = [_t(v) for v in values]
    if values and values[0].shape.ndims is not None:
        expanded = values[0].shape.ndims + 1
        if not -expanded <= axis < expanded:
            raise ValueError("axis = %d not in [%d, %d)" % (axis, -expanded, expanded))
    return gen_ops.pack(values, axis=axis, name=name)


pack = stack


def unstack(value, num=None, axis=0, name="unstack"):
    """Splits a tensor into a list along `axis` (its size must be known or `num` given)."""
    value = _t(value, "value")
    if num is None:
        s = value.shape
        if s.ndims is None:
            raise ValueError("Cannot infer num from shape %s" % s)
        if axis < -s.ndims or axis >= s.ndims:
            raise ValueError("axis = %d not in [%d, %d)" % (axis, -s.ndims, s.ndims))
        num = s.as_list()[axis]
        if num is None:
            raise ValueError("Cannot infer num from shape %s" % s)
    out = gen_ops.unpack(value, num, axis=axis, name=name)
    return list(out) if isinstance(out, (list, tuple)) else [out]


unpack = unstack


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """num_or_size_splits: an int (equal parts) or a list of sizes (-1 once: the rest)."""
    if isinstance(num_or_size_splits, (numbers.Integral, tensor_shape.Dimension)):
        return list(gen_ops.split(axis, value, int(num_or_size_splits), name=name))
    size_splits = _t(num_or_size_splits, "size_splits")
    if size_splits.shape.ndims == 0:
        raise NotImplementedError("split: a scalar Tensor num_or_size_splits is not supported; pass an int")
    if num is None:
        s = size_splits.shape
        if s.ndims is not None and s.as_list()[0] is not None:
            num = s.as_list()[0]
        else:
            raise ValueError("Cannot infer num from shape %s" % (num_or_size_splits,))
    return list(gen_ops.split_v(value, size_splits, axis, num, name=name))


def tile(input, multiples, name=None):  # noqa: A002
    return gen_ops.tile(input, multiples, name=name)


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """Pads with a constant, or by reflecting ("REFLECT") or mirroring ("SYMMETRIC") the edges."""
    mode = mode.upper() if isinstance(mode, str) else mode
    if mode == "CONSTANT":
        if not isinstance(constant_values, ops.Tensor) and np.all(np.asarray(constant_values) == 0):
            return gen_ops.pad(tensor, paddings, name=name)
        tensor = _t(tensor, "tensor")
        return gen_ops.pad_v2(tensor, paddings, _t(constant_values, dtype=tensor.dtype.base_dtype), name=name)
    if mode in ("REFLECT", "SYMMETRIC"):
        return gen_ops.mirror_pad(tensor, paddings, mode, name=name)
    raise ValueError("Unknown padding mode: %s" % mode)


# ---- gathering, slicing -------------------------------------------------------------
def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    if axis is None:
        axis = batch_dims
    if hasattr(params, "sparse_read") and axis == 0 and batch_dims == 0:
        return params.sparse_read(indices, name=name)
    return gen_ops.gather_v2(params, indices, axis, batch_dims=batch_dims, name=name)


def batch_gather(params, indices, name=None):
    with ops.name_scope(name, "BatchGather", [params, indices]):
        indices = _t(indices, "indices")
        return gather(params, indices, batch_dims=indices.shape.ndims - 1 if indices.shape.ndims else 0)


def gather_nd(params, indices, name=None, batch_dims=0):
    if batch_dims != 0:
        raise NotImplementedError("gather_nd: batch_dims other than 0 is not supported")
    return gen_ops.gather_nd(params, indices, name=name)


def slice(input_, begin, size, name=None):  # noqa: A001 - TensorFlow's name
    return gen_ops.slice(input_, begin, size, name=name)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, var=None, name=None):
    if strides is None:
        strides = ones_like(begin)
    return gen_ops.strided_slice(input_, begin, end, strides, begin_mask=begin_mask, end_mask=end_mask,
                                 ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                                 shrink_axis_mask=shrink_axis_mask, name=name)


def _check_index(idx):
    if isinstance(idx, (numbers.Integral, tensor_shape.Dimension)) and not isinstance(idx, bool):
        return
    if isinstance(idx, ops.Tensor):
        if idx.dtype.base_dtype in (dtypes.int32, dtypes.int64):
            return
    elif hasattr(idx, "dtype") and hasattr(idx, "_as_graph_element"):
        return
    raise TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                    "tf.int32/tf.int64 tensors are valid indices, got %r" % (idx,))


def _slice_helper(tensor, slice_spec, var=None):
    """tensor[slice_spec] with NumPy's basic indexing, as one StridedSlice."""
    if isinstance(slice_spec, bool) or (isinstance(slice_spec, ops.Tensor) and slice_spec.dtype == dtypes.bool) \
            or (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool):
        return boolean_mask(tensor, slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    index = 0
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for s in slice_spec:
        if isinstance(s, _builtins.slice):
            if s.start is not None:
                _check_index(s.start)
                begin.append(s.start)
            else:
                begin.append(0)
                begin_mask |= 1 << index
            if s.stop is not None:
                _check_index(s.stop)
                end.append(s.stop)
            else:
                end.append(0)
                end_mask |= 1 << index
            if s.step is not None:
                _check_index(s.step)
                strides.append(s.step)
            else:
                strides.append(1)
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= 1 << index
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= 1 << index
        else:
            _check_index(s)
            begin.append(s)
            end.append(s + 1)
            strides.append(1)
            shrink_axis_mask |= 1 << index
        index += 1
    with ops.name_scope(None, "strided_slice", [tensor]) as name:
        if begin:
            packed_begin, packed_end, packed_strides = stack(begin), stack(end), stack(strides)
            types = {packed_begin.dtype.base_dtype, packed_end.dtype.base_dtype, packed_strides.dtype.base_dtype}
            if dtypes.int64 in types and len(types) > 1:
                packed_begin, packed_end, packed_strides = (
                    gen_ops.cast(t, dtypes.int64) if t.dtype.base_dtype != dtypes.int64 else t
                    for t in (packed_begin, packed_end, packed_strides))
        else:
            packed_begin = packed_end = packed_strides = constant_op.constant([], dtype=dtypes.int32)
        return strided_slice(tensor, packed_begin, packed_end, packed_strides, begin_mask=begin_mask,
                             end_mask=end_mask, shrink_axis_mask=shrink_axis_mask, new_axis_mask=new_axis_mask,
                             ellipsis_mask=ellipsis_mask, var=var, name=name)


def _getitem(tensor, key):
    return _slice_helper(tensor, key)


ops.Tensor._override_operator("__getitem__", _slice_helper)


def identity(input, name=None):  # noqa: A002
    if hasattr(input, "_as_graph_element") and not isinstance(input, ops.Tensor) and hasattr(input, "value"):
        input = input.value()
    return gen_ops.identity(input, name=name)


def stop_gradient(input, name=None):  # noqa: A002
    return gen_ops.stop_gradient(input, name=name)


def prevent_gradient(input, message="", name=None):  # noqa: A002
    return gen_ops.prevent_gradient(input, message=message, name=name)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A tensor with on_value at each index's position along `axis` (default last), else off_value."""
    with ops.name_scope(name, "one_hot", [indices, depth, on_value, off_value, axis, dtype]) as name:
        on_exists = on_value is not None
        off_exists = off_value is not None
        on_dtype = _value_dtype(on_value) if on_exists else None
        off_dtype = _value_dtype(off_value) if off_exists else None
        if on_dtype is not None and off_dtype is not None and on_dtype != off_dtype:
            raise TypeError("dtype {0} of on_value does not match dtype {1} of off_value".format(on_dtype,
                                                                                                  off_dtype))
        if dtype is None:
            dtype = on_dtype or off_dtype or dtypes.float32
        dtype = dtypes.as_dtype(dtype).base_dtype
        if on_dtype is not None and on_dtype != dtype:
            raise TypeError("dtype {0} of on_value does not match dtype parameter {1}".format(on_dtype, dtype))
        if off_dtype is not None and off_dtype != dtype:
            raise TypeError("dtype {0} of off_value does not match dtype parameter {1}".format(off_dtype, dtype))
        one = True if dtype == dtypes.bool else 1
        zero = False if dtype == dtypes.bool else 0
        on_value = _t(on_value if on_exists else one, "on_value", dtype=dtype)
        off_value = _t(off_value if off_exists else zero, "off_value", dtype=dtype)
        return gen_ops.one_hot(indices, depth, on_value, off_value, axis=-1 if axis is None else axis, name=name)


def _value_dtype(v):
    if isinstance(v, ops.Tensor) or hasattr(v, "_as_graph_element"):
        return v.dtype.base_dtype
    return dtypes.as_dtype(tensor_util.to_numpy(v).dtype)


def where(condition, x=None, y=None, name=None):
    """Coordinates of true elements (one argument), or x where condition else y
    (condition: x's shape or a vector over x's first dimension)."""
    if x is None and y is None:
        with ops.name_scope(name, "Where", [condition]) as name:
            condition = _t(condition, "condition", dtype=dtypes.bool)
            return gen_ops.where(condition, name=name)
    if x is not None and y is not None:
        return gen_ops.select(condition, x, y, name=name)
    raise ValueError("x and y must both be non-None or both be None.")


def where_v2(condition, x=None, y=None, name=None):
    """As where, with condition, x and y broadcasting together."""
    if x is None and y is None:
        return where(condition, name=name)
    if x is not None and y is not None:
        return gen_ops.select_v2(condition, x, y, name=name)
    raise ValueError("x and y must both be non-None or both be None.")


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The elements (or slices) of `tensor` where `mask` is true, flattened over the mask's dimensions."""
    with ops.name_scope(name, values=[tensor, mask]):
        tensor = _t(tensor, "tensor")
        mask = _t(mask, "mask")
        shape_mask = mask.shape
        ndims_mask = shape_mask.ndims
        shape_tensor = tensor.shape
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError("Number of mask dimensions must be specified, even if some dimensions are None.  "
                             "E.g. shape=[None] is ok, but shape=None is not.")
        axis = 0 if axis is None else axis
        if shape_tensor.ndims is not None:
            if not shape_tensor[axis:axis + ndims_mask].is_compatible_with(shape_mask):
                raise ValueError("Shapes %s and %s are incompatible" % (shape_tensor[axis:axis + ndims_mask],
                                                                        shape_mask))
        leading = shape_tensor[axis:axis + ndims_mask].num_elements() if shape_tensor.ndims is not None else None
        if leading is None:
            leading = gen_ops.prod(shape(tensor)[axis:axis + ndims_mask], [0])
        flat_shape = concat([shape(tensor)[:axis], [leading], shape(tensor)[axis + ndims_mask:]], 0)
        tensor = reshape(tensor, flat_shape)
        if shape_tensor.ndims is not None:
            first = shape_tensor[:axis]
            n = shape_tensor[axis:axis + ndims_mask].num_elements()
            rest = shape_tensor[axis + ndims_mask:]
            tensor.set_shape(first.concatenate([n]).concatenate(rest))
        mask = reshape(mask, [-1])
        indices = squeeze(gen_ops.where(mask), axis=[1])
        return gather(tensor, indices, axis=axis)


def reverse(tensor, axis, name=None):
    return gen_ops.reverse_v2(tensor, axis, name=name)


reverse_v2 = reverse


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None, seq_dim=None,  # noqa: A002
                     batch_dim=None):
    """Reverses the first seq_lengths[b] entries along seq_axis of each
    slice b along batch_axis (default 0); the rest stays in place."""
    if seq_axis is not None and seq_dim is not None:
        raise ValueError("Cannot specify both 'seq_axis' and 'seq_dim'")
    if batch_axis is not None and batch_dim is not None:
        raise ValueError("Cannot specify both 'batch_axis' and 'batch_dim'")
    seq_axis = seq_dim if seq_axis is None else seq_axis
    batch_axis = batch_dim if batch_axis is None else batch_axis
    if seq_axis is None:
        raise TypeError("reverse_sequence() missing required argument: 'seq_axis'")
    return gen_ops.reverse_sequence(input, seq_lengths, seq_dim=seq_axis,
                                    batch_dim=0 if batch_axis is None else batch_axis, name=name)


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """mask[i, j] = j < lengths[i], for j < maxlen (default max(lengths))."""
    with ops.name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = _t(lengths, "lengths")
        if maxlen is None:
            maxlen = gen_ops.max(lengths, list(_builtins.range(lengths.shape.ndims))
                                 if lengths.shape.ndims is not None else gen_ops.range(0, gen_ops.rank(lengths), 1))
            maxlen = gen_ops.maximum(maxlen, np.zeros((), lengths.dtype.as_numpy_dtype))
        else:
            maxlen = _t(maxlen, "maxlen")
        if maxlen.shape.ndims is not None and maxlen.shape.ndims != 0:
            raise ValueError("maxlen must be scalar for sequence_mask")
        # gen_ops, not math_ops: math_ops builds on this module.
        row_vector = gen_ops.range(np.zeros((), maxlen.dtype.as_numpy_dtype), maxlen,
                                   np.ones((), maxlen.dtype.as_numpy_dtype))
        matrix = expand_dims(lengths, -1)
        if matrix.dtype.base_dtype != maxlen.dtype.base_dtype:
            matrix = gen_ops.cast(matrix, maxlen.dtype.base_dtype)
        result = gen_ops.less(row_vector, matrix)
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_compatible_with(dtypes.bool):
            return result
        return gen_ops.cast(result, dtype)


def meshgrid(*args, **kwargs):
    """Coordinate matrices from coordinate vectors (indexing 'xy' or 'ij')."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError("'{}' is an invalid keyword argument for this function".format(list(kwargs)[0]))
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    with ops.name_scope(name, "meshgrid", args):
        ndim = len(args)
        s0 = (1,) * ndim
        output = []
        for i, x in enumerate(args):
            output.append(reshape(stack(x), (s0[:i] + (-1,) + s0[i + 1:])))
        shapes = [size(x) for x in args]
        output_dtype = _t(args[0]).dtype.base_dtype
        if indexing == "xy" and ndim > 1:
            output[0] = reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            shapes[0], shapes[1] = shapes[1], shapes[0]
        mult_fact = ones(stack(shapes), output_dtype)
        return [x * mult_fact for x in output]


def unique(x, out_idx=dtypes.int32, name=None):
    return gen_ops.unique(x, out_idx=out_idx, name=name)


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    return gen_ops.unique_with_counts(x, out_idx=out_idx, name=name)


def invert_permutation(x, name=None):
    return gen_ops.invert_permutation(x, name=name)


def dynamic_stitch(indices, data, name=None):
    return gen_ops.dynamic_stitch(list(indices), list(data), name=name)


def scatter_nd(indices, updates, shape, name=None):
    return gen_ops.scatter_nd(indices, updates, shape, name=name)


def tensor_scatter_update(tensor, indices, updates, name=None):
    return gen_ops.tensor_scatter_update(tensor, indices, updates, name=name)


def tensor_scatter_add(tensor, indices, updates, name=None):
    return gen_ops.tensor_scatter_add(tensor, indices, updates, name=name)


tensor_scatter_nd_update = tensor_scatter_update
tensor_scatter_nd_add = tensor_scatter_add


def depth_to_space(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    return gen_ops.depth_to_space(input, block_size, data_format=data_format, name=name)


def space_to_depth(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    return gen_ops.space_to_depth(input, block_size, data_format=data_format, name=name)


# ---- lists holding tensors convert by packing them ----------------------------------
def _is_graph_value(v):
    return isinstance(v, ops.Tensor) or (hasattr(v, "_as_graph_element") and hasattr(v, "dtype"))


def _contains_graph_value(v):
    if _is_graph_value(v):
        return True
    if isinstance(v, (list, tuple)):
        return any(_contains_graph_value(e) for e in v)
    return False


def _nested_dtype(v):
    if _is_graph_value(v):
        return v.dtype.base_dtype
    if isinstance(v, (list, tuple)):
        for e in v:
            d = _nested_dtype(e)
            if d is not None:
                return d
    return None


def _autopack(v, dtype, name):
    with ops.name_scope(name) as scope:
        converted = []
        for i, elem in enumerate(v):
            if _contains_graph_value(elem):
                if isinstance(elem, (list, tuple)):
                    elem = _autopack(elem, dtype, str(i))
                else:
                    elem = ops.convert_to_tensor(elem)
                    if elem.dtype.base_dtype != dtype:
                        elem = gen_ops.cast(elem, dtype)
            else:
                elem = constant_op.constant(elem, dtype=dtype, name=str(i))
            converted.append(elem)
        return gen_ops.pack(converted, name=scope)


def _autopacking_conversion_function(v, dtype=None, name=None, as_ref=False):
    if not _contains_graph_value(v):
        return NotImplemented
    inferred = _nested_dtype(v)
    dtype = inferred if dtype is None else dtypes.as_dtype(dtype).base_dtype
    return _autopack(v, dtype, name or "packed")


ops.register_tensor_conversion_function((list, tuple), _autopacking_conversion_function, 99)
