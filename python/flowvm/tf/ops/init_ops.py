"""Initializers (tf.zeros_initializer, tf.glorot_uniform_initializer, ...,
tf.initializers.*): callables `init(shape, dtype=None, partition_info=None)`
returning a tensor of that shape, as TensorFlow 1.x's init_ops.

Random initializers draw with the graph's random ops, seeded by TensorFlow's
graph-level / op-level seed rule (random_seed.get_seed), so a graph seed makes every
run of the initializer reproducible.
"""
import math

import numpy as np

from flowvm.tf.framework import constant_op
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import random_seed
from flowvm.tf.framework import tensor_shape
from flowvm.tf.ops import gen_ops

__all__ = ["Initializer", "Zeros", "Ones", "Constant", "RandomUniform", "RandomNormal", "TruncatedNormal",
           "UniformUnitScaling", "VarianceScaling", "Orthogonal", "Identity", "GlorotUniform", "GlorotNormal",
           "zeros_initializer", "ones_initializer", "constant_initializer", "random_uniform_initializer",
           "random_normal_initializer", "truncated_normal_initializer", "uniform_unit_scaling_initializer",
           "variance_scaling_initializer", "orthogonal_initializer", "identity_initializer",
           "glorot_uniform_initializer", "glorot_normal_initializer", "he_normal", "he_uniform", "lecun_normal",
           "lecun_uniform"]


def _shape_tensor(shape):
    return constant_op.constant(list(shape), dtype=dtypes.int32, name="shape")


def _scale_shift(rnd, scale, shift, dtype, name):
    scale_t = constant_op.constant(scale, dtype=dtype, name="stddev" if name == "random_normal" else "scale")
    shift_t = constant_op.constant(shift, dtype=dtype, name="mean" if name == "random_normal" else "min")
    return gen_ops.add(gen_ops.mul(rnd, scale_t), shift_t, name="value")


def _random_normal(shape, mean, stddev, dtype, seed, truncated=False):
    name = "truncated_normal" if truncated else "random_normal"
    with ops.name_scope(None, name):
        s1, s2 = random_seed.seed_attrs(seed)
        op = gen_ops.truncated_normal if truncated else gen_ops.random_standard_normal
        rnd = op(_shape_tensor(shape), dtype, seed=s1, seed2=s2, name="RandomStandardNormal"
                 if not truncated else "TruncatedNormal")
        return _scale_shift(rnd, stddev, mean, dtype, "random_normal")


def _random_uniform(shape, minval, maxval, dtype, seed):
    with ops.name_scope(None, "random_uniform"):
        s1, s2 = random_seed.seed_attrs(seed)
        if dtype.is_integer:
            if maxval is None:
                raise ValueError("Must specify maxval for integer dtype %r" % dtype)
            return gen_ops.random_uniform_int(_shape_tensor(shape), constant_op.constant(minval, dtype=dtype),
                                              constant_op.constant(maxval, dtype=dtype), seed=s1, seed2=s2)
        if maxval is None:
            maxval = 1
        rnd = gen_ops.random_uniform(_shape_tensor(shape), dtype, seed=s1, seed2=s2, name="RandomUniform")
        rng = constant_op.constant(maxval - minval, dtype=dtype, name="range")
        lo = constant_op.constant(minval, dtype=dtype, name="min")
        return gen_ops.add(gen_ops.mul(rnd, rng, name="mul"), lo, name="value")


def _as_shape_list(shape):
    if isinstance(shape, ops.Tensor):
        raise NotImplementedError("initializers take a static shape (a list or TensorShape), not a tensor")
    shape = tensor_shape.as_shape(shape)
    if not shape.is_fully_defined():
        raise ValueError("An initializer needs a fully defined shape, got %s" % shape)
    return shape.as_list()


def _assert_float_dtype(dtype):
    if not dtype.is_floating:
        raise ValueError("Expected floating point type, got %s." % dtype)
    return dtype


class Initializer(object):
    """The base of every initializer."""

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)


class Zeros(Initializer):
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype).base_dtype
        value = "" if dtype == dtypes.string else 0
        return gen_ops.fill(_shape_tensor(_as_shape_list(shape)), constant_op.constant(value, dtype=dtype),
                            name="zeros")

    def get_config(self):
        return {"dtype": self.dtype.name}


class Ones(Initializer):
    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype).base_dtype
        return gen_ops.fill(_shape_tensor(_as_shape_list(shape)), constant_op.constant(1, dtype=dtype),
                            name="ones")

    def get_config(self):
        return {"dtype": self.dtype.name}


class Constant(Initializer):
    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError("Invalid type for initial value: %s (expected Python scalar, list or tuple of values, "
                            "or numpy.ndarray)." % type(value))
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        dtype = dtypes.as_dtype(dtype or self.dtype).base_dtype
        if verify_shape is None:
            verify_shape = self._verify_shape
        return constant_op.constant(self.value, dtype=dtype, shape=_as_shape_list(shape), verify_shape=verify_shape)

    def get_config(self):
        return {"value": self.value, "dtype": self.dtype.name}


