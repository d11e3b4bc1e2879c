"""TensorFlow 1.x's math wrappers (tf.add, tf.matmul, tf.reduce_sum, ...)
and the arithmetic operators of Tensor, over the generated op functions.

Binary operators convert a Python/NumPy operand to the tensor's dtype (so
`x * 2` works for a float x) and name their node as TensorFlow does
("add", "mul", "truediv", ...), the converted constant inside that scope.
"""
import builtins as _builtins

import numpy as np

from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_util
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import gen_ops

__all__ = [
    "add", "add_n", "subtract", "multiply", "divide", "div", "div_no_nan", "truediv", "floordiv", "floor_div",
    "mod", "floormod", "truncatediv", "truncatemod", "pow", "square", "sqrt", "rsqrt", "exp", "expm1", "log",
    "log1p", "abs", "negative", "sign", "reciprocal", "maximum", "minimum", "matmul", "tensordot", "scalar_mul",
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_all", "reduce_any",
    "reduce_logsumexp", "argmax", "argmin", "equal", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "logical_and", "logical_or", "logical_not", "logical_xor", "cast", "to_float", "to_double",
    "to_int32", "to_int64", "to_bfloat16", "saturate_cast", "round", "floor", "ceil", "sigmoid", "tanh", "range",
    "cumsum", "cumprod", "count_nonzero", "clip_by_value", "clip_by_norm", "clip_by_global_norm", "global_norm",
    "l2_normalize", "sin", "cos", "tan", "erf", "atan2", "squared_difference", "is_nan", "is_inf", "is_finite",
    "unsorted_segment_sum", "matrix_inverse", "matrix_determinant", "lbeta", "realdiv", "rint", "accumulate_n",
    "reduce_euclidean_norm", "norm", "log_sigmoid",
]


def _t(x, name=None, dtype=None, preferred_dtype=None):
    return ops.convert_to_tensor(x, dtype=dtype, name=name, preferred_dtype=preferred_dtype)


# ---- elementwise binary ------------------------------------------------------
def add(x, y, name=None):
    """x + y with broadcasting (strings concatenate)."""
    x = _t(x, "x")
    if x.dtype.base_dtype == dtypes.string:
        return gen_ops.add(x, y, name=name)
    return gen_ops.add_v2(x, y, name=name)


def subtract(x, y, name=None):
    return gen_ops.sub(x, y, name=name)


def multiply(x, y, name=None):
    return gen_ops.mul(x, y, name=name)


sub = subtract
mul = multiply


def realdiv(x, y, name=None):
    return gen_ops.real_div(x, y, name=name)


# TensorFlow's truediv: integers become floats of enough precision first.
_TRUEDIV_TABLE = {
    dtypes.uint8: dtypes.float32, dtypes.int8: dtypes.float32, dtypes.uint16: dtypes.float32,
    dtypes.int16: dtypes.float32, dtypes.int32: dtypes.float64, dtypes.int64: dtypes.float64,
    dtypes.bfloat16: None, dtypes.float16: None, dtypes.float32: None, dtypes.float64: None,
    dtypes.complex64: None, dtypes.complex128: None,
}


def truediv(x, y, name=None):
    """x / y; integer operands are cast to float first (int32 -> float64)."""
    with ops.name_scope(name, "truediv", [x, y]) as name:
        x = _t(x, "x")
        y = _t(y, "y", dtype=x.dtype.base_dtype)
        x_dtype = x.dtype.base_dtype
        if x_dtype != y.dtype.base_dtype:
            raise TypeError("x and y must have the same dtype, got %r != %r" % (x_dtype, y.dtype.base_dtype))
        if x_dtype not in _TRUEDIV_TABLE:
            raise TypeError("Invalid dtype %r in __truediv__" % x_dtype)
        dt = _TRUEDIV_TABLE[x_dtype]
        if dt is not None:
            x = cast(x, dt)
            y = cast(y, dt)
        return gen_ops.real_div(x, y, name=name)


