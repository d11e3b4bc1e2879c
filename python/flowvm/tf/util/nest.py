"""tf.nest's structure helpers: nested lists, tuples, namedtuples and dicts
(dict entries in sorted key order), as while_loop and cond use them."""
import collections


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def is_sequence(x):
    return isinstance(x, (list, tuple, dict)) or isinstance(x, collections.abc.Mapping)


is_nested = is_sequence


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
        keys = sorted(instance)
        result = dict(zip(keys, args))
        return type(instance)((k, result[k]) for k in instance)
    if _is_namedtuple(instance):
        return type(instance)(*args)
    if isinstance(instance, tuple):
        return tuple(args)
    return list(args)


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
    _, packed = _pack(structure, flat_sequence, 0)
    return _sequence_like(structure, packed)


def assert_same_structure(nest1, nest2, check_types=True):
    """ValueError when the nestings differ, TypeError when check_types and
    the sequence types differ (list vs tuple, different namedtuples)."""
    s1, s2 = is_sequence(nest1), is_sequence(nest2)
    if s1 != s2:
        raise ValueError("The two structures don't have the same nested structure.\n\nFirst structure: %s\n\n"
                         "Second structure: %s" % (nest1, nest2))
    if not s1:
        return
    if check_types:
        t1, t2 = type(nest1), type(nest2)
        same = t1 is t2 or (isinstance(nest1, collections.abc.Mapping) and isinstance(nest2, collections.abc.Mapping))
        if not same:
            raise TypeError("The two structures don't have the same sequence type. First structure has type %s, "
                            "while second structure has type %s." % (t1, t2))
    if isinstance(nest1, collections.abc.Mapping) and isinstance(nest2, collections.abc.Mapping):
        if sorted(nest1) != sorted(nest2):
            raise ValueError("The two dictionaries don't have the same set of keys: %s vs %s"
                             % (sorted(nest1), sorted(nest2)))
    c1, c2 = _children(nest1), _children(nest2)
    if len(c1) != len(c2):
        raise ValueError("The two structures don't have the same number of elements.\n\nFirst structure (%d "
                         "elements): %s\n\nSecond structure (%d elements): %s" % (len(c1), nest1, len(c2), nest2))
    for a, b in zip(c1, c2):
        assert_same_structure(a, b, check_types)


def map_structure(func, *structures):
    if not structures:
        raise ValueError("Must provide at least one structure")
    for s in structures[1:]:
        assert_same_structure(structures[0], s)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [func(*args) for args in zip(*flats)])
