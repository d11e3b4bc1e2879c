"""tf.constant."""
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_util


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """A Const node holding `value` (converted to `dtype`; reshaped or
    filled to `shape` when given)."""
    arr = tensor_util.to_numpy(value, dtype)
    if shape is not None:
        arr = tensor_util.reshape_constant(arr, shape, verify_shape)
    dt = dtypes.as_dtype(dtype).base_dtype if dtype is not None else dtypes.as_dtype(arr.dtype)
    g = ops.get_default_graph()
    op = g._create_op("Const", [], {"value": arr, "dtype": dt.as_datatype_enum}, name=name or "Const")
    return op.outputs[0]


def _constant_conversion(value, dtype=None, name=None):
    return constant(value, dtype=dtype, name=name)


# ops.convert_to_tensor turns Python and NumPy values into Consts through
# this (TensorFlow's constant_op registers its conversion the same way).
ops._register_constant_conversion(_constant_conversion)
