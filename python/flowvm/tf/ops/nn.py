"""tf.nn's namespace (TensorFlow's ops/nn.py): the neural-network ops of
nn_ops, with the math ops tf.nn also offers."""
from flowvm.tf.ops.math_ops import log_sigmoid  # noqa: F401
from flowvm.tf.ops.nn_ops import *  # noqa: F401,F403
from flowvm.tf.ops.nn_ops import __all__ as _nn_ops_all

__all__ = list(_nn_ops_all) + ["log_sigmoid"]
