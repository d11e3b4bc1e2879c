"""tf.nn: activations, convolutions, pooling, dropout, cross entropies,
moments and batch normalization, embedding lookup, top-k, with TensorFlow
1.x's signatures (ksize/strides as ints or lists, data_format, keep_prob or
rate, labels=/logits= keywords)."""
import numbers

import numpy as np

from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import gen_ops
from flowvm.tf.ops import math_ops
from flowvm.tf.ops import random_ops

__all__ = [
    "relu", "relu6", "elu", "selu", "softplus", "softsign", "sigmoid", "tanh", "leaky_relu", "crelu", "swish",
    "softmax", "log_softmax", "bias_add", "conv2d", "conv2d_transpose", "depthwise_conv2d",
    "depthwise_conv2d_native", "separable_conv2d", "conv3d", "max_pool", "avg_pool", "max_pool3d", "avg_pool3d",
    "pool", "dropout", "l2_loss", "l2_normalize", "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2", "sparse_softmax_cross_entropy_with_logits",
    "sigmoid_cross_entropy_with_logits", "weighted_cross_entropy_with_logits", "moments", "batch_normalization",
    "fused_batch_norm", "embedding_lookup", "top_k", "in_top_k", "xw_plus_b", "relu_layer", "lrn",
    "local_response_normalization", "zero_fraction", "log_poisson_loss", "nce_loss", "sampled_softmax_loss",
    "dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn", "space_to_depth", "depth_to_space",
]

_t = ops.convert_to_tensor


# ---- activations ---------------------------------------------------------------
def relu(features, name=None):
    return gen_ops.relu(features, name=name)


def relu6(features, name=None):
    with ops.name_scope(name, "Relu6", [features]) as name:
        return gen_ops.relu6(_t(features, name="features"), name=name)


def elu(features, name=None):
    return gen_ops.elu(features, name=name)


def selu(features, name=None):
    return gen_ops.selu(features, name=name)


def softplus(features, name=None):
    return gen_ops.softplus(features, name=name)


def softsign(features, name=None):
    return gen_ops.softsign(features, name=name)


sigmoid = math_ops.sigmoid
tanh = math_ops.tanh
l2_normalize = math_ops.l2_normalize


def leaky_relu(features, alpha=0.2, name=None):
    """max(features, alpha * features)."""
    with ops.name_scope(name, "LeakyRelu", [features, alpha]) as name:
        features = _t(features, name="features")
        if features.dtype.is_integer:
            features = math_ops.cast(features, dtypes.float32)
        if isinstance(alpha, numbers.Real) and not isinstance(alpha, bool):
            return gen_ops.leaky_relu(features, alpha=float(alpha), name=name)
        alpha = _t(alpha, dtype=features.dtype.base_dtype, name="alpha")
        return gen_ops.maximum(alpha * features, features, name=name)


def crelu(features, name=None, axis=-1):
    with ops.name_scope(name, "CRelu", [features]) as name:
        features = _t(features, name="features")
        c = array_ops.concat([features, -features], axis, name=name)
        return gen_ops.relu(c)


def swish(features):
    features = _t(features, name="features")
    return features * gen_ops.sigmoid(features)


def _move_axis_last(fn, logits, axis, name):
    """Applies a last-axis op over `axis` by swapping it with the last one."""
    logits = _t(logits, name="logits")
    nd = logits.shape.ndims
    if axis is None or axis == -1 or (nd is not None and axis == nd - 1):
        return fn(logits, name=name)
    if nd is None:
        raise NotImplementedError("softmax over an axis other than the last needs the input's rank")
    if not -nd <= axis < nd:
        raise ValueError("axis %d out of range for a tensor of rank %d" % (axis, nd))
    axis %= nd
    perm = list(range(nd))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    out = fn(array_ops.transpose(logits, perm))
    return array_ops.transpose(out, perm, name=name)


def softmax(logits, axis=None, name=None, dim=None):
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    return _move_axis_last(gen_ops.softmax, logits, axis, name)


def log_softmax(logits, axis=None, name=None, dim=None):
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    return _move_axis_last(gen_ops.log_softmax, logits, axis, name)


