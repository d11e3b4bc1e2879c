"""tf.data.experimental's batching transformations (used with Dataset.apply)."""
from flowvm.tf.data.ops import dataset_ops
from flowvm.tf.data.ops.structured_function import StructuredFunctionWrapper
from flowvm.tf.data.util import nest
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_shape
from flowvm.tf.ops import gen_ops

__all__ = ["map_and_batch", "unbatch"]


class _MapAndBatchDataset(dataset_ops.UnaryDataset):
    """map then batch in one op (MapAndBatchDataset): the results of
    map_func written straight into their batch, num_parallel_calls at once."""

    def __init__(self, input_dataset, map_func, batch_size, num_parallel_calls, drop_remainder):
        self._map_func = StructuredFunctionWrapper(map_func, "tf.data.experimental.map_and_batch()",
                                                   dataset=input_dataset)
        f = self._map_func
        batch_size = ops.convert_to_tensor(batch_size, dtype=dtypes.int64, name="batch_size")
        calls = ops.convert_to_tensor(num_parallel_calls, dtype=dtypes.int64, name="num_parallel_calls")
        drop = ops.convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
        static_size, static_drop = dataset_ops._static_value(batch_size), dataset_ops._static_value(drop)
        dim = static_size if static_drop is True else None
        shapes = nest.map_structure(lambda s: tensor_shape.TensorShape([dim]).concatenate(s), f.output_shapes)
        variant = gen_ops.map_and_batch_dataset(input_dataset._variant_tensor, f.captured_inputs, batch_size, calls,
                                                drop, f=f.name, output_types=nest.flatten(f.output_types),
                                                output_shapes=nest.flatten(shapes))
        super(_MapAndBatchDataset, self).__init__(input_dataset, variant, f.output_types, shapes)


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    """A transformation: dataset.map(map_func).batch(batch_size, drop_remainder)
    in one op. num_parallel_batches (batches worked on at once) and
    num_parallel_calls (calls at once) are exclusive; default one batch."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("The `num_parallel_batches` and `num_parallel_calls` arguments are mutually exclusive.")
    if num_parallel_calls is None:
        num_parallel_calls = batch_size * (1 if num_parallel_batches is None else num_parallel_batches)

    def _apply_fn(dataset):
        return _MapAndBatchDataset(dataset, map_func, batch_size, num_parallel_calls, drop_remainder)

    return _apply_fn


def unbatch():
    """A transformation: dataset.unbatch()."""

    def _apply_fn(dataset):
        return dataset.unbatch()

    return _apply_fn
