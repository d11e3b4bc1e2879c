"""tf.TensorShape and tf.Dimension, with TensorFlow 1.x's semantics
(shape[i] is a Dimension whose .value is None when unknown)."""


class Dimension(object):
    __slots__ = ("_value",)

    def __init__(self, value):
        if value is None:
            self._value = None
        elif isinstance(value, Dimension):
            self._value = value.value
        else:
            v = int(value)
            if v < 0:
                raise ValueError("Dimension %d must be >= 0" % v)
            self._value = v

    @property
    def value(self):
        return self._value

    def __repr__(self):
        return "Dimension(%s)" % repr(self._value)

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __eq__(self, other):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return None
        return self._value == other.value

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is None or r is NotImplemented else not r

    def __hash__(self):
        return hash(self._value)

    def is_compatible_with(self, other):
        other = as_dimension(other)
        return self._value is None or other.value is None or self._value == other.value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Dimensions %s and %s are not compatible" % (self, other))

    def merge_with(self, other):
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other.value)

    def _op(self, other, f):
        other = as_dimension(other)
        if self._value is None or other.value is None:
            return Dimension(None)
        return Dimension(f(self._value, other.value))

    def __add__(self, o):
        return self._op(o, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, o):
        return self._op(o, lambda a, b: a - b)

    def __rsub__(self, o):
        return as_dimension(o).__sub__(self)

    def __mul__(self, o):
        return self._op(o, lambda a, b: a * b)

    __rmul__ = __mul__

    def __floordiv__(self, o):
        return self._op(o, lambda a, b: a // b)

    def __mod__(self, o):
        return self._op(o, lambda a, b: a % b)

    def __lt__(self, o):
        o = as_dimension(o)
        return None if self._value is None or o.value is None else self._value < o.value

    def __le__(self, o):
        o = as_dimension(o)
        return None if self._value is None or o.value is None else self._value <= o.value

    def __gt__(self, o):
        o = as_dimension(o)
        return None if self._value is None or o.value is None else self._value > o.value

    def __ge__(self, o):
        o = as_dimension(o)
        return None if self._value is None or o.value is None else self._value >= o.value


def as_dimension(value):
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(d):
    return d.value if isinstance(d, Dimension) else d


class TensorShape(object):
    """A possibly partial shape: unknown rank (dims None) or known rank with
    dims that may be unknown."""

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = None if dims._dims is None else list(dims._dims)
        elif hasattr(dims, "dim") and hasattr(dims, "unknown_rank"):  # TensorShapeProto
            self._dims = None if dims.unknown_rank else [Dimension(d.size if d.size >= 0 else None) for d in dims.dim]
        else:
            try:
                it = iter(dims)
            except TypeError:
                self._dims = [as_dimension(dims)]
            else:
                self._dims = [as_dimension(d) for d in it]

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    @property
    def ndims(self):
        return None if self._dims is None else len(self._dims)

    @property
    def rank(self):
        return self.ndims

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is not None:
            if isinstance(key, slice):
                return TensorShape(self._dims[key])
            return self._dims[key]
        if isinstance(key, slice):
            return unknown_shape()
        return Dimension(None)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d.value
        return n

    def is_fully_defined(self):
        return self._dims is not None and all(d.value is not None for d in self._dims)

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError("Shape %s is not fully defined" % self)

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return [d.value for d in self._dims]

    def _as_flowvm(self):
        """None (unknown rank) or a list with None for unknown dims."""
        return None if self._dims is None else [d.value for d in self._dims]

    def as_proto(self):
        from flowvm import tensor_shape_pb2
        p = tensor_shape_pb2.TensorShapeProto()
        if self._dims is None:
            p.unknown_rank = True
        else:
            for d in self._dims:
                p.dim.add(size=-1 if d.value is None else d.value)
        return p

    def is_compatible_with(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a.is_compatible_with(b) for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are incompatible" % (self, other))

    def merge_with(self, other):
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if len(self._dims) != len(other._dims):
            raise ValueError("Shapes %s and %s are not compatible" % (self, other))
        try:
            return TensorShape([a.merge_with(b) for a, b in zip(self._dims, other._dims)])
        except ValueError:
            raise ValueError("Shapes %s and %s are not compatible" % (self, other))

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return unknown_shape()
        return TensorShape(self._dims + other._dims)

    def with_rank(self, rank):
        return self.merge_with(unknown_shape(rank=rank))

    def with_rank_at_least(self, rank):
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError("Shape %s must have rank at least %d" % (self, rank))
        return self

    def with_rank_at_most(self, rank):
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError("Shape %s must have rank at most %d" % (self, rank))
        return self

    def assert_has_rank(self, rank):
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError("Shape %s must have rank %d" % (self, rank))

    def assert_same_rank(self, other):
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and len(self._dims) != len(other._dims):
            raise ValueError("Shapes %s and %s must have the same rank" % (self, other))

    def most_specific_compatible_shape(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return unknown_shape()
        return TensorShape([a if a.value == b.value else Dimension(None) for a, b in zip(self._dims, other._dims)])

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except TypeError:
            return NotImplemented
        return self._dims == other._dims if self._dims is not None and other._dims is not None and \
            all(a.value == b.value for a, b in zip(self._dims, other._dims)) and \
            len(self._dims) == len(other._dims) else (self._dims is None and other._dims is None)

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return hash(None if self._dims is None else tuple(d.value for d in self._dims))

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape(%r)" % [d.value for d in self._dims]

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return "(%s,)" % self._dims[0]
        return "(%s)" % ", ".join(str(d) for d in self._dims)

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)


def as_shape(shape):
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None, ndims=None):
    if ndims is not None:
        rank = ndims
    if rank is None:
        return TensorShape(None)
    return TensorShape([Dimension(None)] * rank)


def scalar():
    return TensorShape([])


def vector(length):
    return TensorShape([length])


def matrix(rows, cols):
    return TensorShape([rows, cols])