def divide(x, y, name=None):
    """x / y (Python 3 division)."""
    if name is not None:
        return truediv(x, y, name=name)
    if not isinstance(x, ops.Tensor) and not isinstance(y, ops.Tensor):
        x = _t(x, "x")
    return x / y


def div(x, y, name=None):
    """Python 2 division: floor division for integers, real division for floats."""
    with ops.name_scope(name, "div", [x, y]) as name:
        x = _t(x, "x")
        y = _t(y, "y", dtype=x.dtype.base_dtype)
        if x.dtype.base_dtype.is_floating or x.dtype.base_dtype.is_complex:
            return gen_ops.real_div(x, y, name=name)
        return gen_ops.floor_div(x, y, name=name)


def div_no_nan(x, y, name=None):
    """x / y, 0 where y is 0."""
    with ops.name_scope(name, "div_no_nan", [x, y]) as name:
        x = _t(x, "x")
        y = _t(y, "y", dtype=x.dtype.base_dtype)
        safe_y = gen_ops.select_v2(gen_ops.equal(y, 0), gen_ops.ones_like(y), y)
        q = gen_ops.real_div(x, safe_y) if x.dtype.is_floating else gen_ops.div(x, safe_y)
        return gen_ops.select_v2(gen_ops.equal(y, 0), gen_ops.zeros_like(q), q, name=name)


def floordiv(x, y, name=None):
    """x // y, rounding toward negative infinity."""
    with ops.name_scope(name, "floordiv", [x, y]) as name:
        return gen_ops.floor_div(x, y, name=name)


floor_div = floordiv


def mod(x, y, name=None):
    """x % y with the sign of y (Python's %)."""
    with ops.name_scope(name, "mod", [x, y]) as name:
        return gen_ops.floor_mod(x, y, name=name)


floormod = mod


def truncatediv(x, y, name=None):
    return gen_ops.truncate_div(x, y, name=name)


def truncatemod(x, y, name=None):
    return gen_ops.truncate_mod(x, y, name=name)


def pow(x, y, name=None):  # noqa: A001 - TensorFlow's name
    with ops.name_scope(name, "Pow", [x]) as name:
        return gen_ops.pow(x, y, name=name)


def maximum(x, y, name=None):
    return gen_ops.maximum(x, y, name=name)


def minimum(x, y, name=None):
    return gen_ops.minimum(x, y, name=name)


def squared_difference(x, y, name=None):
    return gen_ops.squared_difference(x, y, name=name)


def atan2(y, x, name=None):
    return gen_ops.atan2(y, x, name=name)


def scalar_mul(scalar, x, name=None):
    """scalar * x; `scalar` must be a 0-d value."""
    scalar = _t(scalar, "scalar", dtype=_t(x).dtype.base_dtype if isinstance(x, ops.Tensor) else None)
    shape = scalar.shape
    if shape.ndims is not None and shape.ndims != 0:
        raise ValueError("Only scalar multiply works, got shape %s" % shape)
    with ops.name_scope(name, "scalar_mul", [scalar, x]) as name:
        return gen_ops.mul(scalar, x, name=name)


# ---- elementwise unary -------------------------------------------------------
def _unary(gen_fn):
    def fn(x, name=None):
        return gen_fn(x, name=name)
    fn.__name__ = gen_fn.__name__
    fn.__doc__ = gen_fn.__doc__
    return fn


square = _unary(gen_ops.square)
sqrt = _unary(gen_ops.sqrt)
rsqrt = _unary(gen_ops.rsqrt)
exp = _unary(gen_ops.exp)
expm1 = _unary(gen_ops.expm1)
log = _unary(gen_ops.log)
log1p = _unary(gen_ops.log1p)
negative = _unary(gen_ops.neg)
neg = negative
sign = _unary(gen_ops.sign)
reciprocal = _unary(gen_ops.reciprocal)
floor = _unary(gen_ops.floor)
ceil = _unary(gen_ops.ceil)
sin = _unary(gen_ops.sin)
cos = _unary(gen_ops.cos)
tan = _unary(gen_ops.tan)
erf = _unary(gen_ops.erf)
is_nan = _unary(gen_ops.is_nan)
is_inf = _unary(gen_ops.is_inf)
is_finite = _unary(gen_ops.is_finite)
matrix_inverse = _unary(gen_ops.matrix_inverse)
matrix_determinant = _unary(gen_ops.matrix_determinant)


