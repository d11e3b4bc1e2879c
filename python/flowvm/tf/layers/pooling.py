"""tf.layers' pooling (TensorFlow's layers/pooling.py): max and average
pooling over 1, 2 and 3 dimensions, and their functional forms."""
from flowvm.tf.layers import base
from flowvm.tf.layers import utils
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import nn_ops

__all__ = ["MaxPooling1D", "MaxPooling2D", "MaxPooling3D", "AveragePooling1D", "AveragePooling2D",
           "AveragePooling3D", "max_pooling1d", "max_pooling2d", "max_pooling3d", "average_pooling1d",
           "average_pooling2d", "average_pooling3d"]


class _Pooling(base.Layer):
    def __init__(self, rank, kind, pool_size, strides, padding="valid", data_format="channels_last", name=None,
                 **kwargs):
        super(_Pooling, self).__init__(name=name, **kwargs)
        if strides is None:
            raise ValueError("strides must not be None")
        self.rank = rank
        self.kind = kind
        self.pool_size = utils.normalize_tuple(pool_size, rank, "pool_size")
        self.strides = utils.normalize_tuple(strides, rank, "strides")
        self.padding = utils.normalize_padding(padding)
        self.data_format = utils.normalize_data_format(data_format, rank)

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
