"""The file datasets: TFRecordDataset, TextLineDataset and
FixedLengthRecordDataset. Files stream through a buffer (a file is never
read whole into memory), plain or ZLIB/GZIP-compressed; a damaged TFRecord
is a DataLossError naming the file and the offset.

`filenames` is a string, a list of them, a string tensor, or a dataset of
scalar strings. Files are read one after the other, or, with
num_parallel_reads, `num_parallel_reads` at a time, one record from each
in turn (TensorFlow's deterministic interleave order).
"""
from flowvm.tf.data.ops import dataset_ops
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_shape
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import gen_ops

__all__ = ["TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset"]

_DEFAULT_READER_BUFFER_SIZE_BYTES = 256 * 1024


def _string_arg(value, name, default=""):
    return ops.convert_to_tensor(default if value is None else value, dtype=dtypes.string, name=name)


def _int64_arg(value, name, default):
    return ops.convert_to_tensor(default if value is None else value, dtype=dtypes.int64, name=name)


def _filenames_dataset(filenames):
    if isinstance(filenames, dataset_ops.DatasetV1):
        if filenames.output_types != dtypes.string:
            raise TypeError("`filenames` must be a `tf.data.Dataset` of `tf.string` elements.")
        if not filenames.output_shapes.is_compatible_with(tensor_shape.scalar()):
            raise TypeError("`filenames` must be a `tf.data.Dataset` of scalar `tf.string` elements.")
        return filenames
    return dataset_ops.DatasetV1.from_tensor_slices(_filenames_vector(filenames))


def _filenames_vector(filenames):
    t = ops.convert_to_tensor(filenames, name="filenames")
    if t.dtype.base_dtype != dtypes.string:
        raise TypeError("`filenames` must be a `tf.Tensor` of dtype `tf.string` dtype. Got %s" % t.dtype.name)
    return array_ops.reshape(t, [-1], name="flat_filenames")


class _FileDataset(dataset_ops.DatasetV1):
    """One reader op over a vector of files, or a flat_map / interleave of
    one reader op per file for a dataset of names or parallel reads."""

    def __init__(self, filenames, num_parallel_reads, make_reader, output_type, output_shape):
        if num_parallel_reads is None and not isinstance(filenames, dataset_ops.DatasetV1):
            impl = make_reader(_filenames_vector(filenames))
        else:
            names = _filenames_dataset(filenames)
            if num_parallel_reads is None:
                impl = names.flat_map(lambda f: dataset_ops.DatasetV1(make_reader(f), output_type, output_shape))
            else:
                impl = names.interleave(lambda f: dataset_ops.DatasetV1(make_reader(f), output_type, output_shape),
                                        cycle_length=num_parallel_reads, block_length=1)
            impl = impl._variant_tensor
        super(_FileDataset, self).__init__(impl, output_type, output_shape)


class _RecordReaderDataset(_FileDataset):
    """TFRecordDataset and TextLineDataset: one reader op taking
    (filenames, compression_type, buffer_size)."""

    def __init__(self, reader_op, scope, filenames, compression_type, buffer_size, num_parallel_reads):
        with ops.name_scope(scope):
            compression = _string_arg(compression_type, "compression_type")
            size = _int64_arg(buffer_size, "buffer_size", _DEFAULT_READER_BUFFER_SIZE_BYTES)

            def reader(names):
                return reader_op(array_ops.reshape(names, [-1]), compression, size)

            super(_RecordReaderDataset, self).__init__(filenames, num_parallel_reads, reader, dtypes.string,
                                                       tensor_shape.scalar())


class TFRecordDataset(_RecordReaderDataset):
    """The records of TFRecord files, as scalar strings.

    Args:
      filenames: the files (see the module's doc).
      compression_type: "" (none), "ZLIB" or "GZIP".
      buffer_size: bytes read ahead from each file (default 256 KiB).
      num_parallel_reads: files read at once (default: one at a time).
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None):
        super(TFRecordDataset, self).__init__(gen_ops.tf_record_dataset, "TFRecordDataset", filenames,
                                              compression_type, buffer_size, num_parallel_reads)


class TextLineDataset(_RecordReaderDataset):
    """The lines of text files (without their line endings), as scalar strings.

    Args: as TFRecordDataset's.
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None):
        super(TextLineDataset, self).__init__(gen_ops.text_line_dataset, "TextLineDataset", filenames,
                                              compression_type, buffer_size, num_parallel_reads)


class FixedLengthRecordDataset(_FileDataset):
    """Records of `record_bytes` bytes each, after `header_bytes` and before
    `footer_bytes` in each file, as scalar strings.

    Args: filenames, record_bytes, header_bytes, footer_bytes, buffer_size,
      compression_type, num_parallel_reads.
    """

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None,
                 compression_type=None, num_parallel_reads=None):
        with ops.name_scope("FixedLengthRecordDataset"):
            record = _int64_arg(record_bytes, "record_bytes", None)
            header = _int64_arg(header_bytes, "header_bytes", 0)
            footer = _int64_arg(footer_bytes, "footer_bytes", 0)
            size = _int64_arg(buffer_size, "buffer_size", _DEFAULT_READER_BUFFER_SIZE_BYTES)
            compression = _string_arg(compression_type, "compression_type")

            def reader(names):
                return gen_ops.fixed_length_record_dataset_v2(array_ops.reshape(names, [-1]), header, record,
                                                              footer, size, compression)

            super(FixedLengthRecordDataset, self).__init__(filenames, num_parallel_reads, reader, dtypes.string,
                                                           tensor_shape.scalar())


TFRecordDatasetV1 = TFRecordDataset
TFRecordDatasetV2 = TFRecordDataset
TextLineDatasetV1 = TextLineDataset
TextLineDatasetV2 = TextLineDataset
FixedLengthRecordDatasetV1 = FixedLengthRecordDataset
FixedLengthRecordDatasetV2 = FixedLengthRecordDataset
