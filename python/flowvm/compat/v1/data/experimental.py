"""tf.data.experimental: the transformations used with Dataset.apply, and AUTOTUNE."""
from flowvm.tf.data.ops.dataset_ops import AUTOTUNE  # noqa: F401
from flowvm.tf.data.ops.options import (  # noqa: F401
    OptimizationOptions, ThreadingOptions, StatsOptions, DistributeOptions)
from flowvm.tf.data.experimental.ops.batching import map_and_batch, unbatch  # noqa: F401
from flowvm.tf.data.experimental.ops.shuffle_ops import shuffle_and_repeat  # noqa: F401
from flowvm.tf.data.experimental.ops.interleave_ops import parallel_interleave  # noqa: F401
