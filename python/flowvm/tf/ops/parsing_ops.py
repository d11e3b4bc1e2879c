"""Decoding records read by the input pipelines (tf.decode_raw,
tf.decode_csv) and the file ops of tf.io (read_file, write_file,
matching_files)."""
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.ops import gen_ops

__all__ = ["decode_raw", "decode_csv", "read_file", "write_file", "matching_files"]


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):  # noqa: A002
    """The bytes of each string reinterpreted as a vector of `out_type`
    (all strings of one length); the result has one dimension more."""
    if input_bytes is None:
        input_bytes = bytes
    if input_bytes is None or out_type is None:
        raise ValueError("decode_raw needs input_bytes and out_type")
    return gen_ops.decode_raw(input_bytes, out_type=dtypes.as_dtype(out_type), little_endian=little_endian,
                              name=name)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None, na_value="",
               select_cols=None):
    """The columns of CSV `records`, one tensor each: record_defaults gives
    each column's type and the value of an empty field (an empty default
    makes the field required)."""
    defaults = [ops.convert_to_tensor(d, name="record_default") for d in record_defaults]
    return gen_ops.decode_csv(records, defaults, field_delim=field_delim, use_quote_delim=use_quote_delim,
                              na_value=na_value, select_cols=list(select_cols or []), name=name)


def read_file(filename, name=None):
    """The whole file as a scalar string."""
    return gen_ops.read_file(filename, name=name)


def write_file(filename, contents, name=None):
    """Writes `contents` as the whole file."""
    return gen_ops.write_file(filename, contents, name=name)


def matching_files(pattern, name=None):
    """The sorted names of the files matching glob pattern(s)."""
    return gen_ops.matching_files(pattern, name=name)
