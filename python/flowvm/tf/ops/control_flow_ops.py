"""tf.cond, tf.case, tf.while_loop, tf.group, tf.tuple, tf.no_op, tf.Assert.

Conditionals and loops are built from Switch, Merge, Enter, Exit,
NextIteration and LoopCond as TensorFlow 1.x builds them (and as the C++
client API's Cond/WhileLoop do), so the runtime runs them on any device or
task and the C++ gradient code differentiates them.

While a branch or loop body is being built, the graph's control-flow
context (CondContext / WhileContext) sees every node added (ops.Graph calls
its _flowvm_* hooks): a tensor from outside is routed in through a Switch
on the predicate (cond) or a constant Enter (loop), one per tensor; a node
without data inputs waits on the context's pivot, so it runs only when its
branch is taken or once per iteration.
"""
import builtins
from flowvm.tf.framework import constant_op
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_shape
from flowvm.tf.ops import control_flow_util
from flowvm.tf.ops import gen_ops
from flowvm.tf.ops import tensor_array_ops
from flowvm.tf.util import nest


def _deref(t):
    """A reference tensor (a variable) as a value: Merge, NextIteration and
    the loop variables carry values."""
    if t.dtype._is_ref_dtype:
        return gen_ops.identity(t)
    return t


class _OuterScope(object):
    """Builds nodes in the context around `ctx` (or at the top level), under
    the context's name scope and without the caller's control dependencies."""

    def __init__(self, graph, ctx, keep_control_dependencies=False):
        self._graph = graph
        self._ctx = ctx
        self._keep = keep_control_dependencies

    def __enter__(self):
        g = self._graph
        self._saved_ctx = g._get_control_flow_context()
        self._deps = None
        if not self._keep:
            # (This also clears the control-flow context, as in TensorFlow.)
            self._deps = g.control_dependencies(None)
            self._deps.__enter__()
        g._set_control_flow_context(self._ctx.outer_context)
        self._name = g.name_scope(self._ctx.name + "/")
        self._name.__enter__()
        return self

    def __exit__(self, *args):
        self._name.__exit__(*args)
        self._graph._set_control_flow_context(self._saved_ctx)
        if self._deps is not None:
            self._deps.__exit__(*args)
        return False


class ControlFlowContext(object):
    """What a branch or loop body is built in; see the module docstring."""

    def __init__(self, graph, name):
        self._graph = graph
        self._outer = graph._get_control_flow_context()
        self._name = name
        self._routed = {}      # (op id, output) of an outside tensor -> the Tensor inside
        self._values = set()   # refs of tensors that belong here though made outside (pivots, routes)
        self._pivot = None

    @property
    def outer_context(self):
        return self._outer

    @property
    def name(self):
        return self._name

    def IsWhileContext(self):  # noqa: N802 - TensorFlow's name (control_flow_util asks it)
        return False

    def IsCondContext(self):  # noqa: N802 - TensorFlow's name
        return False

    def contains_op(self, op):
        ctx = op._get_control_flow_context()
        while ctx is not None:
            if ctx is self:
                return True
            ctx = ctx.outer_context
        return False

    def _is_inside(self, t):
        return t._ref() in self._values or self.contains_op(t.op)

    def enter(self):
        self._saved = self._graph._get_control_flow_context()
        self._graph._set_control_flow_context(self)

    def exit(self):
        self._graph._set_control_flow_context(self._saved)

    def route(self, t):
        """The tensor that stands for t inside this context."""
        if self._is_inside(t):
            return t
        key = t._ref()
        r = self._routed.get(key)
        if r is None:
            control_flow_util.check_input_from_loop(self._graph, self._name, t.op)
            r = self._make_route(t)
            self._routed[key] = r
            self._values.add(r._ref())
        return r

    # -- the hooks ops.Graph calls for each node made in this context
    def _flowvm_adjust_inputs(self, graph, inputs, refs, flat_input_ops):
        flat = []
        for i, arg in enumerate(inputs):
            if isinstance(arg, (list, builtins.tuple)):
                routed = [self.route(t) for t in arg]
                refs[i] = [t._ref() for t in routed]
                flat.extend(t.op for t in routed)
            else:
                t = self.route(arg)
                refs[i] = t._ref()
                flat.append(t.op)
        flat_input_ops[:] = flat

    def _flowvm_adjust_control_inputs(self, graph, control_ids, flat_input_ops):
        out = []
        internal = False
        for cid in control_ids:
            cop = graph._op_for_id(cid)
            if self.contains_op(cop) or any(o._ref() in self._values for o in cop.outputs):
                internal = True
                out.append(cid)
                continue
            r = self._external_control(cop)
            if r is not None and r._id not in out:
                out.append(r._id)
        if self._needs_pivot(flat_input_ops) and not internal:
            out.append(self._pivot.op._id)
        return out

    def _flowvm_add_op(self, op):
        pass

    def _needs_pivot(self, flat_input_ops):
        return not flat_input_ops


