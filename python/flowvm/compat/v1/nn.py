"""tf.nn: neural-network ops under TensorFlow 1.x's tf.nn names."""
from flowvm.tf.ops.nn import *  # noqa: F401,F403
