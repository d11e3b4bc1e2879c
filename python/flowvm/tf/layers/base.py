"""tf.layers.Layer (TensorFlow's layers/base.py): the base of the layer classes.

A layer owns a variable scope, chosen on its first call as TensorFlow's
legacy layers do: its `name`, or a unique "dense", "dense_1", ... under the
current scope; its variables are made there by get_variable ("dense/kernel")
and found again on later calls."""
import re

from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.ops import variable_scope as vs


def _snake(name):
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


class Layer(object):
    """The base of tf.layers' classes: a scope, weights, updates and losses."""

    def __init__(self, trainable=True, name=None, dtype=None, _scope=None, _reuse=None, **kwargs):
        for k in kwargs:
            if k not in ("input_shape", "batch_input_shape", "_keras_style", "activity_regularizer"):
                raise TypeError("Keyword argument not understood: %s" % k)
        self.trainable = trainable
        self._dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
        self._reuse = _reuse
        self._base_name = name or _snake(type(self).__name__)
        self._name = name
        self.built = False
        self._trainable_weights = []
        self._non_trainable_weights = []
        self._updates = []
        self._losses = []
        self._scope = None
        self.activity_regularizer = kwargs.get("activity_regularizer")
        scope = _scope
        if scope:
            with vs.variable_scope(scope) as captured:
                self._scope = captured
            self._name = self._scope.name.split("/")[-1] if self._name is None else self._name

    # -- properties
    @property
    def name(self):
        return self._name if self._name is not None else self._base_name

    @property
    def dtype(self):
        return self._dtype

    @property
    def scope_name(self):
        if self._scope is None:
            raise ValueError("No name available for layer scope because the layer \"%s\" has not been used yet."
                             % self.name)
        return self._scope.name

    @property
    def trainable_weights(self):
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self):
        if self.trainable:
            return list(self._non_trainable_weights)
        return list(self._trainable_weights) + list(self._non_trainable_weights)

    @property
    def weights(self):
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def updates(self):
        return list(self._updates)

    @property
    def losses(self):
        return list(self._losses)

    def get_updates_for(self, inputs):
        return list(self._updates)

    def get_losses_for(self, inputs):
        return list(self._losses)

    def add_update(self, updates, inputs=None):
        if not isinstance(updates, (list, tuple)):
            updates = [updates]
        for u in updates:
            self._updates.append(u)
            ops.add_to_collection(ops.GraphKeys.UPDATE_OPS, u)

    def add_loss(self, losses, inputs=None):
        if not isinstance(losses, (list, tuple)):
            losses = [losses]
        for loss in losses:
            if loss is None:
                continue
            self._losses.append(loss)
            ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, loss)

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None, trainable=True,
                   constraint=None, **kwargs):
        """A variable of this layer's scope, by get_variable (found again when reused)."""
        dtype = dtypes.as_dtype(dtype or self._dtype or dtypes.float32).base_dtype
        existing = {v.name for v in self._trainable_weights + self._non_trainable_weights}
        trainable = trainable and self.trainable
        v = vs.get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                               trainable=trainable, constraint=constraint)
        if v.name not in existing:
            (self._trainable_weights if trainable else self._non_trainable_weights).append(v)
        return v

    # -- calling
    def build(self, input_shape):
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def _set_scope(self, scope=None):
        if self._scope is None:
            if self._reuse:
                with vs.variable_scope(scope if scope is not None else self._base_name) as captured:
                    self._scope = captured
            else:
                with vs.variable_scope(scope, default_name=self._base_name) as captured:
                    self._scope = captured
            if self._name is None:
                self._name = self._scope.name.split("/")[-1]

    def __call__(self, inputs, *args, **kwargs):
        scope = kwargs.pop("scope", None)
        self._set_scope(scope)
        reuse = True if self.built else self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as current:
            self._current_scope = current
            with ops.name_scope(current.original_name_scope or None):
                if not isinstance(inputs, (list, tuple)):
                    inputs = ops.convert_to_tensor(inputs)
                    if self._dtype is None and inputs.dtype.base_dtype.is_floating:
                        self._dtype = inputs.dtype.base_dtype
                if not self.built:
                    self.build(inputs.shape if isinstance(inputs, ops.Tensor) else [i.shape for i in inputs])
                    self.built = True
                outputs = self.call(inputs, *args, **kwargs)
                if self.activity_regularizer is not None:
                    with ops.name_scope("ActivityRegularizer"):
                        self.add_loss(self.activity_regularizer(outputs))
        return outputs

    def apply(self, inputs, *args, **kwargs):
        return self.__call__(inputs, *args, **kwargs)
