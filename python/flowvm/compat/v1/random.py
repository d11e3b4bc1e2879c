"""tf.random: random tensors and seeds under TensorFlow 1.x's tf.random names."""
from flowvm.tf.framework.random_seed import get_seed, set_random_seed  # noqa: F401
from flowvm.tf.ops.random_ops import (  # noqa: F401
    multinomial, random_crop as crop, random_gamma as gamma, random_normal as normal, random_poisson as poisson,
    random_shuffle as shuffle, random_uniform as uniform, truncated_normal)
