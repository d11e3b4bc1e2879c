"""tf.train.AdagradOptimizer (ApplyAdagrad): accum += grad^2;
var -= lr * grad / sqrt(accum). Slot "accumulator" ("w/Adagrad"), starting
at initial_accumulator_value."""
from flowvm.tf.framework import ops
from flowvm.tf.ops import gen_ops
from flowvm.tf.ops import init_ops
from flowvm.tf.training.optimizer import Optimizer, _cast

__all__ = ["AdagradOptimizer"]


class AdagradOptimizer(Optimizer):
    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)
        super(AdagradOptimizer, self).__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            dtype = v.dtype.base_dtype
            init = init_ops.constant_initializer(self._initial_accumulator_value, dtype=dtype)
            self._get_or_make_slot_with_initializer(v, init, v.get_shape(), dtype, "accumulator", self._name)

    def _prepare(self):
        self._learning_rate_tensor = ops.convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                           name="learning_rate")

    def _apply_dense(self, grad, var):
        acc = self.get_slot(var, "accumulator")
        return gen_ops.apply_adagrad(var, acc, _cast(self._learning_rate_tensor, var.dtype.base_dtype), grad,
                                     use_locking=self._use_locking).op
