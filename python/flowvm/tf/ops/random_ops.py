"""Random tensors (tf.random_normal, tf.random_uniform, ...), seeded by
TensorFlow 1.x's rules (framework/random_seed.py)."""
import numpy as np

from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import random_seed
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import gen_ops

__all__ = [
    "random_normal", "truncated_normal", "random_uniform", "random_shuffle",
    "multinomial", "random_gamma", "random_poisson", "random_crop",
]


def _shape_tensor(shape):
    if isinstance(shape, (list, tuple)) and not shape:
        return np.zeros([0], np.int32)
    t = array_ops._shape_tensor(shape)
    if t.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError("shape must be int32 or int64, got %s" % t.dtype.name)
    return t


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normally distributed values."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    with ops.name_scope(name, "random_normal", [shape, mean, stddev]) as name:
        shape_t = _shape_tensor(shape)
        mean_t = ops.convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = ops.convert_to_tensor(stddev, dtype=dtype, name="stddev")
        s1, s2 = random_seed.seed_attrs(seed)
        rnd = gen_ops.random_standard_normal(shape_t, dtype, seed=s1, seed2=s2)
        return gen_ops.add_v2(gen_ops.mul(rnd, stddev_t), mean_t, name=name)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values more than 2 standard deviations from the mean redrawn."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    with ops.name_scope(name, "truncated_normal", [shape, mean, stddev]) as name:
        shape_t = _shape_tensor(shape)
        mean_t = ops.convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = ops.convert_to_tensor(stddev, dtype=dtype, name="stddev")
        s1, s2 = random_seed.seed_attrs(seed)
        rnd = gen_ops.truncated_normal(shape_t, dtype, seed=s1, seed2=s2)
        return gen_ops.add_v2(gen_ops.mul(rnd, stddev_t), mean_t, name=name)


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform values in [minval, maxval); integer dtypes need maxval."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype not in (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64):
        raise ValueError("Invalid dtype %r" % dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError("Must specify maxval for integer dtype %r" % dtype)
        maxval = 1
    with ops.name_scope(name, "random_uniform", [shape, minval, maxval]) as name:
        shape_t = _shape_tensor(shape)
        minval = ops.convert_to_tensor(minval, dtype=dtype, name="min")
        maxval = ops.convert_to_tensor(maxval, dtype=dtype, name="max")
        s1, s2 = random_seed.seed_attrs(seed)
        if dtype.is_integer:
            return gen_ops.random_uniform_int(shape_t, minval, maxval, seed=s1, seed2=s2, name=name)
        rnd = gen_ops.random_uniform(shape_t, dtype, seed=s1, seed2=s2)
        return gen_ops.add_v2(gen_ops.mul(rnd, gen_ops.sub(maxval, minval)), minval, name=name)


def random_shuffle(value, seed=None, name=None):
    """`value` shuffled along its first dimension."""
    s1, s2 = random_seed.seed_attrs(seed)
    return gen_ops.random_shuffle(value, seed=s1, seed2=s2, name=name)


def random_crop(value, size, seed=None, name=None):
    """A random slice of `value` of shape `size`."""
    with ops.name_scope(name, "random_crop", [value, size]) as name:
        value = ops.convert_to_tensor(value, name="value")
        size = ops.convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = array_ops.shape(value)
        limit = shape - size + 1
        offset = random_uniform(array_ops.shape(shape), dtype=size.dtype, maxval=size.dtype.max, seed=seed) % limit
        return array_ops.slice(value, offset, size, name=name)


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=dtypes.int64):
    raise NotImplementedError("multinomial: flowvm's op registry has no Multinomial op")


def random_gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None):
    raise NotImplementedError("random_gamma: flowvm's op registry has no RandomGamma op")


def random_poisson(lam, shape, dtype=dtypes.float32, seed=None, name=None):
    raise NotImplementedError("random_poisson: flowvm's op registry has no RandomPoisson op")
