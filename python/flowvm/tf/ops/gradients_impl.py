"""tf.gradients: symbolic differentiation by the C++ gradient registry
(the graph layer's AddSymbolicGradients), under a "gradients" name scope."""
from flowvm.tf.framework import device as pydev
from flowvm.tf.framework import ops
from flowvm.tf.ops import array_ops


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients="none"):
    """d(sum(ys))/d(x) for each x in xs; None where an x does not affect
    the ys (or zeros, with unconnected_gradients='zero')."""
    if unconnected_gradients not in ("none", "zero"):
        raise ValueError("Unknown value for unconnected_gradients: %r" % (unconnected_gradients,))
    if stop_gradients:
        raise NotImplementedError("gradients: stop_gradients is not supported; wrap the tensors in "
                                  "tf.stop_gradient instead")
    single_x = not isinstance(xs, (list, tuple))
    ys = [ys] if not isinstance(ys, (list, tuple)) else list(ys)
    xs = [xs] if single_x else list(xs)
    ys = [ops.convert_to_tensor(y) for y in ys]
    xs = [x._as_graph_element() if hasattr(x, "_as_graph_element") and not isinstance(x, ops.Tensor) else x
          for x in xs]
    xs = [ops.convert_to_tensor(x) for x in xs]
    g = ys[0].graph
    for t in ys + xs:
        if t.graph is not g:
            raise ValueError("gradients: %s is from another graph than %s" % (t.name, ys[0].name))
    gys = []
    if grad_ys is not None:
        if not isinstance(grad_ys, (list, tuple)):
            grad_ys = [grad_ys]
        if len(grad_ys) != len(ys):
            raise ValueError("Passed %d grad_ys for %d ys" % (len(grad_ys), len(ys)))
        with g.as_default():
            for y, gy in zip(ys, grad_ys):
                gys.append(ops.convert_to_tensor(y if gy is None else gy, dtype=y.dtype.base_dtype)
                           if gy is not None else None)
        if any(gy is None for gy in gys):
            with g.as_default():
                gys = [array_ops.ones_like(y) if gy is None else gy for y, gy in zip(ys, gys)]
    device = ""
    for spec in g._device_stack:
        if isinstance(spec, str):
            device = pydev.merge_device(device, spec)
    control = [op._id for op in g._current_control_dependencies([])]
    with g.name_scope(name or "gradients") as scope:
        first = g._c.num_node_ids()
        refs = g._c.gradients([y._ref() for y in ys], [x._ref() for x in xs], [gy._ref() for gy in gys],
                              scope[:-1], device, control, unconnected_gradients == "zero",
                              _python_gradients(g))
    new_ops = g._adopt_new_nodes(first)
    # Device functions (replica_device_setter) place gradient nodes too.
    if any(callable(s) for s in g._device_stack):
        for op in new_ops:
            g._apply_device_functions(op)
    return [None if ref is None else g._op_for_id(ref[0]).outputs[ref[1]] for ref in refs]


def _python_gradients(g):
    """The C++ gradient builder's callback for gradients registered in
    Python (tf.RegisterGradient, Defun's python_grad_func): called with the
    node, the gradient's name, its output gradients and the name scope to
    build in; returns the input gradients, or None to decline."""
    def custom(op_id, grad_name, dy_refs, scope, device):
        if grad_name not in ops._gradient_registry:
            return None
        fn = ops._gradient_registry[grad_name]
        op = g._op_for_id(op_id)
        if fn is None:  # NotDifferentiable
            return [None] * len(op.inputs)
        dys = [None if r is None else g._op_for_id(r[0]).outputs[r[1]] for r in dy_refs]
        with g.as_default(), g.name_scope(scope + "/"), g.device(device or None):
            dxs = fn(op, *dys)
        if not isinstance(dxs, (list, tuple)):
            dxs = [dxs]
        if len(dxs) != len(op.inputs):
            raise ValueError("Num gradients %d generated for op %s do not match num inputs %d"
                             % (len(dxs), op.node_def, len(op.inputs)))
        out = []
        for t, x in zip(dxs, op.inputs):
            if t is None:
                out.append(None)
            else:
                t = ops.convert_to_tensor(t, dtype=x.dtype.base_dtype)
                out.append(t._ref())
        return out
    return custom


def hessians(ys, xs, name="hessians", **kwargs):
    raise NotImplementedError("hessians is not supported yet")
