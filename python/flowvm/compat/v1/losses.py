"""tf.losses: weighted, reduced losses and the LOSSES collection."""
from flowvm.tf.ops.losses.losses import *  # noqa: F401,F403
