"""tf.layers' namespace (TensorFlow's layers/layers.py): the layer classes
and their functional forms."""
from flowvm.tf.layers.base import Layer
from flowvm.tf.layers.convolutional import Conv1D, Conv2D, Conv3D, conv1d, conv2d, conv3d
from flowvm.tf.layers.core import Dense, Dropout, Flatten, dense, dropout, flatten
from flowvm.tf.layers.normalization import BatchNormalization, batch_normalization
from flowvm.tf.layers.pooling import (AveragePooling1D, AveragePooling2D, AveragePooling3D, MaxPooling1D,
                                      MaxPooling2D, MaxPooling3D, average_pooling1d, average_pooling2d,
                                      average_pooling3d, max_pooling1d, max_pooling2d, max_pooling3d)

__all__ = [
    "Layer", "Dense", "Conv1D", "Conv2D", "Conv3D", "MaxPooling1D", "MaxPooling2D", "MaxPooling3D",
    "AveragePooling1D", "AveragePooling2D", "AveragePooling3D", "Dropout", "Flatten", "BatchNormalization",
    "dense", "conv1d", "conv2d", "conv3d", "max_pooling1d", "max_pooling2d", "max_pooling3d", "average_pooling1d",
    "average_pooling2d", "average_pooling3d", "dropout", "flatten", "batch_normalization",
]