def bias_add(value, bias, data_format=None, name=None):
    """value + bias over the channel dimension (last, or 1 with 'NCHW')."""
    with ops.name_scope(name, "BiasAdd", [value, bias]) as name:
        value = _t(value, name="input")
        bias = _t(bias, dtype=value.dtype.base_dtype, name="bias")
        if data_format is not None and data_format.startswith("NC"):
            data_format = "NCHW"
        elif data_format is not None and data_format.startswith("N") and data_format.endswith("C"):
            data_format = "NHWC"
        elif data_format is not None:
            raise ValueError("data_format must be NHWC-like or NCHW-like, got %s" % data_format)
        return gen_ops.bias_add(value, bias, data_format=data_format or "NHWC", name=name)


def xw_plus_b(x, weights, biases, name=None):
    with ops.name_scope(name, "xw_plus_b", [x, weights, biases]) as name:
        mm = math_ops.matmul(x, weights)
        return bias_add(mm, biases, name=name)


def relu_layer(x, weights, biases, name=None):
    with ops.name_scope(name, "relu_layer", [x, weights, biases]) as name:
        return gen_ops.relu(bias_add(math_ops.matmul(x, weights), biases), name=name)


# ---- convolution and pooling -----------------------------------------------------
def _sequence(value, n, channel_index, name):
    """TensorFlow's _get_sequence: an int or a list of 1, n or n+2 ints, as an
    n+2 list with 1 at the batch and channel positions."""
    if value is None:
        value = 1
    if isinstance(value, numbers.Integral):
        value = [int(value)]
    value = [int(v) for v in value]
    if len(value) == n + 2:
        return value
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError("%s should be of length 1, %d or %d but was %d" % (name, n, n + 2, len(value)))
    if channel_index == 1:
        return [1, 1] + value
    return [1] + value + [1]


def _check_padding(padding):
    if isinstance(padding, (list, tuple)):
        raise NotImplementedError("explicit paddings are not supported; pad with tf.pad and use 'VALID'")
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ("SAME", "VALID"):
        raise ValueError("padding must be 'SAME' or 'VALID', got %r" % (padding,))
    return padding


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True, data_format="NHWC",  # noqa: A002
           dilations=[1, 1, 1, 1], name=None, filters=None):
    """2-D convolution; filter [height, width, in_channels, out_channels]."""
    filter = filters if filter is None else filter
    if filter is None or strides is None or padding is None:
        raise ValueError("conv2d needs filter, strides and padding")
    cidx = 1 if data_format.startswith("NC") else 3
    return gen_ops.conv2d(input, filter, strides=_sequence(strides, 2, cidx, "strides"),
                          padding=_check_padding(padding), use_cudnn_on_gpu=use_cudnn_on_gpu, data_format=data_format,
                          dilations=_sequence(dilations, 2, cidx, "dilations"), name=name)


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME",  # noqa: A002
                     data_format="NHWC", name=None, input=None, filters=None, dilations=None):
    """The gradient of conv2d with respect to its input ("deconvolution")."""
    value = input if value is None else value
    filter = filters if filter is None else filter
    if dilations is not None and any(d != 1 for d in _sequence(dilations, 2, 3, "dilations")):
        raise NotImplementedError("conv2d_transpose with dilations is not supported")
    with ops.name_scope(name, "conv2d_transpose", [value, filter, output_shape]) as name:
        cidx = 1 if data_format.startswith("NC") else 3
        value = _t(value, name="value")
        filter = _t(filter, name="filter")
        if value.shape.ndims is not None and filter.shape.ndims is not None:
            vc, fc = value.shape.as_list()[cidx], filter.shape.as_list()[3]
            if vc is not None and fc is not None and vc != fc:
                raise ValueError("input channels does not match filter's input channels, {} != {}".format(vc, fc))
        output_shape_t = _t(output_shape, name="output_shape", dtype=dtypes.int32)
        out = gen_ops.conv2d_backprop_input(output_shape_t, filter, value,
                                            strides=_sequence(strides, 2, cidx, "strides"),
                                            padding=_check_padding(padding), data_format=data_format, name=name)
        if isinstance(output_shape, (list, tuple)):
            array_ops._set_list_shape(out, output_shape)
        return out


