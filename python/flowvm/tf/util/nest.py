"""tf.nest's structure helpers: nested lists, tuples, namedtuples and dicts
(dict entries in sorted key order), as while_loop and cond use them.

Nesting holds the helpers for one notion of what a structure is; tf.data's
(tf/data/util/nest.py) is the same but for lists, which are components
there."""
import collections


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _children(x):
    if isinstance(x, collections.abc.Mapping):
        return [x[k] for k in sorted(x)]
    return list(x)


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


class Nesting(object):
    """flatten, pack_sequence_as, assert_same_structure, map_structure and
    their `_up_to` forms, for structures whose inner nodes are the values
    for which `is_sequence` is true."""

    def __init__(self, is_sequence):
        self.is_sequence = is_sequence

    def flatten(self, structure):
        if not self.is_sequence(structure):
            return [structure]
        out = []
        for c in _children(structure):
            out.extend(self.flatten(c))
        return out

    def _pack(self, structure, flat, index):
        out = []
        for c in _children(structure):
            if self.is_sequence(c):
                index, packed = self._pack(c, flat, index)
                out.append(_sequence_like(c, packed))
            else:
                out.append(flat[index])
                index += 1
        return index, out

    def pack_sequence_as(self, structure, flat_sequence):
        flat_sequence = list(flat_sequence)
        if not self.is_sequence(structure):
            if len(flat_sequence) != 1:
                raise ValueError("Structure is a scalar but len(flat_sequence) == %d > 1" % len(flat_sequence))
            return flat_sequence[0]
        n = len(self.flatten(structure))
        if n != len(flat_sequence):
            raise ValueError("Could not pack sequence. Structure had %d elements, but flat_sequence had %d elements. "
                             "Structure: %s, flat_sequence: %s." % (n, len(flat_sequence), structure, flat_sequence))
        _, packed = self._pack(structure, flat_sequence, 0)
        return _sequence_like(structure, packed)

    def assert_same_structure(self, nest1, nest2, check_types=True):
        """ValueError when the nestings differ, TypeError when check_types and
        the sequence types differ (list vs tuple, different namedtuples)."""
        s1, s2 = self.is_sequence(nest1), self.is_sequence(nest2)
        if s1 != s2:
            raise ValueError("The two structures don't have the same nested structure.\n\nFirst structure: %s\n\n"
                             "Second structure: %s" % (nest1, nest2))
        if not s1:
            return
        m1 = isinstance(nest1, collections.abc.Mapping)
        m2 = isinstance(nest2, collections.abc.Mapping)
        if check_types and not (type(nest1) is type(nest2) or (m1 and m2)):
            raise TypeError("The two structures don't have the same sequence type. First structure has type %s, "
                            "while second structure has type %s." % (type(nest1), type(nest2)))
        if m1 and m2 and sorted(nest1) != sorted(nest2):
            raise ValueError("The two dictionaries don't have the same set of keys: %s vs %s"
                             % (sorted(nest1), sorted(nest2)))
        c1, c2 = _children(nest1), _children(nest2)
        if len(c1) != len(c2):
            raise ValueError("The two structures don't have the same number of elements.\n\nFirst structure (%d "
                             "elements): %s\n\nSecond structure (%d elements): %s" % (len(c1), nest1, len(c2), nest2))
        for a, b in zip(c1, c2):
            self.assert_same_structure(a, b, check_types)

    def map_structure(self, func, *structures):
        if not structures:
            raise ValueError("Must provide at least one structure")
        for s in structures[1:]:
            self.assert_same_structure(structures[0], s)
        flats = [self.flatten(s) for s in structures]
        return self.pack_sequence_as(structures[0], [func(*args) for args in zip(*flats)])

    def flatten_up_to(self, shallow, structure):
        """The parts of `structure` at the leaves of `shallow`, in order."""
        if not self.is_sequence(shallow):
            return [structure]
        if not self.is_sequence(structure):
            raise TypeError("Expected a structure like %s, got %r" % (shallow, structure))
        out = []
        for i, c in enumerate(_children(shallow)):
            out.extend(self.flatten_up_to(c, _children(structure)[i]))
        return out

    def map_structure_up_to(self, shallow, func, *structures):
        """func over the parts of `structures` at the leaves of `shallow`
        (which may stop above theirs: a shape given for a whole component)."""
        if not self.is_sequence(shallow):
            return func(*structures)
        for s in structures:
            if not self.is_sequence(s):
                raise TypeError("Expected a structure like %s, got %r" % (shallow, s))
        out = []
        for i, c in enumerate(_children(shallow)):
            out.append(self.map_structure_up_to(c, func, *[_children(s)[i] for s in structures]))
        return _sequence_like(shallow, out)


def is_sequence(x):
    return isinstance(x, (list, tuple, dict)) or isinstance(x, collections.abc.Mapping)


is_nested = is_sequence
_NEST = Nesting(is_sequence)
flatten = _NEST.flatten
pack_sequence_as = _NEST.pack_sequence_as
assert_same_structure = _NEST.assert_same_structure
map_structure = _NEST.map_structure
flatten_up_to = _NEST.flatten_up_to
map_structure_up_to = _NEST.map_structure_up_to
