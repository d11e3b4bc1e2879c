"""tf.linalg: the linear-algebra functions flowvm supports."""
from flowvm.tf.ops.array_ops import eye, matrix_transpose as transpose  # noqa: F401
from flowvm.tf.ops.math_ops import (  # noqa: F401
    l2_normalize, matmul, matrix_determinant as det, matrix_inverse as inv, norm, tensordot)
