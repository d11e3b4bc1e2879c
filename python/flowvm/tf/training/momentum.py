"""tf.train.MomentumOptimizer (ApplyMomentum):
accum = momentum * accum + grad; var -= lr * accum, or with Nesterov
var -= lr * grad + lr * momentum * accum. Slot "momentum" ("w/Momentum")."""
from flowvm.tf.framework import ops
from flowvm.tf.ops import gen_ops
from flowvm.tf.training.optimizer import Optimizer, _cast

__all__ = ["MomentumOptimizer"]


class MomentumOptimizer(Optimizer):
    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super(MomentumOptimizer, self).__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._learning_rate_tensor = ops.convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                           name="learning_rate")
        self._momentum_tensor = ops.convert_to_tensor(self._call_if_callable(self._momentum), name="momentum")

    def _apply_dense(self, grad, var):
        mom = self.get_slot(var, "momentum")
        dtype = var.dtype.base_dtype
        return gen_ops.apply_momentum(var, mom, _cast(self._learning_rate_tensor, dtype), grad,
                                      _cast(self._momentum_tensor, dtype), use_locking=self._use_locking,
                                      use_nesterov=self._use_nesterov).op
