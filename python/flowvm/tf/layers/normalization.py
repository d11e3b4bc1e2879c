"""tf.layers.BatchNormalization (TensorFlow's layers/normalization.py).

It normalizes by the batch's statistics when training and by the moving
mean and variance otherwise; the moving averages' updates go to the
UPDATE_OPS collection."""
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.layers import base
from flowvm.tf.layers import utils
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import init_ops
from flowvm.tf.ops import math_ops
from flowvm.tf.ops import nn_ops
from flowvm.tf.ops import state_ops

__all__ = ["BatchNormalization", "batch_normalization"]


class BatchNormalization(base.Layer):
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
        self.beta_initializer = beta_initializer if beta_initializer is not None else init_ops.zeros_initializer()
        self.gamma_initializer = gamma_initializer if gamma_initializer is not None else init_ops.ones_initializer()
        self.moving_mean_initializer = moving_mean_initializer if moving_mean_initializer is not None else init_ops.zeros_initializer()
        self.moving_variance_initializer = moving_variance_initializer \
            if moving_variance_initializer is not None else init_ops.ones_initializer()
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
        with ops.name_scope(None, "AssignMovingAvg", [variable, value, decay]) as scope:
            delta = (variable - math_ops.cast(value, variable.dtype.base_dtype)) * decay
            return state_ops.assign_sub(variable, delta, name=scope)

    def call(self, inputs, training=False):
        nd = inputs.shape.ndims
        training_value = utils.constant_value(training)  # None: a tensor decides at run time
        if self.fused:
            return self._fused_call(inputs, training, training_value)
        reduction = [i for i in range(nd) if i not in self._axes]
        gamma, beta = self._broadcast(self.gamma, nd), self._broadcast(self.beta, nd)
        mm, mv = self._broadcast(self.moving_mean.value(), nd), self._broadcast(self.moving_variance.value(), nd)
        if training_value is False:
            return nn_ops.batch_normalization(inputs, mm, mv, beta, gamma, self.epsilon)
        keep = len(self._axes) > 1
        mean, variance = nn_ops.moments(math_ops.cast(inputs, self.moving_mean.dtype.base_dtype), reduction,
                                        keep_dims=keep)
        batch_mean, batch_var = self._broadcast(mean, nd), self._broadcast(variance, nd)
        use_mean = utils.smart_cond(training, lambda: batch_mean, lambda: mm)
        use_var = utils.smart_cond(training, lambda: batch_var, lambda: mv)
        decay = self._decay(training, training_value, mean.dtype)
        outputs = nn_ops.batch_normalization(inputs, math_ops.cast(use_mean, inputs.dtype.base_dtype),
                                             math_ops.cast(use_var, inputs.dtype.base_dtype), beta, gamma,
                                             self.epsilon)
        self.add_update(self._assign_moving_average(self.moving_mean, mean, decay))
        self.add_update(self._assign_moving_average(self.moving_variance, variance, decay))
        return outputs

    def _decay(self, training, training_value, dtype):
        """How far the moving averages move: 1 - momentum when training, 0
        (no change) when not."""
        if training_value is not None:
            return 1.0 - self.momentum if training_value else 0.0
        return utils.smart_cond(training, lambda: ops.convert_to_tensor(1.0 - self.momentum, dtype=dtype),
                                lambda: ops.convert_to_tensor(0.0, dtype=dtype))

    def _fused_call(self, inputs, training, training_value):
        fmt = "NHWC" if self._axes[0] == 3 else "NCHW"
        c = self._param_shape[0]
        gamma = self.gamma if self.gamma is not None else array_ops.ones([c], self.moving_mean.dtype.base_dtype)
        beta = self.beta if self.beta is not None else array_ops.zeros([c], self.moving_mean.dtype.base_dtype)

        def infer():
            return nn_ops.fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean.value(),
                                           variance=self.moving_variance.value(), epsilon=self.epsilon,
                                           data_format=fmt, is_training=False)[0]
        if training_value is False:
            return infer()
        out, mean, variance = nn_ops.fused_batch_norm(inputs, gamma, beta, epsilon=self.epsilon, data_format=fmt,
                                                      is_training=True)
        out = utils.smart_cond(training, lambda: out, infer)
        decay = self._decay(training, training_value, mean.dtype)
        self.add_update(self._assign_moving_average(self.moving_mean, mean, decay))
        self.add_update(self._assign_moving_average(self.moving_variance, variance, decay))
        return out


def _has_op(name):
    try:
        ops.get_op_def(name)
        return True
    except Exception:  # noqa: BLE001 - not registered
        return False


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
