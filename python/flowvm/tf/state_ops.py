"""Ops on reference variables (tf.assign, tf.assign_add, tf.assign_sub,
tf.is_variable_initialized), and the small grouping helper the variable
and training modules share."""
from flowvm.tf import gen_ops
from flowvm.tf import ops

__all__ = ["assign", "assign_add", "assign_sub", "is_variable_initialized", "scatter_update", "count_up_to"]


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """ref = value; returns ref after the assignment (a ref tensor)."""
    if validate_shape is None:
        validate_shape = True
    if use_locking is None:
        use_locking = True  # the Assign op's default
    return gen_ops.assign(ref, value, validate_shape=validate_shape, use_locking=use_locking, name=name or "Assign")


def assign_add(ref, value, use_locking=None, name=None):
    return gen_ops.assign_add(ref, value, use_locking=bool(use_locking), name=name or "AssignAdd")


def assign_sub(ref, value, use_locking=None, name=None):
    return gen_ops.assign_sub(ref, value, use_locking=bool(use_locking), name=name or "AssignSub")


def is_variable_initialized(ref, name=None):
    """A bool scalar: whether `ref` (a Variable) has been assigned."""
    return gen_ops.is_variable_initialized(ref, name=name or "IsVariableInitialized")


def scatter_update(ref, indices, updates, use_locking=True, name=None):
    raise NotImplementedError("tf.scatter_update: flowvm has no ScatterUpdate op on reference variables; "
                              "use tf.tensor_scatter_update on the value and tf.assign the result")


def count_up_to(ref, limit, name=None):
    raise NotImplementedError("tf.count_up_to: flowvm has no CountUpTo op")


def group(ops_list, name=None):
    """A NoOp that runs after every op in `ops_list` (tf.group over a list)."""
    flat = []
    for o in ops_list:
        if o is None:
            continue
        if hasattr(o, "_as_graph_element") and not isinstance(o, (ops.Tensor, ops.Operation)):
            o = o._as_graph_element()
        flat.append(o.op if isinstance(o, ops.Tensor) else o)
    with ops.control_dependencies(flat):
        return gen_ops.no_op(name=name)
