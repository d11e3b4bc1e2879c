"""tf.data.experimental.parallel_interleave."""

__all__ = ["parallel_interleave"]


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None,
                        prefetch_input_elements=None):
    """A transformation: dataset.interleave(map_func, cycle_length,
    block_length). The order is TensorFlow's deterministic one (which
    `sloppy=True` permits too); the buffering arguments are accepted."""
    del sloppy, buffer_output_elements, prefetch_input_elements

    def _apply_fn(dataset):
        return dataset.interleave(map_func, cycle_length=cycle_length, block_length=block_length)

    return _apply_fn
