"""Learning-rate schedules of tf.train: exponential_decay, inverse_time_decay,
natural_exp_decay, polynomial_decay, piecewise_constant. Each is a tensor of
the global step, evaluated every step."""
from flowvm.tf.framework import constant_op
from flowvm.tf.framework import ops
from flowvm.tf.ops import gen_ops

__all__ = ["exponential_decay", "inverse_time_decay", "natural_exp_decay", "polynomial_decay",
           "piecewise_constant"]


def _cast(x, dtype):
    x = ops.convert_to_tensor(x)
    return x if x.dtype.base_dtype == dtype else gen_ops.cast(x, dtype)


def _require_step(global_step, what):
    if global_step is None:
        raise ValueError("global_step is required for %s." % what)


def _progress(learning_rate, global_step, decay_steps, staircase):
    lr = ops.convert_to_tensor(learning_rate, name="learning_rate")
    dtype = lr.dtype.base_dtype
    p = gen_ops.real_div(_cast(global_step, dtype), _cast(decay_steps, dtype))
    if staircase:
        p = gen_ops.floor(p)
    return lr, dtype, p


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate * decay_rate ^ (global_step / decay_steps) (the exponent floored if staircase)."""
    _require_step(global_step, "exponential_decay")
    with ops.name_scope(name, "ExponentialDecay") as name:
        lr, dtype, p = _progress(learning_rate, global_step, decay_steps, staircase)
        return gen_ops.mul(lr, gen_ops.pow(_cast(decay_rate, dtype), p), name=name)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate * exp(-decay_rate * global_step / decay_steps)."""
    _require_step(global_step, "natural_exp_decay")
    with ops.name_scope(name, "NaturalExpDecay") as name:
        lr, dtype, p = _progress(learning_rate, global_step, decay_steps, staircase)
        return gen_ops.mul(lr, gen_ops.exp(gen_ops.neg(gen_ops.mul(_cast(decay_rate, dtype), p))), name=name)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate / (1 + decay_rate * global_step / decay_steps)."""
    _require_step(global_step, "inverse_time_decay")
    with ops.name_scope(name, "InverseTimeDecay") as name:
        lr, dtype, p = _progress(learning_rate, global_step, decay_steps, staircase)
        one = constant_op.constant(1, dtype=dtype)
        return gen_ops.real_div(lr, gen_ops.add(one, gen_ops.mul(_cast(decay_rate, dtype), p)), name=name)


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False,
                     name=None):
    """(lr - end) * (1 - min(step, decay_steps) / decay_steps) ^ power + end."""
    _require_step(global_step, "polynomial_decay")
    if cycle:
        raise NotImplementedError("polynomial_decay(cycle=True) is not supported by flowvm")
    with ops.name_scope(name, "PolynomialDecay") as name:
        lr = ops.convert_to_tensor(learning_rate, name="learning_rate")
        dtype = lr.dtype.base_dtype
        end = _cast(end_learning_rate, dtype)
        steps = _cast(decay_steps, dtype)
        step = gen_ops.minimum(_cast(global_step, dtype), steps)
        one = constant_op.constant(1, dtype=dtype)
        frac = gen_ops.sub(one, gen_ops.real_div(step, steps))
        return gen_ops.add(gen_ops.mul(gen_ops.sub(lr, end), gen_ops.pow(frac, _cast(power, dtype))), end,
                           name=name)


def piecewise_constant(x, boundaries, values, name=None):
    """values[0] while x <= boundaries[0], values[i] while boundaries[i-1] < x <= boundaries[i],
    values[-1] after the last boundary."""
    if len(values) != len(boundaries) + 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with ops.name_scope(name, "PiecewiseConstant") as name:
        x = ops.convert_to_tensor(x)
        vals = [ops.convert_to_tensor(v) for v in values]
        for v in vals[1:]:
            if v.dtype.base_dtype != vals[0].dtype.base_dtype:
                raise ValueError("Values must have elements all with the same dtype (%s vs %s)."
                                 % (vals[0].dtype.base_dtype, v.dtype.base_dtype))
        bounds = []
        for b in boundaries:
            b = ops.convert_to_tensor(b)
            if b.dtype.base_dtype != x.dtype.base_dtype:
                if b.dtype.is_integer and x.dtype.is_integer:
                    b = gen_ops.cast(b, x.dtype.base_dtype)
                else:
                    raise ValueError("Boundaries (%s) must have the same dtype as x (%s)."
                                     % (b.dtype.base_dtype, x.dtype.base_dtype))
            bounds.append(b)
        result = vals[-1]
        for b, v in reversed(list(zip(bounds, vals[:-1]))):
            result = gen_ops.select(gen_ops.less_equal(x, b), v, result)
        return gen_ops.identity(result, name=name)
