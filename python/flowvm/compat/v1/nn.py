"""tf.nn: neural-network ops under TensorFlow 1.x's tf.nn names."""
from flowvm.tf.nn_ops import *  # noqa: F401,F403
from flowvm.tf.math_ops import log_sigmoid  # noqa: F401
