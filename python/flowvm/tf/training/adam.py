"""tf.train.AdamOptimizer (ApplyAdam): with t the step,
lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t), m = beta1 m + (1 - beta1) g,
v = beta2 v + (1 - beta2) g^2, var -= lr_t m / (sqrt(v) + epsilon).
Slots "m" ("w/Adam") and "v" ("w/Adam_1"); beta1_power and beta2_power are
per-graph variables next to the first variable (by name), multiplied by
beta1 / beta2 after each step's updates."""
from flowvm.tf.framework import ops
from flowvm.tf.ops import gen_ops
from flowvm.tf.ops import state_ops
from flowvm.tf.training.optimizer import Optimizer, _cast

__all__ = ["AdamOptimizer"]


class AdamOptimizer(Optimizer):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False, name="Adam"):
        super(AdamOptimizer, self).__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon

    def _get_beta_accumulators(self):
        g = ops.get_default_graph()
        return self._get_non_slot_variable("beta1_power", g), self._get_non_slot_variable("beta2_power", g)

    def _create_slots(self, var_list):
        first = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(self._call_if_callable(self._beta1), "beta1_power", first)
        self._create_non_slot_variable(self._call_if_callable(self._beta2), "beta2_power", first)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name + "_1")

    def _prepare(self):
        self._lr_t = ops.convert_to_tensor(self._call_if_callable(self._lr), name="learning_rate")
        self._beta1_t = ops.convert_to_tensor(self._call_if_callable(self._beta1), name="beta1")
        self._beta2_t = ops.convert_to_tensor(self._call_if_callable(self._beta2), name="beta2")
        self._epsilon_t = ops.convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _apply_dense(self, grad, var):
        m = self.get_slot(var, "m")
        v = self.get_slot(var, "v")
        beta1_power, beta2_power = self._get_beta_accumulators()
        dtype = var.dtype.base_dtype
        return gen_ops.apply_adam(var, m, v, _cast(beta1_power, dtype), _cast(beta2_power, dtype),
                                  _cast(self._lr_t, dtype), _cast(self._beta1_t, dtype), _cast(self._beta2_t, dtype),
                                  _cast(self._epsilon_t, dtype), grad, use_locking=self._use_locking).op

    def _finish(self, update_ops, name_scope):
        with ops.control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            with ops.colocate_with(beta1_power.op):
                update_beta1 = beta1_power.assign(gen_ops.mul(beta1_power, _cast(self._beta1_t,
                                                                                  beta1_power.dtype.base_dtype)),
                                                  use_locking=self._use_locking)
                update_beta2 = beta2_power.assign(gen_ops.mul(beta2_power, _cast(self._beta2_t,
                                                                                  beta2_power.dtype.base_dtype)),
                                                  use_locking=self._use_locking)
        return state_ops.group(list(update_ops) + [update_beta1, update_beta2], name=name_scope)