def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC", dilations=[1, 1, 1, 1],  # noqa: A002
                            name=None):
    return gen_ops.depthwise_conv2d_native(input, filter, strides=list(strides), padding=_check_padding(padding),
                                           data_format=data_format, dilations=list(dilations), name=name)


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None, data_format=None,  # noqa: A002
                     dilations=None):
    rate = dilations if rate is None else rate
    rate = [1, 1] if rate is None else list(rate)
    data_format = data_format or "NHWC"
    cidx = 1 if data_format.startswith("NC") else 3
    with ops.name_scope(name, "depthwise", [input, filter]) as name:
        return gen_ops.depthwise_conv2d_native(input, filter, strides=list(strides), padding=_check_padding(padding),
                                               data_format=data_format, dilations=_sequence(rate, 2, cidx, "rate"),
                                               name=name)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, rate=None, name=None,  # noqa: A002
                     data_format=None, dilations=None):
    with ops.name_scope(name, "separable_conv2d", [input, depthwise_filter, pointwise_filter]) as name:
        depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding, rate=rate, name="depthwise",
                                     data_format=data_format, dilations=dilations)
        return conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], "VALID", data_format=data_format or "NHWC",
                      name=name)


def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC",  # noqa: A002
           dilations=[1, 1, 1, 1, 1], name=None, filters=None):
    filter = filters if filter is None else filter
    cidx = 1 if data_format.startswith("NC") else 4
    return _gen("Conv3D")(input, filter, strides=_sequence(strides, 3, cidx, "strides"),
                          padding=_check_padding(padding), data_format=data_format,
                          dilations=_sequence(dilations, 3, cidx, "dilations"), name=name)


def _gen(op_name):
    fn = getattr(gen_ops, op_name, None)
    if fn is None:
        raise NotImplementedError("flowvm's op registry has no %s op" % op_name)
    return fn


def _pool(gen_name, value, ksize, strides, padding, data_format, name, n):
    cidx = 1 if data_format.startswith("NC") else n + 1
    return _gen(gen_name)(value, ksize=_sequence(ksize, n, cidx, "ksize"), strides=_sequence(strides, n, cidx,
                                                                                            "strides"),
                          padding=_check_padding(padding), data_format=data_format, name=name)


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    value = input if value is None else value
    with ops.name_scope(name, "MaxPool", [value]) as name:
        return _pool("MaxPool", value, ksize, strides, padding, data_format, name, 2)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    value = input if value is None else value
    with ops.name_scope(name, "AvgPool", [value]) as name:
        return _pool("AvgPool", value, ksize, strides, padding, data_format, name, 2)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    with ops.name_scope(name, "MaxPool3D", [input]) as name:
        return _pool("MaxPool3D", input, ksize, strides, padding, data_format, name, 3)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    with ops.name_scope(name, "AvgPool3D", [input]) as name:
        return _pool("AvgPool3D", input, ksize, strides, padding, data_format, name, 3)


def pool(input, window_shape, pooling_type, padding, dilation_rate=None, strides=None, name=None,  # noqa: A002
         data_format=None):
    if dilation_rate is not None and any(d != 1 for d in dilation_rate):
        raise NotImplementedError("pool with dilation_rate is not supported")
    n = len(window_shape)
    fns = {("MAX", 2): max_pool, ("AVG", 2): avg_pool, ("MAX", 3): max_pool3d, ("AVG", 3): avg_pool3d}
    fn = fns.get((pooling_type, n))
    if fn is None:
        raise NotImplementedError("pool: %s pooling over %d dimensions is not supported" % (pooling_type, n))
    df = data_format or ("NHWC" if n == 2 else "NDHWC")
    return fn(input, list(window_shape), list(strides or window_shape), padding, data_format=df, name=name)


def lrn(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):  # noqa: A002
    return gen_ops.lrn(input, depth_radius=depth_radius, bias=float(bias), alpha=float(alpha), beta=float(beta),
                       name=name)


local_response_normalization = lrn


