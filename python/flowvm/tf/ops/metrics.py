"""tf.metrics: streaming metrics as (value, update_op) pairs over local
variables ("accuracy/total", "accuracy/count") in the LOCAL_VARIABLES and
METRIC_VARIABLES collections; run tf.local_variables_initializer() first."""
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import gen_ops
from flowvm.tf.ops import math_ops
from flowvm.tf.ops import state_ops
from flowvm.tf.ops import variable_scope
from flowvm.tf.ops import variables

__all__ = [
    "accuracy", "mean", "mean_squared_error", "mean_absolute_error", "root_mean_squared_error", "precision",
    "recall", "true_positives", "false_positives", "false_negatives", "true_negatives", "auc",
]

_t = ops.convert_to_tensor


def metric_variable(shape, dtype, validate_shape=True, name=None):
    """A zero-initialized local variable of the metric's scope."""
    return variables.Variable(lambda: array_ops.zeros(shape, dtype), trainable=False,
                              collections=[ops.GraphKeys.LOCAL_VARIABLES, ops.GraphKeys.METRIC_VARIABLES],
                              validate_shape=validate_shape, name=name)


def _add_to(collections, value):
    if collections:
        ops.add_to_collections(collections, value)


def _prepare(predictions, labels, weights):
    predictions = _t(predictions, name="predictions")
    labels = _t(labels, name="labels")
    if labels.shape.ndims is not None and predictions.shape.ndims is not None:
        # A trailing 1 on either side is squeezed away, as TensorFlow does.
        if labels.shape.ndims == predictions.shape.ndims + 1 and labels.shape.as_list()[-1] == 1:
            labels = array_ops.squeeze(labels, [-1])
        elif predictions.shape.ndims == labels.shape.ndims + 1 and predictions.shape.as_list()[-1] == 1:
            predictions = array_ops.squeeze(predictions, [-1])
        if not predictions.shape.is_compatible_with(labels.shape):
            raise ValueError("Shapes %s and %s are incompatible" % (predictions.shape, labels.shape))
    if weights is not None:
        weights = math_ops.cast(_t(weights, name="weights"), dtypes.float32)
    return predictions, labels, weights


def _weights_like(values, weights):
    """weights broadcast to the shape of values."""
    return weights * array_ops.ones_like(values)


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of all values seen: (mean, update_op)."""
    with variable_scope.variable_scope(name, "mean", (values, weights)):
        values = math_ops.cast(_t(values), dtypes.float32)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = math_ops.cast(array_ops.size(values), dtypes.float32)
        else:
            weights = _weights_like(values, math_ops.cast(_t(weights), dtypes.float32))
            values = math_ops.multiply(values, weights)
            num_values = math_ops.reduce_sum(weights)
        update_total = state_ops.assign_add(total, math_ops.reduce_sum(values))
        with ops.control_dependencies([values]):
            update_count = state_ops.assign_add(count, num_values)
        mean_t = math_ops.div_no_nan(total.value(), math_ops.maximum(count.value(), 0.0), name="value")
        update_op = math_ops.div_no_nan(update_total, math_ops.maximum(update_count, 0.0), name="update_op")
        _add_to(metrics_collections, mean_t)
        _add_to(updates_collections, update_op)
        return mean_t, update_op


def accuracy(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """How often predictions equal labels: (accuracy, update_op)."""
    predictions, labels, weights = _prepare(predictions, labels, weights)
    if labels.dtype.base_dtype != predictions.dtype.base_dtype:
        predictions = math_ops.cast(predictions, labels.dtype.base_dtype)
    is_correct = math_ops.cast(gen_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                        name=None):
    predictions, labels, weights = _prepare(predictions, labels, weights)
    predictions = math_ops.cast(predictions, dtypes.float32)
    err = math_ops.abs(predictions - math_ops.cast(labels, dtypes.float32))
    return mean(err, weights, metrics_collections, updates_collections, name or "mean_absolute_error")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                       name=None):
    predictions, labels, weights = _prepare(predictions, labels, weights)
    predictions = math_ops.cast(predictions, dtypes.float32)
    err = math_ops.squared_difference(predictions, math_ops.cast(labels, dtypes.float32))
    return mean(err, weights, metrics_collections, updates_collections, name or "mean_squared_error")


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                            name=None):
    mse, update_mse = mean_squared_error(labels, predictions, weights, None, None,
                                         name or "root_mean_squared_error")
    rmse = math_ops.sqrt(mse)
    update = math_ops.sqrt(update_mse)
    _add_to(metrics_collections, rmse)
    _add_to(updates_collections, update)
    return rmse, update


def _count(name, labels, predictions, weights, want_label, want_pred, metrics_collections, updates_collections):
    with variable_scope.variable_scope(name, name, (predictions, labels, weights)):
        predictions, labels, weights = _prepare(predictions, labels, weights)
        labels = math_ops.cast(labels, dtypes.bool)
        predictions = math_ops.cast(predictions, dtypes.bool)
        lab = labels if want_label else math_ops.logical_not(labels)
        pred = predictions if want_pred else math_ops.logical_not(predictions)
        hits = math_ops.cast(math_ops.logical_and(lab, pred), dtypes.float32)
        if weights is not None:
            hits = hits * weights
        var = metric_variable([], dtypes.float32, name="count")
        update = state_ops.assign_add(var, math_ops.reduce_sum(hits))
        value = array_ops.identity(var.value(), name="value") if hasattr(var, "value") else var
        _add_to(metrics_collections, value)
        _add_to(updates_collections, update)
        return value, update


def true_positives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                   name=None):
    return _count(name or "true_positives", labels, predictions, weights, True, True, metrics_collections,
                  updates_collections)


def false_positives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                    name=None):
    return _count(name or "false_positives", labels, predictions, weights, False, True, metrics_collections,
                  updates_collections)


def false_negatives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                    name=None):
    return _count(name or "false_negatives", labels, predictions, weights, True, False, metrics_collections,
                  updates_collections)


def true_negatives(labels, predictions, weights=None, metrics_collections=None, updates_collections=None,
                   name=None):
    return _count(name or "true_negatives", labels, predictions, weights, False, False, metrics_collections,
                  updates_collections)


def _ratio(name, labels, predictions, weights, other, metrics_collections, updates_collections):
    with variable_scope.variable_scope(name, name, (predictions, labels, weights)):
        tp, tp_update = true_positives(labels, predictions, weights)
        fx, fx_update = other(labels, predictions, weights)
        value = math_ops.div_no_nan(tp, tp + fx, name="value")
        update = math_ops.div_no_nan(tp_update, tp_update + fx_update, name="update_op")
        _add_to(metrics_collections, value)
        _add_to(updates_collections, update)
        return value, update


def precision(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """tp / (tp + fp) over all values seen."""
    return _ratio(name or "precision", labels, predictions, weights, false_positives, metrics_collections,
                  updates_collections)


def recall(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """tp / (tp + fn) over all values seen."""
    return _ratio(name or "recall", labels, predictions, weights, false_negatives, metrics_collections,
                  updates_collections)


def auc(*args, **kwargs):
    raise NotImplementedError("tf.metrics.auc is not supported by flowvm")
