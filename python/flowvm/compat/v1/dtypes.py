"""tf.dtypes."""
from flowvm.tf.dtypes import *  # noqa: F401,F403
from flowvm.tf.dtypes import DType, as_dtype  # noqa: F401
