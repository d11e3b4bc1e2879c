"""tf.losses: weighted, reduced losses added to the LOSSES collection
(TensorFlow 1.x's default reduction: the sum over the number of non-zero
weights), and the collection helpers get_losses / get_total_loss."""
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import gen_ops
from flowvm.tf.ops import math_ops
from flowvm.tf.ops import nn_ops

__all__ = [
    "Reduction", "compute_weighted_loss", "absolute_difference", "mean_squared_error", "log_loss", "hinge_loss",
    "huber_loss", "cosine_distance", "sigmoid_cross_entropy", "softmax_cross_entropy",
    "sparse_softmax_cross_entropy", "mean_pairwise_squared_error", "add_loss", "get_losses",
    "get_regularization_loss", "get_regularization_losses", "get_total_loss",
]


class Reduction(object):
    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_OVER_NONZERO_WEIGHTS,
                cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError("Invalid Reduction Key %s." % key)


_t = ops.convert_to_tensor


def _safe_mean(total, count):
    return math_ops.div_no_nan(total, count, name="value")


def _num_present(losses, weights):
    """The number of elements of `losses` whose (broadcast) weight is non-zero."""
    with ops.name_scope(None, "num_present", (losses, weights)) as scope:
        weights = math_ops.cast(weights, dtypes.float32)
        present = array_ops.where_v2(gen_ops.equal(weights, 0.0), array_ops.zeros_like(weights),
                                     array_ops.ones_like(weights))
        present = present * array_ops.ones_like(losses)
        return math_ops.reduce_sum(present, name=scope)


def _check_weights(losses, weights):
    ls, ws = losses.shape, weights.shape
    if ls.ndims is None or ws.ndims is None or ws.ndims == 0:
        return
    if ws.ndims > ls.ndims:
        raise ValueError("weights can not be broadcast to values. values.rank=%d. weights.rank=%d. "
                         "values.shape=%s. weights.shape=%s." % (ls.ndims, ws.ndims, ls, ws))
    for dw, dl in zip(ws.as_list()[::-1], ls.as_list()[::-1]):
        if dw is not None and dl is not None and dw != 1 and dw != dl:
            raise ValueError("weights can not be broadcast to values. values.shape=%s. weights.shape=%s."
                             % (ls, ws))


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """losses * weights, reduced by `reduction`, added to loss_collection."""
    Reduction.validate(reduction)
    with ops.name_scope(scope, "weighted_loss", (losses, weights)):
        losses = _t(losses)
        input_dtype = losses.dtype.base_dtype
        losses = math_ops.cast(losses, dtypes.float32)
        weights = math_ops.cast(_t(weights), dtypes.float32)
        _check_weights(losses, weights)
        weighted = math_ops.multiply(losses, weights)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            loss = math_ops.reduce_sum(weighted)
            if reduction == Reduction.MEAN:
                loss = _safe_mean(loss, math_ops.reduce_sum(array_ops.ones_like(losses) * weights))
            elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                loss = _safe_mean(loss, _num_present(losses, weights))
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                loss = _safe_mean(loss, math_ops.cast(array_ops.size(losses), dtypes.float32))
        loss = math_ops.cast(loss, input_dtype)
        add_loss(loss, loss_collection)
        return loss


def _pair(labels, predictions, dtype=None):
    predictions = math_ops.cast(_t(predictions, name="predictions"), dtype or dtypes.float32)
    labels = math_ops.cast(_t(labels, name="labels"), predictions.dtype.base_dtype)
    if not predictions.shape.is_compatible_with(labels.shape):
        raise ValueError("Shapes %s and %s are incompatible" % (predictions.shape, labels.shape))
    return labels, predictions


def _require(labels, predictions, what):
    if labels is None:
        raise ValueError("labels must not be None.")
    if predictions is None:
        raise ValueError("%s must not be None." % what)