class CondContext(ControlFlowContext):
    """One branch of a tf.cond: `branch` 1 (true) or 0 (false)."""

    def __init__(self, graph, name, pred, pivot, branch):
        super(CondContext, self).__init__(graph, name)
        self._pred = pred
        self._pivot = pivot
        self._branch = branch
        self._values.add(pred._ref())
        self._values.add(pivot._ref())

    def IsCondContext(self):  # noqa: N802 - TensorFlow's name
        return True

    def _make_route(self, t):
        with _OuterScope(self._graph, self):
            with ops.colocate_with(t.op):
                sw = gen_ops.ref_switch(t, self._pred) if t.dtype._is_ref_dtype else gen_ops.switch(t, self._pred)
        return sw[self._branch]

    def _external_control(self, cop):
        # A cond may wait on anything in its frame; from outside an
        # enclosing loop, the loop routes the dependency in.
        loop = control_flow_util.get_containing_while_context(self._outer)
        if loop is None or loop.contains_op(cop):
            return cop
        return loop._route_control(cop)


class WhileContext(ControlFlowContext):
    """The condition and body of a tf.while_loop (one frame)."""

    def __init__(self, graph, name, frame_name, parallel_iterations):
        super(WhileContext, self).__init__(graph, name)
        self._frame_name = frame_name
        self._parallel_iterations = parallel_iterations
        self._invariant_ops = set()  # ids of the constant Enters made for outside values

    def IsWhileContext(self):  # noqa: N802 - TensorFlow's name
        return True

    def _make_route(self, t):
        with _OuterScope(self._graph, self):
            if t.dtype._is_ref_dtype:
                # A variable the body may update stays a reference, on its device.
                with ops.colocate_with(t.op):
                    e = gen_ops.ref_enter(t, frame_name=self._frame_name, is_constant=True,
                                      parallel_iterations=self._parallel_iterations)
            else:
                e = gen_ops.enter(t, frame_name=self._frame_name, is_constant=True,
                              parallel_iterations=self._parallel_iterations)
        e.op._set_control_flow_context(self)
        self._invariant_ops.add(e.op._id)
        return e

    def _route_control(self, cop):
        """An op in this frame that runs after outside op `cop` (a control
        edge may not cross frames): a constant made after cop, entered."""
        key = ("control", cop._id)
        r = self._routed.get(key)
        if r is None:
            with _OuterScope(self._graph, self):
                with self._graph.control_dependencies([cop]):
                    c = constant_op.constant(0, name="control_dependency")
            r = self.route(c).op
            self._routed[key] = r
        return r

    def _external_control(self, cop):
        return self._route_control(cop)

    def _needs_pivot(self, flat_input_ops):
        # Nodes fed only by loop invariants would otherwise also run in the
        # iteration that exits the loop.
        return all(op._id in self._invariant_ops for op in flat_input_ops)


