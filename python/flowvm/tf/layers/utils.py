"""What the layers share (TensorFlow's layers/utils.py): argument checks,
and the choice between a training and an inference value (smart_cond)."""
from flowvm.tf.framework import smart_cond as smart_module
from flowvm.tf.ops import control_flow_ops
from flowvm.tf.ops import variables


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


def constant_value(pred):
    """tf.layers' `training` as a Python bool when it is known while the graph
    is built (None is False, the layers' default), or None when a bool tensor
    (or a variable) decides at run time (TensorFlow's utils.constant_value)."""
    if pred is None:
        return False
    if isinstance(pred, variables.Variable):
        return None
    return smart_module.smart_constant_value(pred)


def smart_cond(pred, true_fn=None, false_fn=None, name=None):
    """true_fn() if pred else false_fn(): picked now when `pred` is known
    (constant_value), else a tf.cond, whose outputs keep the branches' common
    static shape (TensorFlow's utils.smart_cond)."""
    if pred is None:
        return false_fn()
    if isinstance(pred, variables.Variable):
        return control_flow_ops.cond(pred, true_fn=true_fn, false_fn=false_fn, name=name)
    return smart_module.smart_cond(pred, true_fn=true_fn, false_fn=false_fn, name=name)