def space_to_depth(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    return array_ops.space_to_depth(input, block_size, name=name, data_format=data_format)


def depth_to_space(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    return array_ops.depth_to_space(input, block_size, name=name, data_format=data_format)


# ---- dropout -------------------------------------------------------------------
def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Zeroes each element with probability `rate` (= 1 - keep_prob) and
    scales the others by 1 / (1 - rate)."""
    if keep_prob is not None and rate is not None:
        raise ValueError("You cannot specify both 'rate' and 'keep_prob'.")
    if keep_prob is None and rate is None:
        raise ValueError("You must provide a rate to dropout.")
    with ops.name_scope(name, "dropout", [x]) as name:
        x = _t(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError("x has to be a floating point tensor since it's going to be scaled. Got a %s tensor "
                             "instead." % x.dtype)
        if keep_prob is not None:
            if isinstance(keep_prob, numbers.Real) and not 0 < keep_prob <= 1:
                raise ValueError("keep_prob must be a scalar tensor or a float in the range (0, 1], got %g"
                                 % keep_prob)
            rate = 1 - keep_prob if isinstance(keep_prob, numbers.Real) else \
                gen_ops.sub(_t(1, dtype=x.dtype.base_dtype), _t(keep_prob, dtype=x.dtype.base_dtype))
        if isinstance(rate, numbers.Real):
            if not 0 <= rate < 1:
                raise ValueError("rate must be a scalar tensor or a float in the range [0, 1), got %g" % rate)
            if rate == 0 and keep_prob is not None:
                return x
        rate_t = _t(rate, dtype=x.dtype.base_dtype, name="rate")
        if rate_t.shape.ndims is not None and rate_t.shape.ndims != 0:
            raise ValueError("rate must be a scalar tensor or a float in the range [0, 1), got shape %s"
                             % rate_t.shape)
        noise = array_ops.shape(x) if noise_shape is None else noise_shape
        random_tensor = random_ops.random_uniform(noise, seed=seed, dtype=x.dtype)
        keep_mask = random_tensor >= rate_t
        scale = gen_ops.real_div(_t(1, dtype=x.dtype.base_dtype), gen_ops.sub(_t(1, dtype=x.dtype.base_dtype),
                                                                               rate_t))
        ret = gen_ops.mul(x * scale, math_ops.cast(keep_mask, x.dtype.base_dtype), name=name)
        ret.set_shape(x.shape)
        return ret


# ---- losses ----------------------------------------------------------------------
def l2_loss(t, name=None):
    return gen_ops.l2_loss(t, name=name)


def _no_sentinel(sentinel, fn_name):
    if sentinel is not None:
        raise ValueError("Only call `%s` with named arguments (labels=..., logits=..., ...)" % fn_name)


def _flatten_outer(t):
    """[..., n] -> [prod(...), n]."""
    nd = t.shape.ndims
    if nd == 2:
        return t
    last = t.shape.as_list()[-1] if nd is not None else None
    return array_ops.reshape(t, [-1, last if last is not None else array_ops.shape(t)[-1]])


def softmax_cross_entropy_with_logits_v2(_sentinel=None, labels=None, logits=None, axis=None, name=None, dim=None):
    """-sum(labels * log_softmax(logits), axis); gradients flow to labels too."""
    _no_sentinel(_sentinel, "softmax_cross_entropy_with_logits_v2")
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        axis = -1
    with ops.name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as name:
        logits = _t(logits, name="logits")
        labels = _t(labels, name="labels", dtype=logits.dtype.base_dtype) if not isinstance(labels, ops.Tensor) \
            else labels
        if labels.dtype.base_dtype != logits.dtype.base_dtype:
            labels = math_ops.cast(labels, logits.dtype.base_dtype)
        if logits.shape.ndims is not None and labels.shape.ndims is not None and \
                not logits.shape.is_compatible_with(labels.shape):
            raise ValueError("Shapes %s and %s are incompatible (logits and labels of "
                             "softmax_cross_entropy_with_logits)" % (logits.shape, labels.shape))
        nd = logits.shape.ndims
        if nd is None:
            raise NotImplementedError("softmax_cross_entropy_with_logits needs the rank of logits to be known")
        if nd == 0:
            raise ValueError("logits must have rank >= 1")
        if axis % nd != nd - 1:
            perm = list(range(nd))
            perm[axis % nd], perm[-1] = perm[-1], perm[axis % nd]
            logits = array_ops.transpose(logits, perm)
            labels = array_ops.transpose(labels, perm)
        shape = logits.shape
        if nd == 2:
            loss = gen_ops.softmax_cross_entropy_with_logits(logits, labels, name=name).loss
            return loss
        loss = gen_ops.softmax_cross_entropy_with_logits(_flatten_outer(logits), _flatten_outer(labels)).loss
        if nd == 1:
            return array_ops.reshape(loss, [], name=name)
        if shape[:-1].is_fully_defined():
            return array_ops.reshape(loss, shape[:-1].as_list(), name=name)
        out = array_ops.reshape(loss, array_ops.shape(logits)[:-1], name=name)
        out.set_shape(shape[:-1])
        return out


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1, name=None, axis=None):
    """As the _v2 version, with no gradient into labels (TensorFlow 1.x's deprecated form)."""
    _no_sentinel(_sentinel, "softmax_cross_entropy_with_logits")
    if axis is not None:
        dim = axis
    with ops.name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as name:
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=dim, name=name)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """Cross entropy of logits [..., classes] against class indices labels [...]."""
    _no_sentinel(_sentinel, "sparse_softmax_cross_entropy_with_logits")
    with ops.name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = _t(labels, name="labels")
        logits = _t(logits, name="logits")
        ls, gs = labels.shape, logits.shape
        if gs.ndims == 0:
            raise ValueError("Logits cannot be scalars - received shape %s." % gs)
        if ls.ndims is not None and gs.ndims is not None and ls.ndims != gs.ndims - 1:
            raise ValueError("Rank mismatch: Rank of labels (received %s) should equal rank of logits minus 1 "
                             "(received %s)." % (ls.ndims, gs.ndims))
        if ls.ndims is not None and gs.ndims is not None and not ls.is_compatible_with(gs[:-1]):
            raise ValueError("Shape mismatch: The shape of labels (received %s) should equal the shape of logits "
                             "except for the last dimension (received %s)." % (ls, gs))
        if labels.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError("labels of sparse_softmax_cross_entropy_with_logits must be int32 or int64, got %s"
                            % labels.dtype.name)
        if gs.ndims == 2:
            return gen_ops.sparse_softmax_cross_entropy_with_logits(logits, labels, name=name).loss
        if gs.ndims is None:
            raise NotImplementedError("sparse_softmax_cross_entropy_with_logits needs the rank of logits")
        flat_labels = array_ops.reshape(labels, [-1])
        loss = gen_ops.sparse_softmax_cross_entropy_with_logits(_flatten_outer(logits), flat_labels).loss
        if ls.is_fully_defined():
            return array_ops.reshape(loss, ls.as_list(), name=name)
        out = array_ops.reshape(loss, array_ops.shape(labels), name=name)
        out.set_shape(ls)
        return out


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """max(x, 0) - x * z + log(1 + exp(-|x|)): stable for any logits x."""
    _no_sentinel(_sentinel, "sigmoid_cross_entropy_with_logits")
    with ops.name_scope(name, "logistic_loss", [logits, labels]) as name:
        logits = _t(logits, name="logits")
        labels = _t(labels, name="labels", dtype=logits.dtype.base_dtype)
        if not logits.shape.is_compatible_with(labels.shape):
            raise ValueError("logits and labels must have the same shape (%s vs %s)" % (logits.shape, labels.shape))
        zeros = array_ops.zeros_like(logits)
        cond = logits >= zeros
        relu_logits = gen_ops.select(cond, logits, zeros)
        neg_abs_logits = gen_ops.select(cond, -logits, logits)
        return gen_ops.add_v2(relu_logits - logits * labels, gen_ops.log1p(gen_ops.exp(neg_abs_logits)), name=name)


def weighted_cross_entropy_with_logits(targets=None, logits=None, pos_weight=None, name=None, labels=None):
    """Sigmoid cross entropy with the positive term weighted by pos_weight."""
    targets = labels if targets is None else targets
    with ops.name_scope(name, "logistic_loss", [logits, targets]) as name:
        logits = _t(logits, name="logits")
        targets = _t(targets, name="targets", dtype=logits.dtype.base_dtype)
        if not logits.shape.is_compatible_with(targets.shape):
            raise ValueError("logits and targets must have the same shape (%s vs %s)"
                             % (logits.shape, targets.shape))
        log_weight = 1 + (pos_weight - 1) * targets
        return gen_ops.add_v2((1 - targets) * logits,
                              log_weight * (gen_ops.log1p(gen_ops.exp(-math_ops.abs(logits))) +
                                            gen_ops.relu(-logits)), name=name)


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    with ops.name_scope(name, "log_poisson_loss", [log_input, targets]) as name:
        log_input = _t(log_input, name="log_input")
        targets = _t(targets, name="targets", dtype=log_input.dtype.base_dtype)
        result = gen_ops.exp(log_input) - log_input * targets
        if compute_full_loss:
            point_five = 0.5
            two_pi = 2 * np.pi
            stirling = targets * gen_ops.log(targets) - targets + point_five * gen_ops.log(two_pi * targets)
            zeros = array_ops.zeros_like(targets)
            cond = gen_ops.logical_and(targets >= zeros, targets <= 1.0)
            result += gen_ops.select(cond, zeros, stirling)
        return gen_ops.identity(result, name=name)


def zero_fraction(value, name=None):
    with ops.name_scope(name, "zero_fraction", [value]):
        value = _t(value, name="value")
        zero = np.zeros((), value.dtype.as_numpy_dtype)
        return math_ops.reduce_mean(math_ops.cast(gen_ops.equal(value, zero), dtypes.float32))


# ---- normalization --------------------------------------------------------------
def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) of x over `axes`."""
    if keep_dims is not None:
        keepdims = keep_dims
    keepdims = bool(keepdims)
    with ops.name_scope(name, "moments", [x, axes]):
        x = _t(x, name="x")
        y = math_ops.cast(x, dtypes.float32) if x.dtype == dtypes.float16 else x
        mean = math_ops.reduce_mean(y, axes, keepdims=True, name="mean")
        variance = math_ops.reduce_mean(gen_ops.squared_difference(y, array_ops.stop_gradient(mean)), axes,
                                        keepdims=True, name="variance")
        if not keepdims:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        if x.dtype == dtypes.float16:
            return math_ops.cast(mean, dtypes.float16), math_ops.cast(variance, dtypes.float16)
        return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset."""
    with ops.name_scope(name, "batchnorm", [x, mean, variance, scale, offset]) as name:
        x = _t(x, name="x")
        inv = gen_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv = inv * scale
        inv = math_ops.cast(inv, x.dtype.base_dtype)
        shift = (offset - mean * inv) if offset is not None else -mean * inv
        return gen_ops.add_v2(x * inv, math_ops.cast(shift, x.dtype.base_dtype), name=name)


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC",
                     is_training=True, name=None):
    """(y, batch_mean, batch_variance) by the FusedBatchNormV3 op; in training
    the returned variance is the unbiased one (for moving averages)."""
    x = _t(x, name="input")
    scale = _t(scale, name="scale")
    offset = _t(offset, name="offset")
    if is_training:
        if mean is None:
            mean = np.zeros([0], np.float32)
        if variance is None:
            variance = np.zeros([0], np.float32)
    elif mean is None or variance is None:
        raise ValueError("Both 'mean' and 'variance' must be a 1D tensor when is_training is False.")
    min_epsilon = 1.001e-5
    epsilon = epsilon if epsilon > min_epsilon else min_epsilon
    out = _gen("FusedBatchNormV3")(x, scale, offset, mean, variance, epsilon=float(epsilon),
                                   data_format=data_format, is_training=is_training, name=name)
    return out[0], out[1], out[2]


