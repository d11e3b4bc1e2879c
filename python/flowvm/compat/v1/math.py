"""tf.math: the math functions under TensorFlow 1.x's tf.math names."""
from flowvm.tf.ops.math_ops import (  # noqa: F401
    abs, accumulate_n, add, add_n, argmax, argmin, atan2, ceil, cos, count_nonzero, cumprod, cumsum, divide,
    div_no_nan as divide_no_nan, equal, erf, exp, expm1, floor, floordiv, floormod, greater, greater_equal,
    is_finite, is_inf, is_nan, l2_normalize, lbeta, less, less_equal, log, log1p, log_sigmoid, logical_and,
    logical_not, logical_or, logical_xor, maximum, minimum, mod, multiply, negative, not_equal, pow, realdiv,
    reciprocal, reduce_all, reduce_any, reduce_euclidean_norm, reduce_logsumexp, reduce_max, reduce_mean,
    reduce_min, reduce_prod, reduce_sum, rint, round, rsqrt, scalar_mul, sigmoid, sign, sin, sqrt, square,
    squared_difference, subtract, tan, tanh, truediv, truncatediv, truncatemod, unsorted_segment_sum)
from flowvm.tf.ops.nn_ops import in_top_k, log_softmax, softmax, softplus, softsign, top_k  # noqa: F401