def abs(x, name=None):  # noqa: A001 - TensorFlow's name
    with ops.name_scope(name, "Abs", [x]) as name:
        x = _t(x, "x")
        if x.dtype.is_complex:
            raise NotImplementedError("abs of complex tensors (ComplexAbs) is not supported by flowvm")
        return gen_ops.abs(x, name=name)


def round(x, name=None):  # noqa: A001 - TensorFlow's name
    """Rounds half to even, as TensorFlow does; integers are returned as is."""
    x = _t(x, "x")
    if x.dtype.is_integer:
        return x
    return gen_ops.round(x, name=name)


rint = round


def sigmoid(x, name=None):
    with ops.name_scope(name, "Sigmoid", [x]) as name:
        return gen_ops.sigmoid(_t(x, "x"), name=name)


def tanh(x, name=None):
    with ops.name_scope(name, "Tanh", [x]) as name:
        return gen_ops.tanh(_t(x, "x"), name=name)


def lbeta(x, name=None):
    raise NotImplementedError("lbeta needs Lgamma, which flowvm's op registry lacks")


# ---- comparisons and logic ---------------------------------------------------
def equal(x, y, name=None):
    return gen_ops.equal(x, y, name=name)


def not_equal(x, y, name=None):
    return gen_ops.not_equal(x, y, name=name)


def less(x, y, name=None):
    return gen_ops.less(x, y, name=name)


def less_equal(x, y, name=None):
    return gen_ops.less_equal(x, y, name=name)


def greater(x, y, name=None):
    return gen_ops.greater(x, y, name=name)


def greater_equal(x, y, name=None):
    return gen_ops.greater_equal(x, y, name=name)


def logical_and(x, y, name=None):
    return gen_ops.logical_and(x, y, name=name)


def logical_or(x, y, name=None):
    return gen_ops.logical_or(x, y, name=name)


def logical_not(x, name=None):
    return gen_ops.logical_not(x, name=name)


def logical_xor(x, y, name="LogicalXor"):
    """(x | y) & ~(x & y), as TensorFlow builds it."""
    return gen_ops.logical_and(gen_ops.logical_or(x, y), gen_ops.logical_not(gen_ops.logical_and(x, y)), name=name)


# ---- casts -------------------------------------------------------------------
def cast(x, dtype, name=None):
    """x as `dtype`; returns x itself when it already has that type."""
    base_type = dtypes.as_dtype(dtype).base_dtype
    if isinstance(x, ops.Tensor) and base_type == x.dtype.base_dtype:
        return x
    with ops.name_scope(name, "Cast", [x]) as name:
        x = _t(x, "x")
        if x.dtype.base_dtype != base_type:
            x = gen_ops.cast(x, base_type, name=name)
        return x


def saturate_cast(value, dtype, name=None):
    """Casts, clamping values to `dtype`'s range first."""
    with ops.name_scope(name, "saturate_cast", [value]) as name:
        value = _t(value, "value")
        dtype = dtypes.as_dtype(dtype).base_dtype
        src = value.dtype.base_dtype
        if src.is_complex or dtype.is_complex:
            raise NotImplementedError("saturate_cast of complex types is not supported")
        if src.min < dtype.min:
            value = gen_ops.maximum(value, _t(dtype.min, dtype=src) if src.is_floating
                                    else _t(np.array(dtype.min).astype(src.as_numpy_dtype), dtype=src))
        if src.max > dtype.max:
            value = gen_ops.minimum(value, _t(dtype.max, dtype=src) if src.is_floating
                                    else _t(np.array(dtype.max).astype(src.as_numpy_dtype), dtype=src))
        return cast(value, dtype, name=name)


