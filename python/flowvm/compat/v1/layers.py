"""tf.layers: layer classes and their functional forms."""
from flowvm.tf.layers.layers import *  # noqa: F401,F403
