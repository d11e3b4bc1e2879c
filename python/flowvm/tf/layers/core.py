"""tf.layers' core layers (TensorFlow's layers/core.py): Dense, Dropout,
Flatten and their functional forms."""
import numpy as np

from flowvm.tf.layers import base
from flowvm.tf.layers import utils
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import gen_ops
from flowvm.tf.ops import init_ops
from flowvm.tf.ops import math_ops
from flowvm.tf.ops import nn_ops

__all__ = ["Dense", "Dropout", "Flatten", "dense", "dropout", "flatten"]


class Dense(base.Layer):
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
        self.bias_initializer = bias_initializer if bias_initializer is not None else init_ops.zeros_initializer()
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
        return self.activation(outputs) if self.activation is not None else outputs


class Dropout(base.Layer):
    """Drops inputs with probability `rate` when training (identity otherwise)."""

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super(Dropout, self).__init__(name=name, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def call(self, inputs, training=False):
        def dropped():
            return nn_ops.dropout(inputs, noise_shape=self.noise_shape, seed=self.seed, rate=self.rate)
        return utils.smart_cond(training, dropped, lambda: array_ops.identity(inputs))


class Flatten(base.Layer):
    """[batch, ...] -> [batch, prod(...)]."""

    def __init__(self, data_format="channels_last", name=None, **kwargs):
        super(Flatten, self).__init__(name=name, **kwargs)
        self.data_format = utils.normalize_data_format(data_format, None)

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


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None, bias_initializer=None,
          kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
          bias_constraint=None, trainable=True, name=None, reuse=None):
    layer = Dense(units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, trainable=trainable,
                  name=name, _scope=name, _reuse=reuse)
    return layer.apply(inputs)


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Dropout when `training` (a Python bool or a bool tensor); identity otherwise."""
    return Dropout(rate, noise_shape=noise_shape, seed=seed, name=name).apply(inputs, training=training)


def flatten(inputs, name=None, data_format="channels_last"):
    return Flatten(name=name, data_format=data_format).apply(inputs)