# ---- TensorArrays as loop variables and branch results -------------------
# A TensorArray crosses a loop or branch boundary as its flow (the array
# itself, its handle, is the same on both sides and is routed in like any
# outside tensor); inside, and after, the flow is wrapped in a TensorArray
# again that shares the original's element shape and colocation.
def _convert_tensorarray_to_flow(v):
    if isinstance(v, tensor_array_ops.TensorArray):
        return v.flow
    return v


def _convert_flows_to_tensorarrays(originals, tensors):
    """tensors, with those standing for a TensorArray in `originals` (the
    flat loop variables) wrapped as one."""
    return [tensor_array_ops.build_ta_with_new_flow(o, t) if isinstance(o, tensor_array_ops.TensorArray) else t
            for o, t in zip(originals, tensors)]


def _merge_shape(t, invariant):
    """t, relaxed to the shape invariant where that is less specific."""
    if invariant is None:
        return t
    invariant = tensor_shape.as_shape(invariant)
    if not invariant.is_compatible_with(t.shape):
        raise ValueError("The shape invariant specified for %s is not compatible with the initial shape of the "
                         "loop variable. It enters the loop with shape %s, but the specified shape invariant is %s."
                         % (t.name, t.shape, invariant))
    if _shape_less_or_equal(invariant, t.shape) and _shape_less_or_equal(t.shape, invariant):
        return t
    return gen_ops.placeholder_with_default(t, shape=invariant)


def _shape_less_or_equal(general, specific):
    """Whether every shape `specific` allows fits `general` (specific is at
    least as specific)."""
    if general.ndims is None:
        return True
    if specific.ndims is None or specific.ndims != general.ndims:
        return False
    for g, s in zip(general.as_list(), specific.as_list()):
        if g is not None and g != s:
            return False
    return True


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, name=None, maximum_iterations=None, return_same_structure=False):
    """Repeats body while cond is true: loop_vars = body(*loop_vars).

    loop_vars is a (nested) list/tuple/namedtuple/dict of tensors and
    TensorArrays (which travel as their flows); cond and body take the
    top-level entries as arguments; body returns the same structure. The result has loop_vars' structure (a single loop
    variable comes back alone unless return_same_structure)."""
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if isinstance(parallel_iterations, bool) or not isinstance(parallel_iterations, int) or parallel_iterations < 1:
        raise TypeError("parallel_iterations must be a positive integer.")
    single = not isinstance(loop_vars, (list, builtins.tuple))
    if single:
        loop_vars = (loop_vars,)
    if not nest.flatten(loop_vars):
        raise ValueError("No loop variables provided")
    with ops.name_scope(name, "while", [_convert_tensorarray_to_flow(v) for v in nest.flatten(loop_vars)]) as scope:
        if maximum_iterations is not None:
            maximum_iterations = ops.convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if maximum_iterations.shape.ndims not in (0, None):
                raise ValueError("maximum_iterations must be a scalar, saw shape: %s" % maximum_iterations.shape)
            if maximum_iterations.dtype.base_dtype not in (dtypes.int32, dtypes.int64):
                raise TypeError("maximum_iterations must be int32 or int64, got %s" % maximum_iterations.dtype.name)
            counter = constant_op.constant(0, dtype=maximum_iterations.dtype.base_dtype, name="iteration_counter")
            orig_cond, orig_body = cond, body
            mi = maximum_iterations

            packed_one = len(loop_vars) == 1

            def cond(i, lv):
                return gen_ops.logical_and(gen_ops.less(i, mi), orig_cond(lv) if packed_one else orig_cond(*lv))

            def body(i, lv):
                if packed_one:
                    return (gen_ops.add(i, 1), orig_body(lv))
                res = orig_body(*lv)
                if nest.is_sequence(res) and not isinstance(res, dict) and len(res) == len(lv):
                    res = nest._sequence_like(lv, list(res))  # only the top level may be list vs tuple
                return (gen_ops.add(i, 1), res)
            if single and shape_invariants is not None:
                shape_invariants = (shape_invariants,)
            if shape_invariants is not None:
                shape_invariants = (tensor_shape.TensorShape([]),
                                    shape_invariants[0] if packed_one else shape_invariants)
            loop_vars = (counter, loop_vars[0] if packed_one else loop_vars)
            result = _build_loop(scope[:-1], cond, body, loop_vars, shape_invariants, parallel_iterations,
                                 back_prop)[1]
            if packed_one:
                return result
        else:
            if single and shape_invariants is not None:
                shape_invariants = (shape_invariants,)
            result = _build_loop(scope[:-1], cond, body, loop_vars, shape_invariants, parallel_iterations,
                                 back_prop)
    if single:
        return result[0]
    if not return_same_structure and len(nest.flatten(result)) == 1:
        return result[0] if isinstance(result, (list, builtins.tuple)) else nest.flatten(result)[0]
    return result


