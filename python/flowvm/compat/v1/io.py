"""tf.io: decoding records, reading and writing whole files."""
from flowvm.tf.ops.parsing_ops import decode_raw, decode_csv, read_file, write_file, matching_files  # noqa: F401
