"""smart_cond (TensorFlow's framework/smart_cond.py): tf.cond when the
predicate is known only at run time, the branch itself when it is known
when the graph is built.

A predicate whose value is known now (a Python bool, 0 or 1, a Const, an
Identity of one) picks its branch at graph-build time, so only that
branch's nodes are made; any other bool tensor builds a tf.cond, whose
outputs have the branches' common static shape (Merge's shape function), so
`smart_cond(training, dropped, identity)` keeps its input's shape.
"""
import numpy as np

from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_util
from flowvm.tf.ops import control_flow_ops

__all__ = ["smart_cond", "smart_constant_value"]


def smart_cond(pred, true_fn=None, false_fn=None, name=None):
    """true_fn() if pred else false_fn(): at graph-build time when
    smart_constant_value(pred) knows the value, else through tf.cond."""
    if not callable(true_fn):
        raise TypeError("`true_fn` must be callable.")
    if not callable(false_fn):
        raise TypeError("`false_fn` must be callable.")
    pred_value = smart_constant_value(pred)
    if pred_value is not None:
        return true_fn() if pred_value else false_fn()
    return control_flow_ops.cond(pred, true_fn=true_fn, false_fn=false_fn, name=name)


def smart_constant_value(pred):
    """The bool value of `pred` if it is known when the graph is built, else
    None. `pred` is a Python bool, 0 or 1, or a bool Tensor; anything else
    is a TypeError (TensorFlow's message)."""
    if isinstance(pred, ops.Tensor):
        value = tensor_util.constant_value(pred)
        if value is None:
            return None
        return bool(np.asarray(value))
    if isinstance(pred, (bool, np.bool_)):
        return bool(pred)
    if isinstance(pred, (int, np.integer)) and pred in (0, 1):
        return bool(pred)
    raise TypeError("`pred` must be a Tensor, or a Python bool, or 1 or 0. Found instead: %s" % type(pred))
