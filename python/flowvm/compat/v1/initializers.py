"""tf.initializers."""
from flowvm.tf.ops.init_ops import (  # noqa: F401
    Zeros as zeros, Ones as ones, Constant as constant, RandomUniform as random_uniform,
    RandomNormal as random_normal, TruncatedNormal as truncated_normal, UniformUnitScaling as uniform_unit_scaling,
    VarianceScaling as variance_scaling, Orthogonal as orthogonal, Identity as identity,
    GlorotUniform as glorot_uniform, GlorotNormal as glorot_normal, he_normal, he_uniform, lecun_normal,
    lecun_uniform)
from flowvm.tf.ops.variables import (  # noqa: F401
    global_variables_initializer as global_variables, local_variables_initializer as local_variables,
    variables_initializer as variables)
