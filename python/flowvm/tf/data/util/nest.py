"""tf.data's structures: nested tuples, namedtuples and dicts (dict entries
in sorted key order) of components. Unlike tf.nest, a list is not a
structure here but one component: `from_tensor_slices([1, 2, 3])` slices
one tensor, as in TensorFlow's tensorflow/python/data/util/nest.py."""
import collections

from flowvm.tf.util import nest as _nest_lib


def is_sequence(x):
    return isinstance(x, (tuple, collections.abc.Mapping))


_NEST = _nest_lib.Nesting(is_sequence)
flatten = _NEST.flatten
pack_sequence_as = _NEST.pack_sequence_as
assert_same_structure = _NEST.assert_same_structure
map_structure = _NEST.map_structure
flatten_up_to = _NEST.flatten_up_to
map_structure_up_to = _NEST.map_structure_up_to
