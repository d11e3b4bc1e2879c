"""The user functions of tf.data (map, filter, flat_map, interleave, ...)
as functions of the graph (GraphDef.library).

A dataset's element is a structure (tuple, namedtuple or dict) of
components; the function the runtime calls takes the flat list of
components followed by the tensors the Python function captured, and
returns a flat list. StructuredFunctionWrapper traces the user's Python
function once, when the transformation is built, so its errors show there,
and records the structure, types and shapes of what it returns.
"""
import re

from flowvm.tf.data.util import nest
from flowvm.tf.framework import function
from flowvm.tf.framework import ops


def normalize_element(element, what="element"):
    """`element` with each component converted to a Tensor."""
    flat = nest.flatten(element)
    out = []
    for i, t in enumerate(flat):
        if t is None:
            raise TypeError("A %s of a tf.data dataset cannot contain None (component %d of %r)" % (what, i, element))
        if isinstance(t, ops.Tensor):
            out.append(t)
            continue
        try:
            out.append(ops.convert_to_tensor(t, name="component_%d" % i))
        except (TypeError, ValueError) as e:
            raise TypeError("Component %d of the %s cannot be converted to a tensor: %r (%s)" % (i, what, t, e))
    return nest.pack_sequence_as(element, out)


def _function_name(transformation_name, func):
    base = getattr(func, "__name__", None) or type(func).__name__
    name = "%s_%s" % (transformation_name, base)
    return re.sub(r"[^A-Za-z0-9_]", "_", name).strip("_")


class StructuredFunctionWrapper(object):
    """A Python function over a dataset's elements, as a graph function.

    Args:
      func: the user's function. A tuple element is passed as separate
        arguments (`lambda x, y: ...`); any other element (a single
        component, a dict, a namedtuple) as one argument.
      transformation_name: e.g. "Dataset.map()", for errors and the
        function's name.
      dataset: the input dataset, whose element the function takes; or
      input_types, input_shapes: the structure of its argument.
      allow_dataset_result: the function may return a Dataset (flat_map,
        interleave); its variant is the function's one output.
    """

    def __init__(self, func, transformation_name, dataset=None, input_types=None, input_shapes=None,
                 allow_dataset_result=False):
        if not callable(func):
            raise TypeError("%s expects a callable, got %r" % (transformation_name, func))
        if dataset is not None:
            input_types, input_shapes = dataset.output_types, dataset.output_shapes
        self._transformation_name = transformation_name
        self._input_types = input_types
        self._input_shapes = input_shapes
        self._returned_dataset = None
        self._output_types = None
        self._output_shapes = None
        flat_types = nest.flatten(input_types)
        flat_shapes = nest.flatten(input_shapes)

        def wrapper(*args):
            for a, s in zip(args, flat_shapes):
                a.set_shape(s)
            nested = nest.pack_sequence_as(input_types, list(args))
            ret = func(*nested) if type(nested) is tuple else func(nested)
            if isinstance(ret, list):
                # A list is one component to tf.data; a function returning a
                # list of tensors means a tuple of them (as in TensorFlow).
                ret = tuple(ret)
            if getattr(ret, "_is_tf_data_dataset", False):
                if not allow_dataset_result:
                    raise TypeError("The function of %s returned a Dataset; only flat_map and interleave take "
                                    "functions that return datasets" % transformation_name)
                self._returned_dataset = ret
                return ret._variant_tensor
            if allow_dataset_result:
                raise TypeError("`map_func` of %s must return a `Dataset` object, got %r" % (transformation_name, ret))
            ret = normalize_element(ret, "value returned by the function of %s" % transformation_name)
            self._output_types = nest.map_structure(lambda t: t.dtype.base_dtype, ret)
            self._output_shapes = nest.map_structure(lambda t: t.shape, ret)
            return nest.flatten(ret)

        wrapper.__name__ = _function_name(transformation_name.replace("()", ""), func)
        argnames = ["args_%d" % i for i in range(len(flat_types))]
        self._function = function._DefinedFunction(wrapper, argnames, flat_types)
        # Traces the Python function now, in the graph the dataset is built in.
        self._function.add_to_graph(ops.get_default_graph())

    @property
    def function(self):
        return self._function

    @property
    def name(self):
        return self._function.name

    @property
    def captured_inputs(self):
        return self._function.captured_inputs

    @property
    def returned_dataset(self):
        """The Dataset the function returned (flat_map, interleave), else None."""
        return self._returned_dataset

    @property
    def output_types(self):
        if self._returned_dataset is not None:
            return self._returned_dataset.output_types
        return self._output_types

    @property
    def output_shapes(self):
        if self._returned_dataset is not None:
            return self._returned_dataset.output_shapes
        return self._output_shapes
