"""tf.layers' convolutions (TensorFlow's layers/convolutional.py): Conv1D,
Conv2D, Conv3D and their functional forms."""
from flowvm.tf.layers import base
from flowvm.tf.layers import utils
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import init_ops
from flowvm.tf.ops import nn_ops

__all__ = ["Conv1D", "Conv2D", "Conv3D", "conv1d", "conv2d", "conv3d"]


class _Conv(base.Layer):
    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
                 dilation_rate=1, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
                 name=None, **kwargs):
        super(_Conv, self).__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer,
                                    **kwargs)
        self.rank = rank
        self.filters = int(filters)
        self.kernel_size = utils.normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = utils.normalize_tuple(strides, rank, "strides")
        self.padding = utils.normalize_padding(padding)
        self.data_format = utils.normalize_data_format(data_format, rank)
        self.dilation_rate = utils.normalize_tuple(dilation_rate, rank, "dilation_rate")
        self.activation = activation
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer if bias_initializer is not None else init_ops.zeros_initializer()
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
        return self.activation(outputs) if self.activation is not None else outputs


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
