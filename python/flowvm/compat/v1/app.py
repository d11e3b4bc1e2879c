"""tf.app."""
from flowvm.tf.platform.app import run  # noqa: F401
from flowvm.compat.v1 import flags  # noqa: F401
