"""tf.train.GradientDescentOptimizer: var -= learning_rate * grad (ApplyGradientDescent)."""
from flowvm.tf.framework import ops
from flowvm.tf.ops import gen_ops
from flowvm.tf.training.optimizer import Optimizer, _cast

__all__ = ["GradientDescentOptimizer"]


class GradientDescentOptimizer(Optimizer):
    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super(GradientDescentOptimizer, self).__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _prepare(self):
        lr = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = ops.convert_to_tensor(lr, name="learning_rate")

    def _apply_dense(self, grad, var):
        return gen_ops.apply_gradient_descent(var, _cast(self._learning_rate_tensor, var.dtype.base_dtype), grad,
                                              use_locking=self._use_locking).op