def absolute_difference(labels, predictions, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _require(labels, predictions, "predictions")
    with ops.name_scope(scope, "absolute_difference", (predictions, labels, weights)) as scope:
        labels, predictions = _pair(labels, predictions)
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _require(labels, predictions, "predictions")
    with ops.name_scope(scope, "mean_squared_error", (predictions, labels, weights)) as scope:
        labels, predictions = _pair(labels, predictions)
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None, loss_collection=ops.GraphKeys.LOSSES,
             reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _require(labels, predictions, "predictions")
    with ops.name_scope(scope, "log_loss", (predictions, labels, weights)) as scope:
        labels, predictions = _pair(labels, predictions)
        losses = -labels * math_ops.log(predictions + epsilon) - (1 - labels) * math_ops.log(
            1 - predictions + epsilon)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _require(labels, logits, "logits")
    with ops.name_scope(scope, "hinge_loss", (logits, labels, weights)) as scope:
        labels, logits = _pair(labels, logits)
        all_ones = array_ops.ones_like(labels)
        labels = math_ops.subtract(2 * labels, all_ones)
        losses = nn_ops.relu(math_ops.subtract(all_ones, math_ops.multiply(labels, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _require(labels, predictions, "predictions")
    with ops.name_scope(scope, "huber_loss", (predictions, labels, weights)) as scope:
        labels, predictions = _pair(labels, predictions)
        abs_error = math_ops.abs(math_ops.subtract(predictions, labels))
        quadratic = math_ops.minimum(abs_error, delta)
        linear = math_ops.subtract(abs_error, quadratic)
        losses = math_ops.add(math_ops.multiply(0.5, math_ops.multiply(quadratic, quadratic)),
                              math_ops.multiply(delta, linear))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    _require(labels, predictions, "predictions")
    with ops.name_scope(scope, "cosine_distance_loss", (predictions, labels, weights)) as scope:
        labels, predictions = _pair(labels, predictions)
        radial_diffs = math_ops.multiply(predictions, labels)
        losses = 1 - math_ops.reduce_sum(radial_diffs, axis=[axis], keepdims=True)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=ops.GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _require(multi_class_labels, logits, "logits")
    with ops.name_scope(scope, "sigmoid_cross_entropy_loss", (logits, multi_class_labels, weights)) as scope:
        logits = _t(logits, name="logits")
        labels = math_ops.cast(_t(multi_class_labels), logits.dtype.base_dtype)
        if not logits.shape.is_compatible_with(labels.shape):
            raise ValueError("Shapes %s and %s are incompatible" % (logits.shape, labels.shape))
        if label_smoothing > 0:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=ops.GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Softmax cross entropy of logits [batch, classes] against one-hot (or
    probability) labels; label_smoothing moves labels toward 1 / classes."""
    _require(onehot_labels, logits, "logits")
    with ops.name_scope(scope, "softmax_cross_entropy_loss", (logits, onehot_labels, weights)) as scope:
        logits = _t(logits, name="logits")
        labels = math_ops.cast(_t(onehot_labels), logits.dtype.base_dtype)
        if not logits.shape.is_compatible_with(labels.shape):
            raise ValueError("Shapes %s and %s are incompatible" % (logits.shape, labels.shape))
        if label_smoothing > 0:
            num_classes = math_ops.cast(array_ops.shape(labels)[-1], logits.dtype.base_dtype)
            smooth_positives = 1.0 - label_smoothing
            smooth_negatives = label_smoothing / num_classes
            labels = labels * smooth_positives + smooth_negatives
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
        losses = nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def _remove_squeezable_dimensions(labels, predictions_rank):
    """Drops a trailing size-1 dimension of labels that makes it one rank too many."""
    lr = labels.shape.ndims
    if lr is not None and predictions_rank is not None and lr == predictions_rank + 1:
        last = labels.shape.as_list()[-1]
        if last == 1:
            return array_ops.squeeze(labels, [-1])
        if last is not None:
            raise ValueError("labels of shape %s do not fit logits of rank %d" % (labels.shape,
                                                                                  predictions_rank + 1))
    return labels


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    _require(labels, logits, "logits")
    with ops.name_scope(scope, "sparse_softmax_cross_entropy_loss", (logits, labels, weights)) as scope:
        logits = _t(logits, name="logits")
        labels = _t(labels, name="labels")
        if labels.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            labels = math_ops.cast(labels, dtypes.int64)
        lrank = logits.shape.ndims
        labels = _remove_squeezable_dimensions(labels, None if lrank is None else lrank - 1)
        weights = _t(weights)
        if weights.shape.ndims is not None and labels.shape.ndims is not None and \
                weights.shape.ndims == labels.shape.ndims + 1 and weights.shape.as_list()[-1] == 1:
            weights = array_ops.squeeze(weights, [-1])
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None,
                                loss_collection=ops.GraphKeys.LOSSES):
    raise NotImplementedError("tf.losses.mean_pairwise_squared_error is not supported by flowvm")


# ---- the collections --------------------------------------------------------------
def add_loss(loss, loss_collection=ops.GraphKeys.LOSSES):
    if loss_collection:
        ops.add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=ops.GraphKeys.LOSSES):
    return ops.get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    return ops.get_collection(ops.GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses (0.0 when there are none)."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return _t(0.0, name=name)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of the LOSSES collection (and of the regularization losses)."""
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    if not losses:
        raise ValueError("No losses found in the LOSSES%s collection%s" % (
            " or REGULARIZATION_LOSSES" if add_regularization_losses else "",
            "" if scope is None else " under scope %r" % scope))
    return math_ops.add_n(losses, name=name)
