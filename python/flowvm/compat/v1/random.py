"""tf.random: random tensors and seeds under TensorFlow 1.x's tf.random names."""
from flowvm.tf.random_ops import (  # noqa: F401
    get_seed, multinomial, random_crop as crop, random_gamma as gamma, random_normal as normal,
    random_poisson as poisson, random_shuffle as shuffle, random_uniform as uniform, set_random_seed,
    truncated_normal)