def _build_loop(scope, cond, body, loop_vars, shape_invariants, parallel_iterations, back_prop):
    graph = ops.get_default_graph()
    flat_orig = nest.flatten(loop_vars)
    flat = [_deref(ops.convert_to_tensor(_convert_tensorarray_to_flow(v))) for v in flat_orig]
    for t in flat:
        if t.graph is not graph:
            raise ValueError("while_loop: loop variable %s is from another graph" % t.name)
    if shape_invariants is not None:
        try:
            nest.assert_same_structure(loop_vars, shape_invariants, check_types=False)
        except (ValueError, TypeError) as e:
            raise ValueError("shape_invariants must have the structure of loop_vars: %s" % e)
        invariants = nest.flatten(shape_invariants)
    else:
        invariants = [None] * len(flat)
    flat = [_merge_shape(t, inv) for t, inv in zip(flat, invariants)]
    frame_name = scope + "/while_context"
    ctx = WhileContext(graph, scope, frame_name, parallel_iterations)
    # The Enters are built around the loop (an outer loop or branch routes
    # their inputs in) and belong to it.
    enters = []
    with graph.name_scope(scope + "/"):
        for t in flat:
            e = gen_ops.enter(t, frame_name=frame_name, is_constant=False, parallel_iterations=parallel_iterations,
                          name="Enter")
            e.op._set_control_flow_context(ctx)
            enters.append(e)
    merges = []
    merge_ops = []
    exits = []
    # Inside, the caller's control dependencies are replaced by the Enters
    # (every node of the loop runs after them).
    with graph.control_dependencies(None), graph.name_scope(scope + "/"):
        ctx.enter()
        try:
            for e in enters:
                m = gen_ops.merge([e, e], name="Merge")
                merges.append(m.output)
                merge_ops.append(m.output.op)
            ctx._pivot = merges[0]
            packed = nest.pack_sequence_as(loop_vars, _convert_flows_to_tensorarrays(flat_orig, merges))
            pred = cond(*packed)
            pred = ops.convert_to_tensor(pred)
            if pred.dtype.base_dtype != dtypes.bool:
                raise TypeError("while_loop: cond must return a boolean scalar tensor, got %s (%s)"
                                % (pred.dtype.name, pred.name))
            if pred.shape.ndims not in (None, 0):
                raise ValueError("while_loop: cond must return a scalar, got shape %s (%s)" % (pred.shape, pred.name))
            loop_cond = gen_ops.loop_cond(pred, name="LoopCond")
            idents = []
            for m in merges:
                sw = gen_ops.switch(m, loop_cond, name="Switch")
                exits.append(gen_ops.exit(sw.output_false, name="Exit"))
                idents.append(gen_ops.identity(sw.output_true, name="Identity"))
            ctx._pivot = idents[0]
            packed = nest.pack_sequence_as(loop_vars, _convert_flows_to_tensorarrays(flat_orig, idents))
            result = body(*packed)
            if not nest.is_sequence(result):
                result = [result]
            try:
                nest.assert_same_structure(list(packed), list(result))
            except ValueError as e:
                raise ValueError("The body of the while_loop must return the structure of its loop variables: %s"
                                 % e)
            except TypeError as e:
                raise TypeError("The body of the while_loop must return the types of sequence of its loop "
                                "variables: %s" % e)
            next_vals = []
            for i, (v, m) in enumerate(zip(nest.flatten(result), merges)):
                if isinstance(v, ops.Operation):
                    raise TypeError("while_loop: the body returned the operation %s for loop variable %d; return "
                                    "tensors" % (v.name, i))
                if isinstance(v, tensor_array_ops.TensorArray):
                    if not isinstance(flat_orig[i], tensor_array_ops.TensorArray):
                        raise TypeError("while_loop: the body returned a TensorArray for loop variable %d (%s), "
                                        "which enters the loop as a Tensor" % (i, flat[i].name))
                    v = v.flow
                v = _deref(ops.convert_to_tensor(v, dtype=m.dtype.base_dtype if not isinstance(v, ops.Tensor)
                                                 else None))
                if v.dtype.base_dtype != m.dtype.base_dtype:
                    raise TypeError("Input tensor '%s' enters the loop with type %s, but has type %s after one "
                                    "iteration" % (flat[i].name, m.dtype.name, v.dtype.name))
                if not _shape_less_or_equal(m.shape, v.shape):
                    raise ValueError("Input tensor '%s' enters the loop with shape %s, but has shape %s after one "
                                     "iteration. To allow the shape to vary across iterations, use the "
                                     "`shape_invariants` argument of tf.while_loop to specify a less-specific "
                                     "shape." % (flat[i].name, m.shape, v.shape))
                next_vals.append(gen_ops.next_iteration(v, name="NextIteration"))
            for m_op, n in zip(merge_ops, next_vals):
                m_op._update_input(1, n)
        finally:
            ctx.exit()
    for e in exits:
        e.op._set_control_flow_context(ctx.outer_context)
    if not back_prop:
        with graph.name_scope(scope + "/"):
            exits = [gen_ops.stop_gradient(e) for e in exits]
    return nest.pack_sequence_as(loop_vars, _convert_flows_to_tensorarrays(flat_orig, exits))


