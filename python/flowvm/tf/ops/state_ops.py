"""Ops on reference variables (tf.assign, tf.assign_add, tf.assign_sub,
tf.is_variable_initialized, tf.scatter_update / scatter_add / scatter_sub,
tf.count_up_to), and the small grouping helper the variable and training
modules share."""
from flowvm.tf.framework import ops
from flowvm.tf.ops import gen_ops

__all__ = ["assign", "assign_add", "assign_sub", "is_variable_initialized", "scatter_update", "scatter_add",
           "scatter_sub", "count_up_to"]


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
    """ref[indices, ...] = updates; returns ref after the update (a ref
    tensor). `updates` has shape indices.shape + ref.shape[1:], or is a
    scalar. An index outside [0, ref.shape[0]) fails the step with
    InvalidArgumentError and leaves ref unchanged."""
    return gen_ops.scatter_update(ref, indices, updates, use_locking=use_locking, name=name or "ScatterUpdate")


def scatter_add(ref, indices, updates, use_locking=False, name=None):
    """ref[indices, ...] += updates (repeated indices all add)."""
    return gen_ops.scatter_add(ref, indices, updates, use_locking=use_locking, name=name or "ScatterAdd")


def scatter_sub(ref, indices, updates, use_locking=False, name=None):
    """ref[indices, ...] -= updates (repeated indices all subtract)."""
    return gen_ops.scatter_sub(ref, indices, updates, use_locking=use_locking, name=name or "ScatterSub")


def count_up_to(ref, limit, name=None):
    """Increments the int32/int64 scalar variable `ref` and returns its value
    before the increment; once it has reached `limit` the step fails with
    OutOfRangeError ("Reached limit of <limit>")."""
    return gen_ops.count_up_to(ref, limit=limit, name=name or "CountUpTo")


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
