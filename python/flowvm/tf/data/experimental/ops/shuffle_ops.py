"""tf.data.experimental.shuffle_and_repeat."""
from flowvm.tf.data.ops import dataset_ops
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import random_seed
from flowvm.tf.ops import gen_ops

__all__ = ["shuffle_and_repeat"]


class _ShuffleAndRepeatDataset(dataset_ops.UnaryDataset):
    def __init__(self, input_dataset, buffer_size, count, seed):
        seed1, seed2 = random_seed.get_seed(seed)
        variant = gen_ops.shuffle_and_repeat_dataset(
            input_dataset._variant_tensor, ops.convert_to_tensor(buffer_size, dtype=dtypes.int64, name="buffer_size"),
            ops.convert_to_tensor(seed1 or 0, dtype=dtypes.int64, name="seed"),
            ops.convert_to_tensor(seed2 or 0, dtype=dtypes.int64, name="seed2"),
            ops.convert_to_tensor(-1 if count is None else count, dtype=dtypes.int64, name="count"),
            **input_dataset._flat_structure)
        super(_ShuffleAndRepeatDataset, self).__init__(input_dataset, variant)


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """A transformation: shuffle then repeat `count` times (None: for
    ever), each epoch in a new order."""

    def _apply_fn(dataset):
        return _ShuffleAndRepeatDataset(dataset, buffer_size, count, seed)

    return _apply_fn
