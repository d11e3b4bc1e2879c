"""Python values <-> NumPy arrays of a tensor's type (tf.make_tensor_proto,
tf.make_ndarray), with TensorFlow's inference of constant types: Python
floats are float32, ints int32 (int64 if they do not fit), strings bytes."""

import numpy as np

from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_shape


def _infer_np(value):
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (np.generic,)):
        return np.asarray(value)
    if isinstance(value, (bytes, str)):
        return np.array(value.encode("utf-8") if isinstance(value, str) else value, dtype=object)
    arr = np.asarray(value)
    if arr.dtype.kind in ("U", "S"):
        return np.vectorize(lambda x: x.encode("utf-8") if isinstance(x, str) else x, otypes=[object])(arr) \
            if arr.size else np.zeros(arr.shape, dtype=object)
    if arr.dtype == np.float64 and not _has_numpy_float64(value):
        arr = arr.astype(np.float32)
    elif arr.dtype == np.int64 and not _has_numpy_int64(value):
        if arr.size == 0 or (arr.min() >= -2 ** 31 and arr.max() < 2 ** 31):
            arr = arr.astype(np.int32)
    elif arr.dtype == object:
        raise TypeError("Failed to convert object of type %s to Tensor. Contents: %s. Consider casting elements "
                        "to a supported type." % (type(value), value))
    return arr


def _has_numpy_float64(value):
    if isinstance(value, (np.floating,)):
        return value.dtype == np.float64
    if isinstance(value, (list, tuple)):
        return any(_has_numpy_float64(v) for v in value)
    return False


def _has_numpy_int64(value):
    if isinstance(value, np.integer):
        return value.dtype == np.int64
    if isinstance(value, (list, tuple)):
        return any(_has_numpy_int64(v) for v in value)
    return False


def _contains_tensor(value):
    if isinstance(value, ops.Tensor):
        return True
    if isinstance(value, (list, tuple)):
        return any(_contains_tensor(v) for v in value)
    return False


def to_numpy(value, dtype=None):
    """`value` as a NumPy array of `dtype` (a DType or None: inferred);
    TypeError when the value does not fit the type (1.5 as an int32)."""
    if _contains_tensor(value):
        raise TypeError("a list containing tensors is not a constant; use tf.stack/tf.convert_to_tensor "
                        "on it instead")
    if dtype is None:
        return _infer_np(value)
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype == dtypes.string:
        arr = _infer_np(value)
        if arr.dtype != object:
            raise TypeError("Expected string, got %r of type '%s' instead." % (value, type(value).__name__))
        return arr
    npd = dtype.as_numpy_dtype
    if isinstance(value, np.ndarray) and value.dtype == npd:
        return value
    src = value if isinstance(value, np.ndarray) else np.asarray(value)
    if src.dtype == object or src.dtype.kind in ("U", "S"):
        raise TypeError("Expected %s, got %r of type '%s' instead." % (dtype.name, value, type(value).__name__))
    if dtype.is_integer or dtype == dtypes.bool:
        if src.dtype.kind == "f" and src.size and not np.all(np.isfinite(src) & (np.floor(src) == src)):
            raise TypeError("Expected %s, got %r of type '%s' instead." % (dtype.name, value, type(value).__name__))
        if src.dtype.kind == "c":
            raise TypeError("Expected %s, got %r of type '%s' instead." % (dtype.name, value, type(value).__name__))
        if dtype.is_integer and src.size and src.dtype.kind in ("i", "u", "f"):
            info = np.iinfo(npd)
            if src.min() < info.min or src.max() > info.max:
                raise TypeError("Expected %s, got %r: out of range for %s." % (dtype.name, value, dtype.name))
    if dtype.is_floating and src.dtype.kind == "c":
        raise TypeError("Expected %s, got %r of type '%s' instead." % (dtype.name, value, type(value).__name__))
    return np.asarray(src, dtype=npd)


