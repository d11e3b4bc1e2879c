"""tf.dtypes."""
from flowvm.tf.framework.dtypes import *  # noqa: F401,F403
from flowvm.tf.framework.dtypes import DType, as_dtype  # noqa: F401
