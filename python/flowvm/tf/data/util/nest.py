"""tf.data's structures: nested tuples, namedtuples and dicts (dict entries
in sorted key order) of components. Unlike tf.nest, a list is not a
structure here but one component: `from_tensor_slices([1, 2, 3])` slices
one tensor, as in TensorFlow's tensorflow/python/data/util/nest.py."""
import collections


def is_sequence(x):
    return isinstance(x, (tuple, collections.abc.Mapping))


def _children(x):
    if isinstance(x, collections.abc.Mapping):
        return [x[k] for k in sorted(x)]
    return list(x)


def flatten(structure):
    if not is_sequence(structure):
        return [structure]
    out = []
    for c in _children(structure):
        out.extend(flatten(c))
    return out


def _sequence_like(instance, args):
    if isinstance(instance, collections.abc.Mapping):
        result = dict(zip(sorted(instance), args))
        return type(instance)((k, result[k]) for k in instance)
    if isinstance(instance, tuple) and hasattr(instance, "_fields"):
        return type(instance)(*args)
    return tuple(args)


def _pack(structure, flat, index):
    out = []
    for c in _children(structure):
        if is_sequence(c):
            index, packed = _pack(c, flat, index)
            out.append(_sequence_like(c, packed))
        else:
            out.append(flat[index])
            index += 1
    return index, out


def pack_sequence_as(structure, flat_sequence):
    flat_sequence = list(flat_sequence)
    if not is_sequence(structure):
        if len(flat_sequence) != 1:
            raise ValueError("Structure is a scalar but len(flat_sequence) == %d > 1" % len(flat_sequence))
        return flat_sequence[0]
    n = len(flatten(structure))
    if n != len(flat_sequence):
        raise ValueError("Could not pack sequence. Structure had %d elements, but flat_sequence had %d elements. "
                         "Structure: %s, flat_sequence: %s." % (n, len(flat_sequence), structure, flat_sequence))
    return _sequence_like(structure, _pack(structure, flat_sequence, 0)[1])


def assert_same_structure(nest1, nest2, check_types=True):
    s1, s2 = is_sequence(nest1), is_sequence(nest2)
    if s1 != s2:
        raise ValueError("The two structures don't have the same nested structure: %s vs %s" % (nest1, nest2))
    if not s1:
        return
    if check_types:
        m1 = isinstance(nest1, collections.abc.Mapping)
        m2 = isinstance(nest2, collections.abc.Mapping)
        if (m1 != m2) or (not m1 and type(nest1) is not type(nest2)):
            raise TypeError("The two structures don't have the same sequence type: %s vs %s"
                            % (type(nest1).__name__, type(nest2).__name__))
    if isinstance(nest1, collections.abc.Mapping) and sorted(nest1) != sorted(nest2):
        raise ValueError("The two dictionaries don't have the same set of keys: %s vs %s"
                         % (sorted(nest1), sorted(nest2)))
    c1, c2 = _children(nest1), _children(nest2)
    if len(c1) != len(c2):
        raise ValueError("The two structures don't have the same number of elements: %s vs %s" % (nest1, nest2))
    for a, b in zip(c1, c2):
        assert_same_structure(a, b, check_types)


def map_structure(func, *structures):
    for s in structures[1:]:
        assert_same_structure(structures[0], s)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [func(*args) for args in zip(*flats)])


def map_structure_up_to(shallow, func, *structures):
    """func over the parts of `structures` at the leaves of `shallow` (which
    may stop above theirs: a padded shape given for a whole component)."""
    if not is_sequence(shallow):
        return func(*structures)
    for s in structures:
        if not is_sequence(s):
            raise TypeError("Expected a structure like %s, got %r" % (shallow, s))
    out = []
    for i, c in enumerate(_children(shallow)):
        out.append(map_structure_up_to(c, func, *[_children(s)[i] for s in structures]))
    return _sequence_like(shallow, out)


def flatten_up_to(shallow, structure):
    """The parts of `structure` at the leaves of `shallow`, in order."""
    if not is_sequence(shallow):
        return [structure]
    if not is_sequence(structure):
        raise TypeError("Expected a structure like %s, got %r" % (shallow, structure))
    out = []
    for i, c in enumerate(_children(shallow)):
        out.extend(flatten_up_to(c, _children(structure)[i]))
    return out