def _unpack_if_singleton(res):
    if isinstance(res, (list, builtins.tuple)) and len(res) == 1:
        return res[0]
    return res


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """true_fn() if pred else false_fn(); only the taken branch runs.

    Both functions return the same structure of tensors (or operations);
    the result has that structure (a one-element list comes back alone
    unless strict)."""
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): true_fn and fn1 may not be set simultaneously.")
        true_fn = fn1
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): false_fn and fn2 may not be set simultaneously.")
        false_fn = fn2
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool")
    with ops.name_scope(name, "cond", [pred]) as scope:
        graph = ops.get_default_graph()
        pred = _deref(ops.convert_to_tensor(pred))
        if pred.dtype.base_dtype != dtypes.bool:
            raise TypeError("pred must be a bool tensor, got %s (%s)" % (pred.dtype.name, pred.name))
        if pred.shape.ndims not in (None, 0):
            raise ValueError("pred must be a scalar, got shape %s (%s)" % (pred.shape, pred.name))
        p_f, p_t = gen_ops.switch(pred, pred)
        pivot_t = gen_ops.identity(p_t, name="switch_t")
        pivot_f = gen_ops.identity(p_f, name="switch_f")
        pred = gen_ops.identity(pred, name="pred_id")
        results = []
        for branch, pivot, fn in ((1, pivot_t, true_fn), (0, pivot_f, false_fn)):
            ctx = CondContext(graph, scope[:-1], pred, pivot, branch)
            ctx.enter()
            try:
                orig = fn()
                if orig is None:
                    raise ValueError("%s must have a return value." % ("true_fn" if branch else "false_fn"))
                flat = []
                for v in nest.flatten(orig):
                    v = _convert_tensorarray_to_flow(v)
                    if isinstance(v, ops.Operation):
                        with graph.control_dependencies([v]):
                            v = gen_ops.identity(pivot)
                    else:
                        v = ctx.route(_deref(ops.convert_to_tensor(v)))
                    flat.append(v)
            finally:
                ctx.exit()
            results.append((orig, flat))
        (orig_t, res_t), (orig_f, res_f) = results
        try:
            nest.assert_same_structure(orig_t, orig_f)
        except TypeError as e:
            raise TypeError("Incompatible return types of true_fn and false_fn: %s" % e)
        except ValueError as e:
            raise ValueError("Incompatible return values of true_fn and false_fn: %s" % e)
        for t, f in zip(res_t, res_f):
            if t.dtype.base_dtype != f.dtype.base_dtype:
                raise ValueError("Outputs of true_fn and false_fn must have the same type: %s, %s"
                                 % (t.dtype.name, f.dtype.name))
        merges = [gen_ops.merge([f, t], name="Merge").output for t, f in zip(res_t, res_f)]
        packed = nest.pack_sequence_as(orig_t, _convert_flows_to_tensorarrays(nest.flatten(orig_t), merges))
        if not strict:
            packed = _unpack_if_singleton(packed)
        return packed


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The fn of the first pred that is true (all of them checked for at
    most one true when exclusive); default() when none is (with default
    None, the last fn serves and asserts its pred)."""
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError("fns must be a list, tuple, or dict")
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
    preds, fns = [], []
    for pair in pred_fn_pairs:
        if not isinstance(pair, builtins.tuple) or len(pair) != 2:
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple")
        pred, fn = pair
        if isinstance(pred, ops.Tensor):
            if pred.dtype.base_dtype != dtypes.bool:
                raise TypeError("pred must be Tensor of type bool: %s" % pred.name)
        else:
            raise TypeError("pred must be a Tensor, got: %s" % (pred,))
        if not callable(fn):
            raise TypeError("fn for pred %s must be callable." % pred.name)
        preds.append(pred)
        fns.append(fn)
    if not preds and default is None:
        raise ValueError("case: no pred_fn_pairs and no default")
    if default is not None and not callable(default):
        raise TypeError("default must be callable.")
    with ops.name_scope(name, "case", preds):
        if not preds:
            return default()
        every_pred = list(preds)
        if default is None:
            last_pred, last_fn = preds[-1], fns[-1]
            preds, fns = preds[:-1], fns[:-1]
            all_preds = list(preds) + [last_pred]

            def default():
                with ops.name_scope("default"):
                    check = Assert(last_pred, ["Input error: None of conditions evaluated as True:",
                                               gen_ops.pack(all_preds, name="preds_c")],
                                   summarize=len(all_preds))
                with ops.control_dependencies([check]):
                    return last_fn()

        def build():
            fn = default
            for p, f in reversed(list(zip(preds, fns))):
                fn = (lambda p=p, f=f, rest=fn: cond(p, f, rest, strict=strict))
            return fn()
        if exclusive and len(every_pred) > 1:
            packed = gen_ops.pack(every_pred, name="preds_c")
            count = gen_ops.sum(gen_ops.cast(packed, DstT=dtypes.int32), [0], name="num_true_conds")
            at_most_one = gen_ops.less(count, 2, name="at_most_one_true_condition")
            check = Assert(at_most_one, ["More than one condition evaluated as True but exclusive=True.  "
                                         "Conditions: (%s), Values:" % ", ".join(p.name for p in every_pred), packed],
                           summarize=len(every_pred))
            with ops.control_dependencies([check]):
                result = build()
        else:
            result = build()
        if not strict:
            result = _unpack_if_singleton(result)
        return result


def no_op(name=None):
    return gen_ops.no_op(name=name)


def group(*inputs, **kwargs):
    """An operation that runs after all of `inputs` (tensors or operations,
    possibly nested in lists)."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError("Unknown keyword arguments: " + ", ".join(kwargs.keys()))
    deps = []
    for inp in nest.flatten(list(inputs)):
        if hasattr(inp, "_as_graph_element") and not isinstance(inp, (ops.Tensor, ops.Operation)):
            inp = inp._as_graph_element()
        if isinstance(inp, ops.Tensor):
            inp = inp.op
        if not isinstance(inp, ops.Operation):
            raise TypeError("Expected tf.group() expected Tensor arguments not '%s' with type '%s'"
                            % (inp, type(inp)))
        if inp not in deps:
            deps.append(inp)
    with ops.control_dependencies(deps):
        return gen_ops.no_op(name=name or "group_deps")