def to_float(x, name="ToFloat"):
    return cast(x, dtypes.float32, name=name)


def to_double(x, name="ToDouble"):
    return cast(x, dtypes.float64, name=name)


def to_int32(x, name="ToInt32"):
    return cast(x, dtypes.int32, name=name)


def to_int64(x, name="ToInt64"):
    return cast(x, dtypes.int64, name=name)


def to_bfloat16(x, name="ToBFloat16"):
    return cast(x, dtypes.bfloat16, name=name)


# ---- matmul ------------------------------------------------------------------
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False, a_is_sparse=False,
           b_is_sparse=False, name=None):
    """a @ b; inputs of rank > 2 (or unknown) multiply batch-wise."""
    with ops.name_scope(name, "MatMul", [a, b]) as name:
        if transpose_a and adjoint_a:
            raise ValueError("Only one of transpose_a and adjoint_a can be True.")
        if transpose_b and adjoint_b:
            raise ValueError("Only one of transpose_b and adjoint_b can be True.")
        a = _t(a, "a")
        b = _t(b, "b", dtype=a.dtype.base_dtype)
        if a.dtype.is_complex and (adjoint_a or adjoint_b):
            raise NotImplementedError("matmul: adjoint of complex matrices needs Conj, which flowvm lacks")
        ta = transpose_a or adjoint_a
        tb = transpose_b or adjoint_b
        ra, rb = a.shape.ndims, b.shape.ndims
        if ra is None or rb is None or ra > 2 or rb > 2:
            return gen_ops.batch_mat_mul_v2(a, b, adj_x=ta, adj_y=tb, name=name)
        return gen_ops.mat_mul(a, b, transpose_a=ta, transpose_b=tb, name=name)


def tensordot(a, b, axes, name=None):
    """Sum over `axes` of a (last ones) and b (first ones): an int N or a
    pair of axis lists. Needs the contracted and kept dimensions' sizes of
    known rank; free dimensions may be unknown only in a's leading ones."""
    with ops.name_scope(name, "Tensordot", [a, b, axes]) as name:
        a = _t(a, "a")
        b = _t(b, "b")
        ra, rb = a.shape.ndims, b.shape.ndims
        if ra is None or rb is None:
            raise NotImplementedError("tensordot: flowvm needs the ranks of both inputs to be known")
        if isinstance(axes, (int, np.integer)):
            n = int(axes)
            if n < 0:
                raise ValueError("'axes' must be at least 0.")
            if n > ra or n > rb:
                raise ValueError("'axes' must not be larger than the number of dimensions of tensor %s." % a)
            a_axes = list(_builtins.range(ra - n, ra))
            b_axes = list(_builtins.range(n))
        else:
            if isinstance(axes, ops.Tensor):
                raise NotImplementedError("tensordot: axes given as a Tensor are not supported")
            if len(axes) != 2:
                raise ValueError("'axes' must be an integer or have length 2.")
            a_axes, b_axes = axes
            if isinstance(a_axes, (int, np.integer)):
                a_axes = [a_axes]
            if isinstance(b_axes, (int, np.integer)):
                b_axes = [b_axes]
            a_axes = [int(x) % ra for x in a_axes]
            b_axes = [int(x) % rb for x in b_axes]
            if len(a_axes) != len(b_axes):
                raise ValueError("Different number of contraction axes 'a' and 'b', %d != %d."
                                 % (len(a_axes), len(b_axes)))
        a_free = [i for i in _builtins.range(ra) if i not in a_axes]
        b_free = [i for i in _builtins.range(rb) if i not in b_axes]
        a_shape, b_shape = a.shape.as_list(), b.shape.as_list()
        for ia, ib in zip(a_axes, b_axes):
            if a_shape[ia] is not None and b_shape[ib] is not None and a_shape[ia] != b_shape[ib]:
                raise ValueError("tensordot: dimension %d of a (%d) and dimension %d of b (%d) differ"
                                 % (ia, a_shape[ia], ib, b_shape[ib]))
        contracted = [a_shape[i] if a_shape[i] is not None else b_shape[j] for i, j in zip(a_axes, b_axes)]
        b_free_sizes = [b_shape[i] for i in b_free]
        if any(s is None for s in contracted) or any(s is None for s in b_free_sizes):
            raise NotImplementedError("tensordot: flowvm needs the contracted dimensions and b's free "
                                      "dimensions to be known statically")
        k = int(np.prod(contracted)) if contracted else 1
        nb = int(np.prod(b_free_sizes)) if b_free_sizes else 1
        a_perm = a_free + a_axes
        a_t = a if a_perm == list(_builtins.range(ra)) else array_ops.transpose(a, a_perm)
        a_free_sizes = [a_shape[i] for i in a_free]
        a_m = array_ops.reshape(a_t, [-1, k])
        b_perm = b_axes + b_free
        b_t = b if b_perm == list(_builtins.range(rb)) else array_ops.transpose(b, b_perm)
        b_m = array_ops.reshape(b_t, [k, nb])
        prod = gen_ops.mat_mul(a_m, b_m)
        if all(s is not None for s in a_free_sizes):
            out_shape = a_free_sizes + b_free_sizes
            return array_ops.reshape(prod, out_shape, name=name)
        free_dims = gen_ops.gather_v2(array_ops.shape(a), a_free, 0)
        out_shape = array_ops.concat([free_dims, np.array(b_free_sizes, np.int32)], 0)
        out = array_ops.reshape(prod, out_shape, name=name)
        out.set_shape(a_free_sizes + b_free_sizes)
        return out


