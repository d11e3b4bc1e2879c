"""tf.layers: TensorFlow 1.x's layer classes and functional forms (dense,
conv2d, pooling, dropout, flatten, batch_normalization).

A layer owns a variable scope, chosen on its first call as TensorFlow's
legacy layers do: its `name`, or a unique "dense", "dense_1", ... under the
current scope; its variables are made there by get_variable ("dense/kernel")
and found again on later calls. Moving-average updates of batch
normalization go to the UPDATE_OPS collection."""
import re

import numpy as np

from flowvm.tf import array_ops
from flowvm.tf import dtypes
from flowvm.tf import gen_ops
from flowvm.tf import math_ops
from flowvm.tf import nn_ops
from flowvm.tf import ops

__all__ = [
    "Layer", "Dense", "Conv1D", "Conv2D", "Conv3D", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D",
    "AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "Dropout", "Flatten", "BatchNormalization",
    "dense", "conv1d", "conv2d", "conv3d", "max_pooling1d", "max_pooling2d", "max_pooling3d", "average_pooling1d",
    "average_pooling2d", "average_pooling3d", "dropout", "flatten", "batch_normalization",
]


def _vs():
    from flowvm.tf import variable_scope
    return variable_scope


def _zeros():
    from flowvm.tf import init_ops
    return init_ops.zeros_initializer()


def _ones():
    from flowvm.tf import init_ops
    return init_ops.ones_initializer()


def _snake(name):
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def _tuple(value, n, name):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError("The `%s` argument must be a tuple of %d integers. Received: %s" % (name, n, value))
    return value


def _padding(padding):
    p = padding.lower() if isinstance(padding, str) else padding
    if p not in ("valid", "same"):
        raise ValueError("The `padding` argument must be one of \"valid\", \"same\". Received: %s" % (padding,))
    return p.upper()


def _data_format(data_format, rank):
    df = (data_format or "channels_last").lower()
    if df not in ("channels_last", "channels_first"):
        raise ValueError("The `data_format` argument must be one of \"channels_first\", \"channels_last\". "
                         "Received: %s" % (data_format,))
    return df


class Layer(object):
    """The base of tf.layers' classes: a scope, weights, updates and losses."""

    def __init__(self, trainable=True, name=None, dtype=None, _scope=None, _reuse=None, **kwargs):
        for k in kwargs:
            if k not in ("input_shape", "batch_input_shape", "_keras_style", "activity_regularizer"):
                raise TypeError("Keyword argument not understood: %s" % k)
        self.trainable = trainable
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
        self._reuse = _reuse
        self._base_name = name or _snake(type(self).__name__)
        self._name = name
        self.built = False
        self._trainable_weights = []
        self._non_trainable_weights = []
        self._updates = []
        self._losses = []
        self._scope = None
        self.activity_regularizer = kwargs.get("activity_regularizer")
        scope = _scope
        if scope:
            with _vs().variable_scope(scope) as captured:
                self._scope = captured
            self._name = self._scope.name.split("/")[-1] if self._name is None else self._name

    # -- properties
    @property
    def name(self):
        return self._name if self._name is not None else self._base_name

    @property
    def dtype(self):
        return self._dtype

    @property
    def scope_name(self):
        if self._scope is None:
            raise ValueError("No name available for layer scope because the layer \"%s\" has not been used yet."
                             % self.name)
        return self._scope.name

    @property
    def trainable_weights(self):
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self):
        if self.trainable:
            return list(self._non_trainable_weights)
        return list(self._trainable_weights) + list(self._non_trainable_weights)

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def updates(self):
        return list(self._updates)

    @property
    def losses(self):
        return list(self._losses)

    def get_updates_for(self, inputs):
        return list(self._updates)

    def get_losses_for(self, inputs):
        return list(self._losses)

    def add_update(self, updates, inputs=None):
        if not isinstance(updates, (list, tuple)):
            updates = [updates]
        for u in updates:
            self._updates.append(u)
            ops.add_to_collection(ops.GraphKeys.UPDATE_OPS, u)

    def add_loss(self, losses, inputs=None):
        if not isinstance(losses, (list, tuple)):
            losses = [losses]
        for loss in losses:
            if loss is None:
                continue
            self._losses.append(loss)
            ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, loss)

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None, trainable=True,
                   constraint=None, **kwargs):
        """A variable of this layer's scope, by get_variable (found again when reused)."""
        dtype = dtypes.as_dtype(dtype or self._dtype or dtypes.float32).base_dtype
        existing = {v.name for v in self._trainable_weights + self._non_trainable_weights}
        trainable = trainable and self.trainable
        v = _vs().get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                               trainable=trainable, constraint=constraint)
        if v.name not in existing:
            (self._trainable_weights if trainable else self._non_trainable_weights).append(v)
        return v

    # -- calling
    def build(self, input_shape):
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def _set_scope(self, scope=None):
        if self._scope is None:
            vs = _vs()
            if self._reuse:
                with vs.variable_scope(scope if scope is not None else self._base_name) as captured:
                    self._scope = captured
            else:
                with vs.variable_scope(scope, default_name=self._base_name) as captured:
                    self._scope = captured
            if self._name is None:
                self._name = self._scope.name.split("/")[-1]

    def __call__(self, inputs, *args, **kwargs):
        scope = kwargs.pop("scope", None)
        self._set_scope(scope)
        vs = _vs()
        reuse = True if self.built else self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as current:
            self._current_scope = current
            with ops.name_scope(current.original_name_scope or None):
                if not isinstance(inputs, (list, tuple)):
                    inputs = ops.convert_to_tensor(inputs)
                    if self._dtype is None and inputs.dtype.base_dtype.is_floating:
                        self._dtype = inputs.dtype.base_dtype
                if not self.built:
                    self.build(inputs.shape if isinstance(inputs, ops.Tensor) else [i.shape for i in inputs])
                    self.built = True
                outputs = self.call(inputs, *args, **kwargs)
                if self.activity_regularizer is not None:
                    with ops.name_scope("ActivityRegularizer"):
                        self.add_loss(self.activity_regularizer(outputs))
        return outputs

    def apply(self, inputs, *args, **kwargs):
        return self.__call__(inputs, *args, **kwargs)