class RandomUniform(Initializer):
    def __init__(self, minval=0, maxval=None, seed=None, dtype=dtypes.float32):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype).base_dtype
        return _random_uniform(_as_shape_list(shape), self.minval, self.maxval, dtype, self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed, "dtype": self.dtype.name}


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype).base_dtype
        return _random_normal(_as_shape_list(shape), self.mean, self.stddev, dtype, self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed, "dtype": self.dtype.name}


class TruncatedNormal(RandomNormal):
    """Normal values more than two standard deviations from the mean are redrawn."""

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype).base_dtype
        return _random_normal(_as_shape_list(shape), self.mean, self.stddev, dtype, self.seed, truncated=True)


class UniformUnitScaling(Initializer):
    """Uniform in [-sqrt(3 / fan_in) * factor, +...] (deprecated in TF 1.x, kept for old programs)."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor = factor
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype).base_dtype
        shape = _as_shape_list(shape)
        input_size = 1.0
        for d in shape[:-1]:
            input_size *= float(d)
        input_size = max(input_size, 1.0)
        max_val = math.sqrt(3 / input_size) * self.factor
        return _random_uniform(shape, -max_val, max_val, dtype, self.seed)

    def get_config(self):
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


def _compute_fans(shape):
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = 1
    for d in shape[:-2]:
        receptive *= d
    return shape[-2] * receptive, shape[-1] * receptive


class VarianceScaling(Initializer):
    """Samples with variance scale / n, n the fan-in, fan-out or their mean;
    distribution "truncated_normal" (also "normal"), "untruncated_normal" or "uniform"."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=dtypes.float32):
        if scale <= 0.:
            raise ValueError("`scale` must be positive float.")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError("Invalid `mode` argument:", mode)
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError("Invalid `distribution` argument:", distribution)
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype).base_dtype
        shape = _as_shape_list(shape)
        scale_shape = shape
        if partition_info is not None:
            scale_shape = getattr(partition_info, "full_shape", shape)
        fan_in, fan_out = _compute_fans(scale_shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1., n)
        if self.distribution in ("normal", "truncated_normal"):
            # 0.879... is the standard deviation of a unit normal truncated to (-2, 2).
            stddev = math.sqrt(scale) / .87962566103423978
            return _random_normal(shape, 0.0, stddev, dtype, self.seed, truncated=True)
        if self.distribution == "untruncated_normal":
            return _random_normal(shape, 0.0, math.sqrt(scale), dtype, self.seed)
        limit = math.sqrt(3.0 * scale)
        return _random_uniform(shape, -limit, limit, dtype, self.seed)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed,
                "dtype": self.dtype.name}


class Orthogonal(Initializer):
    """An (semi-)orthogonal matrix times `gain`, reshaped to the shape.

    flowvm has no QR op, so the matrix is drawn with NumPy when the graph is
    built (seeded by the same graph/op seed rule) and held as a constant:
    re-running the initializer gives the same matrix, not a fresh draw."""

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain = gain
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype).base_dtype
        shape = _as_shape_list(shape)
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        num_rows = 1
        for d in shape[:-1]:
            num_rows *= d
        num_cols = shape[-1]
        s1, s2 = random_seed.get_seed(self.seed)
        rng = np.random.RandomState(None if s1 is None else (s1 * 7919 + s2) % (2 ** 32))
        a = rng.normal(size=(max(num_rows, num_cols), min(num_rows, num_cols)))
        q, r = np.linalg.qr(a)
        q *= np.sign(np.diag(r))
        if num_rows < num_cols:
            q = q.T
        value = (self.gain * q).reshape(shape).astype(dtype.as_numpy_dtype)
        return constant_op.constant(value, dtype=dtype, name="orthogonal")

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class Identity(Initializer):
    """gain times the identity matrix (2-D shapes only)."""

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        self.gain = gain
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype).base_dtype
        shape = _as_shape_list(shape)
        if len(shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        return constant_op.constant(self.gain * np.eye(*shape), dtype=dtype, name="identity")

    def get_config(self):
        return {"gain": self.gain, "dtype": self.dtype.name}


class GlorotUniform(VarianceScaling):
    def __init__(self, seed=None, dtype=dtypes.float32):
        super(GlorotUniform, self).__init__(1.0, "fan_avg", "uniform", seed, dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    def __init__(self, seed=None, dtype=dtypes.float32):
        super(GlorotNormal, self).__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


def he_normal(seed=None):
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed=None):
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


def lecun_normal(seed=None):
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


def lecun_uniform(seed=None):
    return VarianceScaling(1.0, "fan_in", "uniform", seed)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
uniform_unit_scaling_initializer = UniformUnitScaling
variance_scaling_initializer = VarianceScaling
orthogonal_initializer = Orthogonal
identity_initializer = Identity
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