def add_n(inputs, name=None):
    """The sum of a list of tensors of the same shape and type."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    inputs = [_t(x) for x in inputs]
    if len(inputs) == 1:
        if name:
            return gen_ops.identity(inputs[0], name=name)
        return inputs[0]
    return gen_ops.add_n(inputs, name=name)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    return add_n(inputs, name=name)


# ---- reductions ----------------------------------------------------------------
def _axis_arg(axis, reduction_indices, keepdims, keep_dims, dim_name="reduction_indices"):
    if reduction_indices is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and '%s'." % dim_name)
        axis = reduction_indices
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'.")
        keepdims = keep_dims
    return axis, bool(keepdims) if keepdims is not None else False


def _reduction_dims(x, axis):
    if axis is not None:
        if isinstance(axis, ops.Tensor) or tensor_util._contains_tensor(axis) or hasattr(axis, "_as_graph_element"):
            return axis
        return np.asarray(axis, dtype=np.int64 if np.asarray(axis).dtype == np.int64 else np.int32)
    rank = x.shape.ndims
    if rank is not None:
        return np.arange(rank, dtype=np.int32)
    return gen_ops.range(0, gen_ops.rank(x), 1)


def _reduce(gen_fn, input_tensor, axis, keepdims, name, reduction_indices, keep_dims, bool_input=False):
    axis, keepdims = _axis_arg(axis, reduction_indices, keepdims, keep_dims)
    x = _t(input_tensor, "input_tensor", dtype=dtypes.bool if bool_input else None)
    if axis is None and not keepdims and x.shape.ndims is None:
        # Reducing all of a tensor of unknown rank: over its flattened values,
        # so that the gradient never divides by a rank of 0 (a scalar fed).
        with ops.name_scope(None, "flatten", [x]):
            flat = array_ops.reshape(x, [-1])
        return gen_fn(flat, np.zeros((), np.int32), keep_dims=False, name=name)
    return gen_fn(x, _reduction_dims(x, axis), keep_dims=keepdims, name=name)


def reduce_sum(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce(gen_ops.sum, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_mean(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce(gen_ops.mean, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_max(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce(gen_ops.max, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_min(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce(gen_ops.min, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_prod(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce(gen_ops.prod, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_all(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce(gen_ops.all, input_tensor, axis, keepdims, name, reduction_indices, keep_dims, True)


def reduce_any(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    return _reduce(gen_ops.any, input_tensor, axis, keepdims, name, reduction_indices, keep_dims, True)


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=None, name=None):
    with ops.name_scope(name, "reduce_euclidean_norm", [input_tensor]) as name:
        x = _t(input_tensor, "input_tensor")
        return gen_ops.sqrt(reduce_sum(gen_ops.square(x), axis, keepdims), name=name)


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None):
    """log(sum(exp(x))) computed stably (the max is subtracted first)."""
    axis, keepdims = _axis_arg(axis, reduction_indices, keepdims, keep_dims)
    with ops.name_scope(name, "ReduceLogSumExp", [input_tensor]) as name:
        x = _t(input_tensor, "input_tensor")
        raw_max = reduce_max(x, axis, keepdims=True)
        my_max = gen_ops.stop_gradient(
            gen_ops.select_v2(gen_ops.is_finite(raw_max), raw_max, gen_ops.zeros_like(raw_max)))
        result = gen_ops.log(reduce_sum(gen_ops.exp(gen_ops.sub(x, my_max)), axis, keepdims=keepdims))
        if not keepdims:
            my_max = array_ops.reshape(my_max, array_ops.shape(result))
        return gen_ops.add_v2(result, my_max, name=name)


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=dtypes.int64, name=None,
                  reduction_indices=None, keep_dims=None, input=None):  # noqa: A002
    if input is not None:
        input_tensor = input
    axis, keepdims = _axis_arg(axis, reduction_indices, keepdims, keep_dims)
    with ops.name_scope(name, "count_nonzero", [input_tensor]):
        x = _t(input_tensor, "input_tensor")
        zero = np.zeros((), dtype=x.dtype.as_numpy_dtype) if x.dtype != dtypes.string else b""
        nz = cast(gen_ops.not_equal(x, zero), dtypes.int64)
        return cast(reduce_sum(nz, axis=axis, keepdims=keepdims), dtype=dtype)


def argmax(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
    if dimension is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dimension'")
        axis = dimension
    if axis is None:
        axis = 0
    return gen_ops.arg_max(input, axis, output_type=output_type, name=name)


def argmin(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
    if dimension is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dimension'")
        axis = dimension
    if axis is None:
        axis = 0
    return gen_ops.arg_min(input, axis, output_type=output_type, name=name)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    with ops.name_scope(name, "Cumsum", [x]) as name:
        return gen_ops.cumsum(_t(x, "x"), axis, exclusive=exclusive, reverse=reverse, name=name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    with ops.name_scope(name, "Cumprod", [x]) as name:
        return gen_ops.cumprod(_t(x, "x"), axis, exclusive=exclusive, reverse=reverse, name=name)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    return gen_ops.unsorted_segment_sum(data, segment_ids, num_segments, name=name)


# ---- range -------------------------------------------------------------------
_RANGE_TYPES = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TensorFlow's name
    """[start, start + delta, ...) up to limit; range(n) counts from 0."""
    if limit is None:
        start, limit = 0, start
    with ops.name_scope(name, "Range", [start, limit, delta]) as name:
        start = _t(start, "start", dtype=dtype)
        limit = _t(limit, "limit", dtype=dtype)
        delta = _t(delta, "delta", dtype=dtype)
        if dtype is None:
            inferred = _builtins.max([x.dtype.base_dtype for x in (start, limit, delta)],
                                     key=lambda d: _RANGE_TYPES.index(d) if d in _RANGE_TYPES else -1)
            start, limit, delta = (cast(x, inferred) for x in (start, limit, delta))
        return gen_ops.range(start, limit, delta, name=name)


# ---- clipping and norms -----------------------------------------------------
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """t clamped to [clip_value_min, clip_value_max] (which broadcast to t's shape)."""
    with ops.name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as name:
        t = _t(t, "t")
        t_min = gen_ops.minimum(t, _t(clip_value_max, dtype=t.dtype.base_dtype))
        _check_not_broadcast(t, t_min)
        t_max = gen_ops.maximum(t_min, _t(clip_value_min, dtype=t.dtype.base_dtype), name=name)
        _check_not_broadcast(t, t_max)
        return t_max


def _check_not_broadcast(t, out):
    if not out.shape.is_compatible_with(t.shape):
        raise ValueError("clip_by_value: the clip values broadcast t of shape %s to %s; they must not change "
                         "its shape" % (t.shape, out.shape))


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """t scaled so that its L2 norm (over `axes`) is at most clip_norm."""
    with ops.name_scope(name, "clip_by_norm", [t, clip_norm]) as name:
        t = _t(t, "t")
        l2sum = reduce_sum(t * t, axes, keepdims=True)
        pred = l2sum > 0
        l2sum_safe = gen_ops.select_v2(pred, l2sum, gen_ops.ones_like(l2sum))
        l2norm = gen_ops.select_v2(pred, gen_ops.sqrt(l2sum_safe), l2sum)
        intermediate = t * clip_norm
        out = gen_ops.identity(intermediate / maximum(l2norm, _t(clip_norm, dtype=t.dtype.base_dtype)), name=name)
        return out


def global_norm(t_list, name=None):
    """sqrt(sum of the squares of all the tensors' elements); None entries are skipped."""
    if not isinstance(t_list, (list, tuple)) or isinstance(t_list, str):
        raise TypeError("t_list should be a sequence")
    with ops.name_scope(name, "global_norm", t_list) as name:
        halves = []
        for i, t in enumerate(t_list):
            if t is None:
                continue
            t = _t(t, "t_%d" % i)
            halves.append(gen_ops.l2_loss(t))
        if not halves:
            return _t(0.0, name="global_norm")
        half = add_n(halves)
        return gen_ops.sqrt(half * 2, name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """(clipped list, global norm): every tensor scaled by
    clip_norm / max(global_norm, clip_norm)."""
    if not isinstance(t_list, (list, tuple)) or isinstance(t_list, str):
        raise TypeError("t_list should be a sequence")
    t_list = list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    with ops.name_scope(name, "clip_by_global_norm", t_list + [clip_norm]) as name:
        clip_norm = _t(clip_norm, "clip_norm", dtype=use_norm.dtype.base_dtype)
        scale_for_finite = clip_norm * minimum(1.0 / use_norm, 1.0 / clip_norm)
        # An infinite norm makes every value NaN, as TensorFlow does.
        scale = scale_for_finite + (use_norm - use_norm)
        out = []
        for i, t in enumerate(t_list):
            if t is None:
                out.append(None)
                continue
            t = _t(t, "t_%d" % i)
            out.append(gen_ops.identity(t * cast(scale, t.dtype.base_dtype), name="_%d" % i))
        return out, use_norm


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x**2, axis), epsilon))."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    with ops.name_scope(name, "l2_normalize", [x]) as name:
        x = _t(x, "x")
        square_sum = reduce_sum(gen_ops.square(x), axis, keepdims=True)
        x_inv_norm = gen_ops.rsqrt(gen_ops.maximum(square_sum, _t(epsilon, dtype=x.dtype.base_dtype)))
        return gen_ops.mul(x, x_inv_norm, name=name)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):  # noqa: A002
    """Vector norms (euclidean/2, 1, inf) over `axis` (None: all elements as one
    vector); the Frobenius norm over a pair of axes."""
    if keep_dims is not None:
        keepdims = keep_dims
    keepdims = bool(keepdims)
    is_matrix = isinstance(axis, (list, tuple)) and len(axis) == 2
    if is_matrix and ord not in ("fro", "euclidean"):
        raise NotImplementedError("norm: only the Frobenius norm of matrices is supported (ord=%r)" % (ord,))
    if ord not in ("euclidean", "fro", 1, 2, np.inf):
        raise ValueError("'ord' must be a supported vector norm, got %s" % (ord,))
    if ord == "fro" and not (axis is None or is_matrix):
        raise ValueError("'fro' is only valid for matrix norms")
    with ops.name_scope(name, "norm", [tensor]):
        x = _t(tensor, "tensor")
        if ord in ("euclidean", "fro", 2):
            return gen_ops.sqrt(reduce_sum(x * x, axis, keepdims=keepdims))
        if ord == 1:
            return reduce_sum(abs(x), axis, keepdims=keepdims)
        return reduce_max(abs(x), axis, keepdims=keepdims)


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), computed stably."""
    with ops.name_scope(name, "LogSigmoid", [x]) as name:
        x = _t(x, "x")
        return gen_ops.neg(gen_ops.softplus(gen_ops.neg(x)), name=name)


# ---- Tensor operators ------------------------------------------------------------
def _binary_operator(func, op_name):
    def binary_op_wrapper(x, y):
        with ops.name_scope(None, op_name, [x, y]) as name:
            if not isinstance(y, ops.Tensor) and _is_foreign(y):
                return NotImplemented
            y = ops.convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
            return func(x, y, name=name)

    def r_binary_op_wrapper(y, x):
        with ops.name_scope(None, op_name, [x, y]) as name:
            if _is_foreign(x):
                return NotImplemented
            x = ops.convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return func(x, y, name=name)

    return binary_op_wrapper, r_binary_op_wrapper


def _is_foreign(v):
    # Objects that implement the operator themselves (sparse tensors, ...)
    # but are not convertible: let Python try their reflected method.
    return hasattr(v, "__tf_binary_op_deferral__")


def _truediv_op(x, y, name=None):
    return truediv(x, y, name=name)


def _floordiv_op(x, y, name=None):
    return gen_ops.floor_div(x, y, name=name)


def _mod_op(x, y, name=None):
    return gen_ops.floor_mod(x, y, name=name)


def _pow_op(x, y, name=None):
    return gen_ops.pow(x, y, name=name)


def _matmul_op(x, y, name=None):
    return matmul(x, y, name=name)


def _and_op(x, y, name=None):
    return gen_ops.logical_and(x, y, name=name)


def _or_op(x, y, name=None):
    return gen_ops.logical_or(x, y, name=name)


def _xor_op(x, y, name=None):
    return logical_xor(x, y, name=name)


def _add_op(x, y, name=None):
    return add(x, y, name=name)


def _install_operators():
    table = [
        ("add", _add_op, "add"), ("sub", gen_ops.sub, "sub"), ("mul", gen_ops.mul, "mul"),
        ("truediv", _truediv_op, "truediv"), ("div", _truediv_op, "div"), ("floordiv", _floordiv_op, "floordiv"),
        ("mod", _mod_op, "mod"), ("pow", _pow_op, "pow"), ("matmul", _matmul_op, "MatMul"),
        ("and", _and_op, "and"), ("or", _or_op, "or"), ("xor", _xor_op, "xor"),
    ]
    for pyname, fn, op_name in table:
        fwd, rev = _binary_operator(fn, op_name)
        ops.Tensor._override_operator("__%s__" % pyname, fwd)
        ops.Tensor._override_operator("__r%s__" % pyname, rev)

    ops.Tensor._override_operator("__lt__", lambda x, y: gen_ops.less(x, y))
    ops.Tensor._override_operator("__le__", lambda x, y: gen_ops.less_equal(x, y))
    ops.Tensor._override_operator("__gt__", lambda x, y: gen_ops.greater(x, y))
    ops.Tensor._override_operator("__ge__", lambda x, y: gen_ops.greater_equal(x, y))
    ops.Tensor._override_operator("__neg__", lambda x: gen_ops.neg(x))
    ops.Tensor._override_operator("__abs__", lambda x: abs(x))
    ops.Tensor._override_operator("__invert__", lambda x: gen_ops.logical_not(x))


_install_operators()

