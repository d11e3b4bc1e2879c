"""tf.train.Optimizer: the base of the 1.x optimizers.

minimize = compute_gradients (tf.gradients of the loss with respect to each
variable's ref) + apply_gradients (one Apply* op per variable, under
"<name>/update_<var>", then the optimizer's finishing op, then the global
step's increment). Slots are per-variable state ("w/Adam", "w/Adam_1") made
with get_variable in a scope named after the variable; non-slot state
(Adam's beta1_power) is one variable per graph, next to the first variable.
UPDATE_OPS are not added as dependencies (TensorFlow 1.x does not either).
"""
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.ops import gen_ops
from flowvm.tf.ops import gradients_impl
from flowvm.tf.ops import init_ops
from flowvm.tf.ops import state_ops
from flowvm.tf.ops import variable_scope
from flowvm.tf.ops import variables

__all__ = ["Optimizer"]


def _var_key(var):
    return (var.op.graph, var.op.name)


def _cast(t, dtype):
    t = ops.convert_to_tensor(t)
    if t.dtype.base_dtype == dtype:
        return t
    return gen_ops.cast(t, dtype)


def create_slot_with_initializer(primary, initializer, shape, dtype, name, colocate_with_primary=True):
    """A non-trainable global variable "<primary>/<name>" next to `primary`."""
    prefix = primary.op.name
    with variable_scope.variable_scope(None, prefix + "/" + name):
        scope = variable_scope.get_variable_scope()
        partitioner = scope.partitioner
        scope.set_partitioner(None)
        try:
            with ops.colocate_with(primary.op if colocate_with_primary else None):
                return variable_scope.get_variable("", shape=shape, dtype=dtype, initializer=initializer,
                                                   trainable=False,
                                                   validate_shape=shape.is_fully_defined())
        finally:
            scope.set_partitioner(partitioner)


def create_zeros_slot(primary, name, dtype=None, colocate_with_primary=True):
    if dtype is None:
        dtype = primary.dtype.base_dtype
    shape = primary.get_shape()
    if not shape.is_fully_defined():
        raise NotImplementedError("optimizer slots of variable %s: its shape %s is not fully defined"
                                  % (primary.op.name, shape))
    return create_slot_with_initializer(primary, init_ops.zeros_initializer(), shape, dtype, name,
                                        colocate_with_primary)


