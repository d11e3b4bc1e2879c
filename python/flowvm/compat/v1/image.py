"""tf.image: the image functions flowvm supports."""
from flowvm.tf.ops.image_ops import *  # noqa: F401,F403