# ---- lookups and top-k -------------------------------------------------------------
def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None):
    """Rows of `params` (one tensor, or a list sharded by partition_strategy
    'mod' (id % n) or 'div' (contiguous ranges)) for each id."""
    if params is None:
        raise ValueError("Need at least one param")
    if isinstance(params, (list, tuple)):
        params = list(params)
    else:
        params = [params]
    if not params:
        raise ValueError("Need at least one param")
    if partition_strategy not in ("mod", "div"):
        raise ValueError("Unrecognized partition strategy: " + partition_strategy)
    with ops.name_scope(name, "embedding_lookup", params + [ids]) as name:
        np_ = len(params)
        ids = _t(ids, name="ids")
        if np_ == 1:
            result = array_ops.gather(params[0], ids, name=name)
            return _clip(result, ids, max_norm)
        pts = [_t(p) for p in params]
        if partition_strategy == "mod":
            p_assignments = ids % np_
            new_ids = ids // np_
        else:
            sizes = [p.shape.as_list()[0] if p.shape.ndims else None for p in pts]
            if any(s is None for s in sizes):
                raise NotImplementedError("embedding_lookup 'div' needs the row counts of all params known")
            total = sum(sizes)
            ids_per = total // np_
            extras = total % np_
            p_assignments = gen_ops.maximum(ids // (ids_per + 1), (ids - extras) // ids_per)
            is_in_first_extras = gen_ops.less(p_assignments, _t(extras, dtype=ids.dtype.base_dtype))
            new_ids = gen_ops.select(is_in_first_extras, ids % (ids_per + 1), (ids - extras) % ids_per)
        # No DynamicPartition op: every shard gathers all ids (clamped into
        # its range), and the rows of the shard each id belongs to are kept.
        result = None
        for p, t in enumerate(pts):
            rows = math_ops.cast(array_ops.shape(t)[0], ids.dtype.base_dtype)
            safe = gen_ops.minimum(gen_ops.maximum(new_ids, _t(0, dtype=ids.dtype.base_dtype)),
                                   gen_ops.maximum(rows - 1, _t(0, dtype=ids.dtype.base_dtype)))
            gathered = array_ops.gather(t, safe)
            if result is None:
                result = gathered
                continue
            mask = gen_ops.equal(p_assignments, _t(p, dtype=ids.dtype.base_dtype))
            extra_dims = t.shape.ndims - 1 if t.shape.ndims is not None else None
            if extra_dims is None:
                raise NotImplementedError("embedding_lookup over several params needs their ranks known")
            mask = array_ops.reshape(mask, array_ops.concat([array_ops.shape(ids), [1] * extra_dims], 0)) \
                if extra_dims else mask
            result = gen_ops.select_v2(mask, gathered, result)
        result = array_ops.identity(result, name=name)
        return _clip(result, ids, max_norm)


def _clip(result, ids, max_norm):
    if max_norm is None:
        return result
    nd = result.shape.ndims
    axes = list(range(ids.shape.ndims, nd)) if ids.shape.ndims is not None and nd is not None else None
    return math_ops.clip_by_norm(result, max_norm, axes=axes)


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002
    """(values, indices) of the k largest entries of the last dimension."""
    return gen_ops.TopKV2(input, k, sorted=sorted, name=name)


def in_top_k(predictions, targets, k, name=None):
    """Whether each target's prediction is among the k largest of its row
    (ties at the boundary count as in, as TensorFlow)."""
    with ops.name_scope(name, "in_top_k", [predictions, targets]) as name:
        predictions = _t(predictions, name="predictions", dtype=dtypes.float32)
        targets = _t(targets, name="targets")
        if predictions.shape.ndims not in (None, 2):
            raise ValueError("predictions must be 2-dimensional, got shape %s" % predictions.shape)
        if targets.shape.ndims not in (None, 1):
            raise ValueError("targets must be 1-dimensional, got shape %s" % targets.shape)
        tdt = targets.dtype.base_dtype
        num_classes = math_ops.cast(array_ops.shape(predictions)[1], tdt)
        valid = gen_ops.logical_and(targets >= _t(0, dtype=tdt), targets < num_classes)
        safe = gen_ops.select(valid, targets, array_ops.zeros_like(targets))
        rows = math_ops.range(math_ops.cast(array_ops.shape(predictions)[0], tdt), dtype=tdt)
        target_pred = gen_ops.gather_nd(predictions, array_ops.stack([rows, safe], axis=1))
        larger = math_ops.reduce_sum(math_ops.cast(predictions > array_ops.expand_dims(target_pred, 1),
                                                   dtypes.int32), 1)
        ok = gen_ops.logical_and(valid, gen_ops.is_finite(target_pred))
        return gen_ops.logical_and(ok, larger < k, name=name)


# ---- not available ---------------------------------------------------------------
def _unsupported(what):
    def fn(*args, **kwargs):
        raise NotImplementedError("tf.nn.%s is not supported by flowvm" % what)
    fn.__name__ = what
    return fn


nce_loss = _unsupported("nce_loss")
sampled_softmax_loss = _unsupported("sampled_softmax_loss")
dynamic_rnn = _unsupported("dynamic_rnn")
static_rnn = _unsupported("static_rnn")
bidirectional_dynamic_rnn = _unsupported("bidirectional_dynamic_rnn")