class Optimizer(object):
    """Base class: subclasses define _create_slots, _prepare, _apply_dense
    and optionally _finish."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots = {}
        self._non_slot_dict = {}

    def get_name(self):
        return self._name

    # -- the public steps
    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None):
        grads_and_vars = self.compute_gradients(loss, var_list=var_list, gate_gradients=gate_gradients,
                                                aggregation_method=aggregation_method,
                                                colocate_gradients_with_ops=colocate_gradients_with_ops,
                                                grad_loss=grad_loss)
        if not [v for g, v in grads_and_vars if g is not None]:
            raise ValueError("No gradients provided for any variable, check your graph for ops that do not "
                             "support gradients, between variables %s and loss %s."
                             % ([str(v) for _, v in grads_and_vars], loss))
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None):
        """[(gradient, variable)] for each variable, the gradient None where
        the loss does not depend on the variable."""
        if callable(loss):
            raise NotImplementedError("compute_gradients: a callable loss is for eager execution, which flowvm "
                                      "does not have; pass the loss tensor")
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                             "Optimizer.GATE_GRAPH.  Not %s" % gate_gradients)
        loss = ops.convert_to_tensor(loss)
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            self._assert_valid_dtypes([ops.convert_to_tensor(grad_loss)])
        if var_list is None:
            var_list = (variables.trainable_variables() +
                        ops.get_collection(ops.GraphKeys.TRAINABLE_RESOURCE_VARIABLES))
        else:
            var_list = list(var_list)
        for v in var_list:
            if not isinstance(v, variables.Variable):
                raise TypeError("Argument is not a tf.Variable: %s" % v)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients_impl.gradients(loss, [v._ref() for v in var_list],
                                         grad_ys=None if grad_loss is None else [grad_loss],
                                         gate_gradients=(gate_gradients == Optimizer.GATE_OP),
                                         aggregation_method=aggregation_method,
                                         colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gate_gradients == Optimizer.GATE_GRAPH:
            grads = self._gate_all(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes([v for g, v in grads_and_vars if g is not None])
        return grads_and_vars

    @staticmethod
    def _gate_all(grads):
        # Every gradient waits for all of them (TensorFlow's tuple()).
        present = [g for g in grads if g is not None]
        if not present:
            return grads
        with ops.name_scope("tuple"):
            gate = state_ops.group(present, name="control_dependency")
            out = []
            with ops.control_dependencies([gate]):
                for g in grads:
                    out.append(None if g is None else gen_ops.identity(g))
            return out

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The op that applies each (gradient, variable), then increments
        global_step when given."""
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = []
        for g, v in grads_and_vars:
            if g is not None:
                try:
                    g = ops.convert_to_tensor(g)
                except TypeError:
                    raise TypeError("Gradient must be convertible to a Tensor or IndexedSlices, or None: %s" % g)
            if not isinstance(v, variables.Variable):
                raise NotImplementedError("Trying to update a Tensor %s" % v)
            converted.append((g, v))
        var_list = [v for g, v in converted if g is not None]
        if not var_list:
            raise ValueError("No gradients provided for any variable: %s." % ([str(v) for _, v in converted],))
        with ops.control_dependencies(None):
            self._create_slots(var_list)
        update_ops = []
        with ops.name_scope(name, self._name) as name:
            self._prepare()
            for grad, var in converted:
                if grad is None:
                    continue
                with ops.name_scope("update_" + var.op.name), ops.colocate_with(var.op):
                    update_ops.append(self._apply_dense(grad, var))
            if global_step is None:
                apply_updates = self._finish(update_ops, name)
            else:
                with ops.control_dependencies([self._finish(update_ops, "update")]):
                    with ops.colocate_with(global_step.op if hasattr(global_step, "op") else global_step):
                        apply_updates = state_ops.assign_add(global_step, 1, name=name)
            if isinstance(apply_updates, ops.Tensor):
                apply_updates = apply_updates.op
            train_ops = ops.get_collection_ref(ops.GraphKeys.TRAIN_OP)
            if apply_updates not in train_ops:
                train_ops.append(apply_updates)
            return apply_updates

    # -- slots
    def get_slot(self, var, name):
        named = self._slots.get(name)
        if not named:
            return None
        return named.get(_var_key(var))

    def get_slot_names(self):
        return sorted(self._slots.keys())

    def variables(self):
        """The optimizer's own variables (slots, accumulators) in the default graph, by name."""
        g = ops.get_default_graph()
        out = [v for (_, vg), v in self._non_slot_dict.items() if vg is g]
        for named in self._slots.values():
            out.extend(v for v in named.values() if v.op.graph is g)
        return sorted(out, key=lambda v: v.name)

    def _slot_dict(self, slot_name):
        return self._slots.setdefault(slot_name, {})

    def _zeros_slot(self, var, slot_name, op_name):
        named = self._slot_dict(slot_name)
        if _var_key(var) not in named:
            named[_var_key(var)] = create_zeros_slot(var, op_name)
        return named[_var_key(var)]

    def _get_or_make_slot_with_initializer(self, var, initializer, shape, dtype, slot_name, op_name):
        named = self._slot_dict(slot_name)
        if _var_key(var) not in named:
            named[_var_key(var)] = create_slot_with_initializer(var, initializer, shape, dtype, op_name)
        return named[_var_key(var)]

    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        key = (name, colocate_with.graph)
        v = self._non_slot_dict.get(key)
        if v is None:
            with ops.colocate_with(colocate_with.op):
                v = variables.Variable(initial_value, name=name, trainable=False)
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name, graph=None):
        return self._non_slot_dict.get((name, graph or ops.get_default_graph()))

    # -- what subclasses define
    def _create_slots(self, var_list):
        pass

    def _prepare(self):
        pass

    def _apply_dense(self, grad, var):
        raise NotImplementedError()

    def _apply_sparse(self, grad, var):
        raise NotImplementedError("sparse gradients (IndexedSlices) are not supported by flowvm's optimizers")

    def _finish(self, update_ops, name_scope):
        return state_ops.group(update_ops, name=name_scope)

    # -- helpers
    @staticmethod
    def _call_if_callable(param):
        return param() if callable(param) else param

    def _valid_dtypes(self):
        return {dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64}

    def _assert_valid_dtypes(self, tensors):
        valid = self._valid_dtypes()
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in valid:
                raise ValueError("Invalid type %r for %s, expected: %s."
                                 % (dtype, t.name, [v for v in valid]))