def _activate(activation, x):
    return activation(x) if activation is not None else x


class Dense(Layer):
    """outputs = activation(inputs @ kernel + bias)."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                 name=None, **kwargs):
        super(Dense, self).__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer,
                                    **kwargs)
        self.units = int(units)
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer if bias_initializer is not None else _zeros()
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint

    def build(self, input_shape):
        last = input_shape[-1].value if input_shape.ndims else None
        if last is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. Found `None`.")
        self.kernel = self.add_weight("kernel", shape=[last, self.units], initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.bias = self.add_weight("bias", shape=[self.units], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint) \
            if self.use_bias else None
        self.built = True

    def call(self, inputs):
        rank = inputs.shape.ndims
        if rank is not None and rank > 2:
            outputs = math_ops.tensordot(inputs, self.kernel, [[rank - 1], [0]])
        else:
            outputs = gen_ops.mat_mul(inputs, self.kernel)
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias)
        return _activate(self.activation, outputs)


class _Conv(Layer):
    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
                 dilation_rate=1, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                 name=None, **kwargs):
        super(_Conv, self).__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer,
                                    **kwargs)
        self.rank = rank
        self.filters = int(filters)
        self.kernel_size = _tuple(kernel_size, rank, "kernel_size")
        self.strides = _tuple(strides, rank, "strides")
        self.padding = _padding(padding)
        self.data_format = _data_format(data_format, rank)
        self.dilation_rate = _tuple(dilation_rate, rank, "dilation_rate")
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer if bias_initializer is not None else _zeros()
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint

    def build(self, input_shape):
        if input_shape.ndims is not None and input_shape.ndims != self.rank + 2:
            raise ValueError("Input 0 of layer %s is incompatible with the layer: expected ndim=%d, found ndim=%d. "
                             "Full shape received: %s" % (self.name, self.rank + 2, input_shape.ndims,
                                                          input_shape))
        cidx = 1 if self.data_format == "channels_first" else -1
        channels = input_shape[cidx].value if input_shape.ndims else None
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        self.kernel = self.add_weight("kernel", shape=list(self.kernel_size) + [channels, self.filters],
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self.add_weight("bias", shape=[self.filters], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint) \
            if self.use_bias else None
        self.built = True

    def call(self, inputs):
        first = self.data_format == "channels_first"
        if self.rank == 1:
            # A 1-D convolution is a 2-D one over a height of 1.
            x = array_ops.expand_dims(inputs, 2 if first else 1)
            k = array_ops.expand_dims(self.kernel, 0)
            out = nn_ops.conv2d(x, k, strides=[1] + list(self.strides), padding=self.padding,
                                data_format="NCHW" if first else "NHWC",
                                dilations=[1] + list(self.dilation_rate))
            outputs = array_ops.squeeze(out, [2 if first else 1])
        elif self.rank == 2:
            outputs = nn_ops.conv2d(inputs, self.kernel, strides=list(self.strides), padding=self.padding,
                                    data_format="NCHW" if first else "NHWC", dilations=list(self.dilation_rate))
        else:
            outputs = nn_ops.conv3d(inputs, self.kernel, strides=list(self.strides), padding=self.padding,
                                    data_format="NCDHW" if first else "NDHWC",
                                    dilations=list(self.dilation_rate))
        if self.use_bias:
            if first and self.rank != 2:
                shape = [1, self.filters] + [1] * self.rank
                outputs = outputs + array_ops.reshape(self.bias, shape)
            else:
                outputs = nn_ops.bias_add(outputs, self.bias, data_format="NCHW" if first else "NHWC")
        return _activate(self.activation, outputs)


class Conv1D(_Conv):
    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
                 dilation_rate=1, **kwargs):
        super(Conv1D, self).__init__(1, filters, kernel_size, strides, padding, data_format, dilation_rate, **kwargs)


class Conv2D(_Conv):
    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                 dilation_rate=(1, 1), **kwargs):
        super(Conv2D, self).__init__(2, filters, kernel_size, strides, padding, data_format, dilation_rate, **kwargs)


class Conv3D(_Conv):
    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format="channels_last",
                 dilation_rate=(1, 1, 1), **kwargs):
        super(Conv3D, self).__init__(3, filters, kernel_size, strides, padding, data_format, dilation_rate, **kwargs)


class _Pooling(Layer):
    def __init__(self, rank, kind, pool_size, strides, padding="valid", data_format="channels_last", name=None,
                 **kwargs):
        super(_Pooling, self).__init__(name=name, **kwargs)
        if strides is None:
            raise ValueError("strides must not be None")
        self.rank = rank
        self.kind = kind
        self.pool_size = _tuple(pool_size, rank, "pool_size")
        self.strides = _tuple(strides, rank, "strides")
        self.padding = _padding(padding)
        self.data_format = _data_format(data_format, rank)

    def call(self, inputs):
        first = self.data_format == "channels_first"
        if self.rank == 1:
            x = array_ops.expand_dims(inputs, 2 if first else 1)
            fn = nn_ops.max_pool if self.kind == "max" else nn_ops.avg_pool
            out = fn(x, [1] + list(self.pool_size), [1] + list(self.strides), self.padding,
                     data_format="NCHW" if first else "NHWC")
            return array_ops.squeeze(out, [2 if first else 1])
        if self.rank == 2:
            fn = nn_ops.max_pool if self.kind == "max" else nn_ops.avg_pool
            return fn(inputs, list(self.pool_size), list(self.strides), self.padding,
                      data_format="NCHW" if first else "NHWC")
        fn = nn_ops.max_pool3d if self.kind == "max" else nn_ops.avg_pool3d
        return fn(inputs, list(self.pool_size), list(self.strides), self.padding,
                  data_format="NCDHW" if first else "NDHWC")


def _pool_class(rank, kind, cls_name):
    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last", name=None, **kwargs):
        _Pooling.__init__(self, rank, kind, pool_size, strides, padding, data_format, name, **kwargs)
    return type(cls_name, (_Pooling,), {"__init__": __init__})


MaxPooling1D = _pool_class(1, "max", "MaxPooling1D")
MaxPooling2D = _pool_class(2, "max", "MaxPooling2D")
MaxPooling3D = _pool_class(3, "max", "MaxPooling3D")
AveragePooling1D = _pool_class(1, "avg", "AveragePooling1D")
AveragePooling2D = _pool_class(2, "avg", "AveragePooling2D")
AveragePooling3D = _pool_class(3, "avg", "AveragePooling3D")


def _select_training(training, true_value, false_value):
    """true_value if training else false_value; a bool tensor picks at run time."""
    if isinstance(training, (bool, np.bool_)) or training is None:
        return true_value if training else false_value
    if isinstance(training, (int, np.integer)):
        return true_value if training else false_value
    training = ops.convert_to_tensor(training, dtype=dtypes.bool)
    return array_ops.where_v2(training, true_value, false_value)


class Dropout(Layer):
    """Drops inputs with probability `rate` when training (identity otherwise)."""

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super(Dropout, self).__init__(name=name, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def call(self, inputs, training=False):
        if isinstance(training, (bool, np.bool_)) or training is None:
            if not training:
                return array_ops.identity(inputs)
            return nn_ops.dropout(inputs, noise_shape=self.noise_shape, seed=self.seed, rate=self.rate)
        dropped = nn_ops.dropout(inputs, noise_shape=self.noise_shape, seed=self.seed, rate=self.rate)
        return _select_training(training, dropped, array_ops.identity(inputs))


class Flatten(Layer):
    """[batch, ...] -> [batch, prod(...)]."""

    def __init__(self, data_format="channels_last", name=None, **kwargs):
        super(Flatten, self).__init__(name=name, **kwargs)
        self.data_format = _data_format(data_format, None)

    def call(self, inputs):
        if self.data_format == "channels_first" and inputs.shape.ndims is not None and inputs.shape.ndims > 2:
            nd = inputs.shape.ndims
            inputs = array_ops.transpose(inputs, [0] + list(range(2, nd)) + [1])
        s = inputs.shape
        if s.ndims is not None and s[1:].is_fully_defined():
            n = int(np.prod(s[1:].as_list())) if s.ndims > 1 else 1
            out = array_ops.reshape(inputs, [-1, n])
            out.set_shape([s[0].value, n])
            return out
        return array_ops.reshape(inputs, [array_ops.shape(inputs)[0], -1])


class BatchNormalization(Layer):
    """Normalizes by the batch's statistics when training (and updates the
    moving mean and variance, through UPDATE_OPS) or by the moving ones."""

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, beta_initializer=None,
                 gamma_initializer=None, moving_mean_initializer=None, moving_variance_initializer=None,
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 renorm=False, renorm_clipping=None, renorm_momentum=0.99, fused=None, trainable=True,
                 virtual_batch_size=None, adjustment=None, name=None, **kwargs):
        super(BatchNormalization, self).__init__(trainable=trainable, name=name, **kwargs)
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError("batch_normalization: renorm, virtual_batch_size and adjustment are not "
                                      "supported")
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer if beta_initializer is not None else _zeros()
        self.gamma_initializer = gamma_initializer if gamma_initializer is not None else _ones()
        self.moving_mean_initializer = moving_mean_initializer if moving_mean_initializer is not None else _zeros()
        self.moving_variance_initializer = moving_variance_initializer \
            if moving_variance_initializer is not None else _ones()
        self.beta_regularizer = beta_regularizer
        self.gamma_regularizer = gamma_regularizer
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.fused = fused

    def build(self, input_shape):
        nd = input_shape.ndims
        if nd is None:
            raise ValueError("Input has undefined rank: %s" % input_shape)
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        axes = [a + nd if a < 0 else a for a in axes]
        for a in axes:
            if a < 0 or a >= nd:
                raise ValueError("Invalid axis: %d" % a)
        if len(set(axes)) != len(axes):
            raise ValueError("Duplicate axis: %s" % axes)
        self._axes = axes
        dims = [input_shape[a].value for a in axes]
        if any(d is None for d in dims):
            raise ValueError("Input has undefined `axis` dimension. Input shape: %s" % input_shape)
        self._param_shape = dims if len(dims) > 1 else dims[:1]
        if len(axes) > 1:
            self._param_shape = [input_shape[i].value if i in axes else 1 for i in range(nd)]
        fusable = nd == 4 and len(axes) == 1 and axes[0] in (1, 3) and _has_op("FusedBatchNormV3")
        if self.fused is None:
            self.fused = fusable
        elif self.fused and not fusable:
            raise ValueError("Passing fused=True is only supported for 4D inputs normalized over axis 1 or 3 "
                             "(got shape %s, axis %s)" % (input_shape, self.axis))
        param_dtype = dtypes.float32 if self._dtype in (None, dtypes.float16, dtypes.bfloat16) else self._dtype
        self.gamma = self.add_weight("gamma", self._param_shape, param_dtype, self.gamma_initializer,
                                     self.gamma_regularizer, True, self.gamma_constraint) if self.scale else None
        self.beta = self.add_weight("beta", self._param_shape, param_dtype, self.beta_initializer,
                                    self.beta_regularizer, True, self.beta_constraint) if self.center else None
        self.moving_mean = self.add_weight("moving_mean", self._param_shape, param_dtype,
                                           self.moving_mean_initializer, trainable=False)
        self.moving_variance = self.add_weight("moving_variance", self._param_shape, param_dtype,
                                               self.moving_variance_initializer, trainable=False)
        self.built = True

    def _broadcast(self, v, nd):
        if v is None or len(self._axes) > 1 or self._axes[0] == nd - 1:
            return v
        shape = [1] * nd
        shape[self._axes[0]] = self._param_shape[0]
        return array_ops.reshape(v, shape)

    def _assign_moving_average(self, variable, value, decay):
        from flowvm.tf import state_ops
        with ops.name_scope(None, "AssignMovingAvg", [variable, value, decay]) as scope:
            delta = (variable - math_ops.cast(value, variable.dtype.base_dtype)) * decay
            return state_ops.assign_sub(variable, delta, name=scope)

    def call(self, inputs, training=False):
        nd = inputs.shape.ndims
        static = isinstance(training, (bool, np.bool_, int)) or training is None
        if self.fused:
            return self._fused_call(inputs, training, static)
        reduction = [i for i in range(nd) if i not in self._axes]
        gamma, beta = self._broadcast(self.gamma, nd), self._broadcast(self.beta, nd)
        mm, mv = self._broadcast(self.moving_mean.value(), nd), self._broadcast(self.moving_variance.value(), nd)
        if static and not training:
            return nn_ops.batch_normalization(inputs, mm, mv, beta, gamma, self.epsilon)
        keep = len(self._axes) > 1
        mean, variance = nn_ops.moments(math_ops.cast(inputs, self.moving_mean.dtype.base_dtype), reduction,
                                        keep_dims=keep)
        if static:
            use_mean, use_var = self._broadcast(mean, nd), self._broadcast(variance, nd)
            decay = 1.0 - self.momentum
        else:
            use_mean = _select_training(training, self._broadcast(mean, nd), mm)
            use_var = _select_training(training, self._broadcast(variance, nd), mv)
            decay = _select_training(training, ops.convert_to_tensor(1.0 - self.momentum, dtype=mean.dtype),
                                     ops.convert_to_tensor(0.0, dtype=mean.dtype))
        outputs = nn_ops.batch_normalization(inputs, math_ops.cast(use_mean, inputs.dtype.base_dtype),
                                             math_ops.cast(use_var, inputs.dtype.base_dtype), beta, gamma,
                                             self.epsilon)
        self.add_update(self._assign_moving_average(self.moving_mean, mean, decay))
        self.add_update(self._assign_moving_average(self.moving_variance, variance, decay))
        return outputs

    def _fused_call(self, inputs, training, static):
        fmt = "NHWC" if self._axes[0] == 3 else "NCHW"
        c = self._param_shape[0]
        gamma = self.gamma if self.gamma is not None else array_ops.ones([c], self.moving_mean.dtype.base_dtype)
        beta = self.beta if self.beta is not None else array_ops.zeros([c], self.moving_mean.dtype.base_dtype)

        def infer():
            return nn_ops.fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean.value(),
                                           variance=self.moving_variance.value(), epsilon=self.epsilon,
                                           data_format=fmt, is_training=False)[0]
        if static and not training:
            return infer()
        out, mean, variance = nn_ops.fused_batch_norm(inputs, gamma, beta, epsilon=self.epsilon, data_format=fmt,
                                                      is_training=True)
        if static:
            decay = 1.0 - self.momentum
        else:
            out = _select_training(training, out, infer())
            decay = _select_training(training, ops.convert_to_tensor(1.0 - self.momentum, dtype=mean.dtype),
                                     ops.convert_to_tensor(0.0, dtype=mean.dtype))
        self.add_update(self._assign_moving_average(self.moving_mean, mean, decay))
        self.add_update(self._assign_moving_average(self.moving_variance, variance, decay))
        return out


def _has_op(name):
    try:
        ops.get_op_def(name)
        return True
    except Exception:  # noqa: BLE001 - not registered
        return False


# ---- functional forms -------------------------------------------------------------
def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None, bias_initializer=None,
          kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
          bias_constraint=None, trainable=True, name=None, reuse=None):
    layer = Dense(units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, trainable=trainable,
                  name=name, _scope=name, _reuse=reuse)
    return layer.apply(inputs)


def _conv(cls, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
          kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer, activity_regularizer,
          kernel_constraint, bias_constraint, trainable, name, reuse):
    layer = cls(filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
                data_format=data_format, dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
                kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                bias_constraint=bias_constraint, trainable=trainable, name=name, _reuse=reuse, _scope=name)
    return layer.apply(inputs)


def conv1d(inputs, filters, kernel_size, strides=1, padding="valid", data_format="channels_last", dilation_rate=1,
           activation=None, use_bias=True, kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
           trainable=True, name=None, reuse=None):
    return _conv(Conv1D, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
                 use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                 activity_regularizer, kernel_constraint, bias_constraint, trainable, name, reuse)


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1), activation=None, use_bias=True, kernel_initializer=None, bias_initializer=None,
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    return _conv(Conv2D, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
                 use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                 activity_regularizer, kernel_constraint, bias_constraint, trainable, name, reuse)


def conv3d(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid", data_format="channels_last",
           dilation_rate=(1, 1, 1), activation=None, use_bias=True, kernel_initializer=None, bias_initializer=None,
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    return _conv(Conv3D, inputs, filters, kernel_size, strides, padding, data_format, dilation_rate, activation,
                 use_bias, kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                 activity_regularizer, kernel_constraint, bias_constraint, trainable, name, reuse)


def _pool_fn(cls):
    def fn(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
        return cls(pool_size=pool_size, strides=strides, padding=padding, data_format=data_format,
                   name=name).apply(inputs)
    return fn


max_pooling1d = _pool_fn(MaxPooling1D)
max_pooling2d = _pool_fn(MaxPooling2D)
max_pooling3d = _pool_fn(MaxPooling3D)
average_pooling1d = _pool_fn(AveragePooling1D)
average_pooling2d = _pool_fn(AveragePooling2D)
average_pooling3d = _pool_fn(AveragePooling3D)
for _fn, _n in ((max_pooling1d, "max_pooling1d"), (max_pooling2d, "max_pooling2d"),
                (max_pooling3d, "max_pooling3d"), (average_pooling1d, "average_pooling1d"),
                (average_pooling2d, "average_pooling2d"), (average_pooling3d, "average_pooling3d")):
    _fn.__name__ = _n


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Dropout when `training` (a Python bool or a bool tensor); identity otherwise."""
    return Dropout(rate, noise_shape=noise_shape, seed=seed, name=name).apply(inputs, training=training)


def flatten(inputs, name=None, data_format="channels_last"):
    return Flatten(name=name, data_format=data_format).apply(inputs)


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=None, gamma_initializer=None, moving_mean_initializer=None,
                        moving_variance_initializer=None, beta_regularizer=None, gamma_regularizer=None,
                        beta_constraint=None, gamma_constraint=None, training=False, trainable=True, name=None,
                        reuse=None, renorm=False, renorm_clipping=None, renorm_momentum=0.99, fused=None,
                        virtual_batch_size=None, adjustment=None):
    layer = BatchNormalization(axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                               beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                               moving_mean_initializer=moving_mean_initializer,
                               moving_variance_initializer=moving_variance_initializer,
                               beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
                               beta_constraint=beta_constraint, gamma_constraint=gamma_constraint, renorm=renorm,
                               renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum, fused=fused,
                               trainable=trainable, virtual_batch_size=virtual_batch_size, adjustment=adjustment,
                               name=name, _reuse=reuse, _scope=name)
    return layer.apply(inputs, training=training)
