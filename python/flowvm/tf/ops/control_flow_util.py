"""Questions about control-flow contexts that graph building asks for every
node (TensorFlow's ops/control_flow_util.py). They only look at a
context's methods, so framework/ops.py uses them without importing
control_flow_ops, which builds on ops."""


def is_while_context(ctx):
    return ctx is not None and ctx.IsWhileContext()


def get_containing_while_context(ctx):
    """The innermost while loop's context at or around `ctx`, or None."""
    while ctx is not None and not ctx.IsWhileContext():
        ctx = ctx.outer_context
    return ctx


def check_input_from_loop(graph, op_name, src_op):
    """ValueError when src_op, made inside a while loop, would feed node
    op_name outside that loop (TensorFlow's message): only the loop's
    outputs may leave it."""
    src = get_containing_while_context(src_op._get_control_flow_context())
    if src is None:
        return
    here = graph._get_control_flow_context()
    while here is not None:
        if here is src:
            return
        here = here.outer_context
    raise ValueError("Cannot use '%s' as input to '%s' because '%s' is in a while loop. Use the while_loop's "
                     "outputs (or pass the value as a loop variable) instead." % (src_op.name, op_name, src_op.name))
