"""The global step: tf.train.get_global_step, create_global_step,
get_or_create_global_step, global_step, assert_global_step."""
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.ops import init_ops
from flowvm.tf.ops import variable_scope
from flowvm.tf.ops import variables

__all__ = ["get_global_step", "create_global_step", "get_or_create_global_step", "global_step",
           "assert_global_step"]


def global_step(sess, global_step_tensor):
    """The global step's value, as a Python int."""
    return int(sess.run(global_step_tensor))


def assert_global_step(global_step_tensor):
    if not isinstance(global_step_tensor, (variables.Variable, ops.Tensor)):
        raise TypeError("Existing \"global_step\" must be a Variable or Tensor: %s." % global_step_tensor)
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError("Existing \"global_step\" does not have integer type: %s" % global_step_tensor.dtype)
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError("Existing \"global_step\" is not scalar: %s" % shape)


def get_global_step(graph=None):
    """The GLOBAL_STEP collection's variable, else the tensor "global_step:0", else None."""
    graph = graph or ops.get_default_graph()
    found = graph.get_collection(ops.GraphKeys.GLOBAL_STEP)
    if len(found) == 1:
        step = found[0]
    elif not found:
        try:
            step = graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
    else:
        raise TypeError("Multiple tensors in global_step collection.")
    assert_global_step(step)
    return step


def create_global_step(graph=None):
    """A new int64 scalar variable "global_step" starting at 0; ValueError if one exists."""
    graph = graph or ops.get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError("\"global_step\" already exists.")
    with graph.as_default(), graph.name_scope(None):
        return variable_scope.get_variable(ops.GraphKeys.GLOBAL_STEP, shape=[], dtype=dtypes.int64,
                                           initializer=init_ops.zeros_initializer(), trainable=False,
                                           collections=[ops.GraphKeys.GLOBAL_VARIABLES,
                                                        ops.GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph=None):
    graph = graph or ops.get_default_graph()
    step = get_global_step(graph)
    if step is None:
        step = create_global_step(graph)
    return step