def make_tensor_proto(values, dtype=None, shape=None, verify_shape=False):
    from flowvm import tensor_pb2
    arr = to_numpy(values, dtype)
    if shape is not None:
        arr = reshape_constant(arr, shape, verify_shape)
    p = tensor_pb2.TensorProto()
    dt = dtypes.as_dtype(arr.dtype) if dtype is None else dtypes.as_dtype(dtype).base_dtype
    p.dtype = dt.as_datatype_enum
    p.tensor_shape.CopyFrom(tensor_shape.TensorShape(arr.shape).as_proto())
    if dt == dtypes.string:
        for x in arr.ravel():
            p.string_val.append(x if isinstance(x, bytes) else str(x).encode("utf-8"))
    else:
        p.tensor_content = np.ascontiguousarray(arr).tobytes()
    return p


def MakeNdarray(proto):  # noqa: N802 - TensorFlow's name
    dt = dtypes.as_dtype(proto.dtype)
    shape = [d.size for d in proto.tensor_shape.dim]
    n = int(np.prod(shape)) if shape else 1
    if dt == dtypes.string:
        vals = list(proto.string_val)
        if len(vals) < n:
            vals += [vals[-1] if vals else b""] * (n - len(vals))
        return np.array(vals, dtype=object).reshape(shape)
    npd = dt.as_numpy_dtype
    if proto.tensor_content:
        return np.frombuffer(proto.tensor_content, dtype=npd).copy().reshape(shape)
    for field in ("float_val", "double_val", "int_val", "int64_val", "bool_val", "half_val"):
        vals = list(getattr(proto, field))
        if vals:
            if field == "half_val":
                arr = np.array(vals, dtype=np.uint16).view(np.float16)
            else:
                arr = np.array(vals, dtype=npd)
            if arr.size < n:
                arr = np.concatenate([arr, np.repeat(arr[-1:], n - arr.size)])
            return arr.astype(npd).reshape(shape)
    return np.zeros(shape, dtype=npd)


make_ndarray = MakeNdarray

# Graph.create_op decodes its tensor attrs with this.
ops._register_tensor_proto_decoder(MakeNdarray)


def reshape_constant(arr, shape, verify_shape=False):
    shape = [int(d) for d in tensor_shape.as_shape(shape).as_list()]
    n = int(np.prod(shape)) if shape else 1
    if list(arr.shape) == shape:
        return arr
    if verify_shape:
        raise TypeError("Expected Tensor's shape: %s, got %s." % (tuple(shape), arr.shape))
    if arr.size == 1:
        return np.full(shape, arr.reshape(()), dtype=arr.dtype)
    if arr.size == n:
        return arr.reshape(shape)
    if arr.size < n and arr.size > 0:
        # TensorFlow repeats the last value to fill a larger shape.
        flat = np.concatenate([arr.ravel(), np.repeat(arr.ravel()[-1:], n - arr.size)])
        return flat.reshape(shape)
    raise ValueError("Too many elements provided. Needed at most %d, but received %d" % (n, arr.size))


def constant_value(tensor):
    """The value of `tensor` if it is a constant (a Const, or the shape of a
    fully known shape), else None."""
    if not isinstance(tensor, ops.Tensor):
        return None
    op = tensor.op
    if op.type == "Const":
        return op.get_attr("value")
    if op.type == "Shape":
        s = op.inputs[0].shape
        if s.is_fully_defined():
            return np.array(s.as_list(), dtype=op.get_attr("out_type").as_numpy_dtype)
    if op.type == "Size":
        s = op.inputs[0].shape
        if s.is_fully_defined():
            return np.array(s.num_elements(), dtype=op.get_attr("out_type").as_numpy_dtype)
    if op.type == "Rank":
        s = op.inputs[0].shape
        if s.ndims is not None:
            return np.array(s.ndims, dtype=np.int32)
    if op.type == "Identity":
        return constant_value(op.inputs[0])
    return None

