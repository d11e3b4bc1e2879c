"""tf.train.RMSPropOptimizer (ApplyRMSProp): ms = decay ms + (1 - decay) g^2;
mom = momentum mom + lr g / sqrt(ms + epsilon); var -= mom. Slots "rms"
("w/RMSProp", starting at ones) and "momentum" ("w/RMSProp_1").

centered=True (ApplyCenteredRMSProp) also keeps the mean gradient
mg = decay mg + (1 - decay) g and divides by sqrt(ms - mg^2 + epsilon); its
slot "mg" is made between the two others, as TensorFlow does, so the slots
are "w/RMSProp" (rms), "w/RMSProp_1" (mg) and "w/RMSProp_2" (momentum)."""
from flowvm.tf.framework import ops
from flowvm.tf.ops import gen_ops
from flowvm.tf.ops import init_ops
from flowvm.tf.training.optimizer import Optimizer, _cast

__all__ = ["RMSPropOptimizer"]


class RMSPropOptimizer(Optimizer):
    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False, centered=False,
                 name="RMSProp"):
        super(RMSPropOptimizer, self).__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered

    def _create_slots(self, var_list):
        for v in var_list:
            dtype = v.dtype.base_dtype
            self._get_or_make_slot_with_initializer(v, init_ops.ones_initializer(dtype=dtype), v.get_shape(), dtype,
                                                    "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        c = self._call_if_callable
        self._learning_rate_tensor = ops.convert_to_tensor(c(self._learning_rate), name="learning_rate")
        self._decay_tensor = ops.convert_to_tensor(c(self._decay), name="decay")
        self._momentum_tensor = ops.convert_to_tensor(c(self._momentum), name="momentum")
        self._epsilon_tensor = ops.convert_to_tensor(c(self._epsilon), name="epsilon")

    def _apply_dense(self, grad, var):
        rms = self.get_slot(var, "rms")
        mom = self.get_slot(var, "momentum")
        dtype = var.dtype.base_dtype
        if self._centered:
            mg = self.get_slot(var, "mg")
            return gen_ops.apply_centered_rms_prop(var, mg, rms, mom, _cast(self._learning_rate_tensor, dtype),
                                                   _cast(self._decay_tensor, dtype),
                                                   _cast(self._momentum_tensor, dtype),
                                                   _cast(self._epsilon_tensor, dtype), grad,
                                                   use_locking=self._use_locking).op
        return gen_ops.apply_rms_prop(var, rms, mom, _cast(self._learning_rate_tensor, dtype),
                                      _cast(self._decay_tensor, dtype), _cast(self._momentum_tensor, dtype),
                                      _cast(self._epsilon_tensor, dtype), grad, use_locking=self._use_locking).op
