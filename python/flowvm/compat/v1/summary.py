"""tf.summary."""
from flowvm.tf.summary.summary import (scalar, histogram, image, text, tensor_summary, audio, merge,  # noqa: F401
                                       merge_all, get_summary_description)
from flowvm.tf.summary.writer.writer import FileWriter  # noqa: F401
from flowvm.tf.summary.writer.writer_cache import FileWriterCache  # noqa: F401
from flowvm.summary_pb2 import Summary, SummaryDescription, SummaryMetadata  # noqa: F401
from flowvm.event_pb2 import Event, SessionLog, TaggedRunMetadata  # noqa: F401
