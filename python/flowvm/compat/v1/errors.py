"""tf.errors."""
from flowvm.tf.framework.errors import *  # noqa: F401,F403
