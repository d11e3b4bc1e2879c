"""tf.losses: weighted, reduced losses and the LOSSES collection."""
from flowvm.tf.losses import *  # noqa: F401,F403