def with_dependencies(dependencies, output_tensor, name=None):
    """output_tensor, produced only after `dependencies` have run."""
    with ops.name_scope(name, "control_dependency", list(dependencies) + [output_tensor]) as scope:
        with ops.colocate_with(output_tensor):
            with ops.control_dependencies(dependencies):
                output_tensor = ops.convert_to_tensor(output_tensor)
                return gen_ops.identity(output_tensor, name=scope[:-1])


def tuple(tensors, name=None, control_inputs=None):  # noqa: A001 - TensorFlow's name
    """The tensors, each available only after all of them are computed."""
    with ops.name_scope(name, "tuple", [t for t in tensors if t is not None]) as scope:
        tensors = [t if (t is None or isinstance(t, (ops.Operation, ops.Tensor))) else ops.convert_to_tensor(t)
                   for t in tensors]
        gating = []
        for t in tensors:
            if t is not None:
                op = t if isinstance(t, ops.Operation) else t.op
                if op not in gating:
                    gating.append(op)
        for c in control_inputs or ():
            if isinstance(c, ops.Tensor):
                c = c.op
            elif not isinstance(c, ops.Operation):
                raise TypeError("Control input must be Operation or Tensor: %s" % (c,))
            if c not in gating:
                gating.append(c)
        if not gating:
            raise ValueError("Must have at least one Tensor: %s" % (tensors,))
        gate = group(*gating)
        out = []
        for t in tensors:
            if isinstance(t, ops.Tensor):
                out.append(with_dependencies([gate], t))
            elif isinstance(t, ops.Operation):
                with ops.control_dependencies([gate]):
                    out.append(group(t))
            else:
                out.append(None)
        del scope
        return out


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TensorFlow's name
    """An operation that fails with InvalidArgumentError showing `data`
    (first `summarize` entries of each) when condition is false."""
    with ops.name_scope(name, "Assert", [condition]) as scope:
        condition = _deref(ops.convert_to_tensor(condition, name="Condition"))
        xs = [_deref(ops.convert_to_tensor(x)) for x in data]
        return gen_ops.assert_(condition, xs, summarize=3 if summarize is None else summarize,
                              name=scope[:-1] if scope else None)


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):  # noqa: N802 - TensorFlow's name
    """Returns `input_` unchanged; each time it is computed, writes `message`
    and the first `summarize` (default 3) values of each tensor in `data` to
    stderr, on the first `first_n` runs only when first_n is given."""
    input_ = ops.convert_to_tensor(input_, name="input")
    xs = [ops.convert_to_tensor(x) for x in data]
    return gen_ops.print(input_, xs, message="" if message is None else message,
                        first_n=-1 if first_n is None else first_n, summarize=3 if summarize is None else summarize,
                        name=name or "Print")


def print_v2(*inputs, **kwargs):
    raise NotImplementedError("tf.print: flowvm has no PrintV2 op yet; fetch the tensors with Session.run")
