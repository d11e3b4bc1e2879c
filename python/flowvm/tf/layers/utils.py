"""What the layers share (TensorFlow's layers/utils.py): argument checks,
and the choice between a training and an inference value."""
import numpy as np

from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.ops import array_ops


def normalize_tuple(value, n, name):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError("The `%s` argument must be a tuple of %d integers. Received: %s" % (name, n, value))
    return value


def normalize_padding(padding):
    p = padding.lower() if isinstance(padding, str) else padding
    if p not in ("valid", "same"):
        raise ValueError("The `padding` argument must be one of \"valid\", \"same\". Received: %s" % (padding,))
    return p.upper()


def normalize_data_format(data_format, rank=None):
    df = (data_format or "channels_last").lower()
    if df not in ("channels_last", "channels_first"):
        raise ValueError("The `data_format` argument must be one of \"channels_first\", \"channels_last\". "
                         "Received: %s" % (data_format,))
    return df


def select_training(training, true_value, false_value):
    """true_value if training else false_value; a bool tensor picks at run time."""
    if isinstance(training, (bool, np.bool_)) or training is None:
        return true_value if training else false_value
    if isinstance(training, (int, np.integer)):
        return true_value if training else false_value
    training = ops.convert_to_tensor(training, dtype=dtypes.bool)
    return array_ops.where_v2(training, true_value, false_value)
