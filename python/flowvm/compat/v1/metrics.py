"""tf.metrics: streaming metrics over local variables."""
from flowvm.tf.ops.metrics import *  # noqa: F401,F403
