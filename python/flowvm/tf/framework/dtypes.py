"""tf.DType and the dtype constants (TensorFlow's names and enum values)."""
import numpy as np

_REF_OFFSET = 100


class DType(object):
    """The type of a tensor's elements (tf.float32, ...), with ref types."""

    __slots__ = ("_type_enum",)

    def __init__(self, type_enum):
        type_enum = int(type_enum)
        if type_enum not in _NAMES:
            raise TypeError("%d does not correspond to a valid tensorflow::DataType" % type_enum)
        self._type_enum = type_enum

    @property
    def as_datatype_enum(self):
        return self._type_enum

    @property
    def _is_ref_dtype(self):
        return self._type_enum > _REF_OFFSET

    @property
    def _as_ref(self):
        return self if self._is_ref_dtype else DType(self._type_enum + _REF_OFFSET)

    @property
    def base_dtype(self):
        return DType(self._type_enum - _REF_OFFSET) if self._is_ref_dtype else self

    @property
    def real_dtype(self):
        b = self.base_dtype
        if b == complex64:
            return float32
        if b == complex128:
            return float64
        return b

    @property
    def name(self):
        return _NAMES[self._type_enum]

    @property
    def as_numpy_dtype(self):
        return _NP[self.base_dtype._type_enum]

    @property
    def is_floating(self):
        return self.base_dtype in (float16, bfloat16, float32, float64)

    @property
    def is_integer(self):
        return self.base_dtype in (int8, int16, int32, int64, uint8, uint16, uint32, uint64)

    @property
    def is_complex(self):
        return self.base_dtype in (complex64, complex128)

    @property
    def is_bool(self):
        return self.base_dtype == bool

    @property
    def is_unsigned(self):
        return self.base_dtype in (uint8, uint16, uint32, uint64)

    @property
    def is_quantized(self):
        return self.base_dtype in (qint8, quint8, qint16, quint16, qint32)

    @property
    def is_numpy_compatible(self):
        return self.base_dtype._type_enum in _NP and not self.is_quantized

    @property
    def size(self):
        if self.base_dtype in (string, resource, variant):
            return 1
        return np.dtype(self.as_numpy_dtype).itemsize

    def _limit(self, which):
        b = self.base_dtype
        if b.is_floating and b != bfloat16:
            return getattr(np.finfo(b.as_numpy_dtype), which)
        if b.is_integer:
            return getattr(np.iinfo(b.as_numpy_dtype), which)
        if b == bool:
            return which == "max"
        raise TypeError("Cannot find %simum value of %s." % (which, self))

    @property
    def min(self):
        return self._limit("min")

    @property
    def max(self):
        return self._limit("max")

    def is_compatible_with(self, other):
        other = as_dtype(other)
        return self._type_enum in (other.as_datatype_enum, other.base_dtype.as_datatype_enum)

    def __eq__(self, other):
        if other is None:
            return False
        if not isinstance(other, DType):
            try:
                other = as_dtype(other)
            except TypeError:
                return False
        return self._type_enum == other._type_enum

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._type_enum

    def __int__(self):
        return self._type_enum

    def __repr__(self):
        return "tf." + self.name

    def __str__(self):
        return "<dtype: %r>" % self.name

    def __reduce__(self):
        return as_dtype, (self.name,)


_NAMES = {
    0: "invalid", 1: "float32", 2: "float64", 3: "int32", 4: "uint8", 5: "int16", 6: "int8",
    7: "string", 8: "complex64", 9: "int64", 10: "bool", 11: "qint8", 12: "quint8",
    13: "qint32", 14: "bfloat16", 15: "qint16", 16: "quint16", 17: "uint16", 18: "complex128",
    19: "float16", 20: "resource", 21: "variant", 22: "uint32", 23: "uint64",
}
for _k in list(_NAMES):
    if _k:
        _NAMES[_k + _REF_OFFSET] = _NAMES[_k] + "_ref"

_NP = {
    1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16, 6: np.int8,
    7: object, 8: np.complex64, 9: np.int64, 10: np.bool_, 11: np.int8, 12: np.uint8,
    13: np.int32, 15: np.int16, 16: np.uint16, 17: np.uint16, 18: np.complex128,
    19: np.float16, 22: np.uint32, 23: np.uint64,
}

float32 = DType(1)
float64 = DType(2)
double = float64
int32 = DType(3)
uint8 = DType(4)
int16 = DType(5)
int8 = DType(6)
string = DType(7)
complex64 = DType(8)
int64 = DType(9)
bool = DType(10)  # noqa: A001 - TensorFlow's name
qint8 = DType(11)
quint8 = DType(12)
qint32 = DType(13)
bfloat16 = DType(14)
qint16 = DType(15)
quint16 = DType(16)
uint16 = DType(17)
complex128 = DType(18)
float16 = DType(19)
half = float16
resource = DType(20)
variant = DType(21)
uint32 = DType(22)
uint64 = DType(23)

float32_ref = float32._as_ref
float64_ref = float64._as_ref
int32_ref = int32._as_ref
int64_ref = int64._as_ref

_BY_NAME = {v: DType(k) for k, v in _NAMES.items() if k}
_BY_NAME.update({"float": float32, "double": float64, "half": float16})

_FROM_NP = {
    np.dtype(np.float32): float32, np.dtype(np.float64): float64, np.dtype(np.int32): int32,
    np.dtype(np.int64): int64, np.dtype(np.uint8): uint8, np.dtype(np.int8): int8,
    np.dtype(np.int16): int16, np.dtype(np.uint16): uint16, np.dtype(np.uint32): uint32,
    np.dtype(np.uint64): uint64, np.dtype(np.bool_): bool, np.dtype(np.float16): float16,
    np.dtype(np.complex64): complex64, np.dtype(np.complex128): complex128,
    np.dtype(object): string,
}


def as_dtype(type_value):
    """Converts a DType, enum, name, NumPy dtype or Python type to a DType."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, int) and not isinstance(type_value, type(True)):
        return DType(type_value)
    if isinstance(type_value, str):
        if type_value in _BY_NAME:
            return _BY_NAME[type_value]
        raise TypeError("Cannot convert value %r to a TensorFlow DType." % (type_value,))
    if type_value is float:
        return float32
    if type_value is int:
        return int32
    if type_value is type(True):
        return bool
    if type_value in (bytes, str):
        return string
    try:
        npd = np.dtype(type_value)
    except TypeError:
        raise TypeError("Cannot convert value %r to a TensorFlow DType." % (type_value,))
    if npd.kind in ("S", "U", "O"):
        return string
    if npd in _FROM_NP:
        return _FROM_NP[npd]
    raise TypeError("Cannot convert value %r to a TensorFlow DType." % (type_value,))


QUANTIZED_DTYPES = frozenset([qint8, quint8, qint16, quint16, qint32])
