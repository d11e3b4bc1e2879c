"""tf.summary's ops: scalar, histogram, image, text, tensor_summary, merge,
merge_all. Each returns a string tensor holding a serialized Summary and is
added to the SUMMARIES collection (or the given collections). The tag is
the op's scoped name ("train/loss"), prefixed by `family` when given."""
import contextlib
import re

from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.ops import gen_ops

__all__ = ["scalar", "histogram", "image", "text", "tensor_summary", "merge", "merge_all",
           "get_summary_description", "audio"]

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def _clean_tag(name):
    """Characters a tag may not hold become '_'; a leading '/' goes."""
    if name is None:
        return None
    new = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
    return new


@contextlib.contextmanager
def _summary_scope(name, family=None, default_name=None, values=None):
    name = _clean_tag(name)
    family = _clean_tag(family)
    base = name if family is None else "%s/%s" % (family, name)
    with ops.name_scope(base, default_name, values) as scope:
        tag = scope.rstrip("/")
        if family is not None:
            tag = "%s/%s" % (family, tag)
        yield tag, scope


def _collect(value, collections, default):
    if collections is None:
        collections = default
    for key in collections:
        ops.add_to_collection(key, value)


def scalar(name, tensor, collections=None, family=None):
    """A Summary with one simple_value (tensor must be a real scalar)."""
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = gen_ops.scalar_summary(tag, tensor, name=scope)
    _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def histogram(name, values, collections=None, family=None):
    """A Summary with a histogram of every element of `values`."""
    with _summary_scope(name, family, values=[values]) as (tag, scope):
        val = gen_ops.histogram_summary(tag, values, name=scope)
    _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """PNG images of the first max_outputs of a [batch, height, width, 1|3|4] tensor."""
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = gen_ops.image_summary(tag, tensor, max_images=max_outputs, name=scope)
    _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def _metadata(plugin_name, display_name=None, description=None, content=b""):
    from flowvm import summary_pb2
    m = summary_pb2.SummaryMetadata()
    m.plugin_data.plugin_name = plugin_name
    m.plugin_data.content = content
    if display_name:
        m.display_name = display_name
    if description:
        m.summary_description = description
    return m.SerializeToString()


def text(name, tensor, collections=None):
    """A string tensor as a tensor summary for the text plugin."""
    t = ops.convert_to_tensor(tensor)
    if t.dtype.base_dtype != dtypes.string:
        raise ValueError("Expected tensor %s to have dtype string, got %s" % (t.name, t.dtype))
    with _summary_scope(name, None, values=[t]) as (tag, scope):
        val = gen_ops.tensor_summary_v2(tag, t, _metadata("text"), name=scope)
    _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def tensor_summary(name, tensor, summary_description=None, collections=None, summary_metadata=None, family=None,
                   display_name=None):
    """Any tensor, whole, as a tensor summary."""
    if summary_metadata is not None:
        serialized = summary_metadata.SerializeToString() if hasattr(summary_metadata, "SerializeToString") \
            else summary_metadata
    else:
        serialized = _metadata("", display_name, summary_description)
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = gen_ops.tensor_summary_v2(tag, tensor, serialized, name=scope)
    _collect(val, collections, [ops.GraphKeys.SUMMARIES])
    return val


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    raise NotImplementedError("tf.summary.audio: flowvm has no AudioSummary op")


def merge(inputs, collections=None, name=None):
    """One Summary holding every value of `inputs` (serialized Summaries)."""
    with ops.name_scope(name, "Merge", inputs):
        val = gen_ops.merge_summary(list(inputs), name=name)
    _collect(val, collections, [])
    return val


def merge_all(key=ops.GraphKeys.SUMMARIES, scope=None, name=None):
    """merge() of the collection `key` (filtered by scope), or None if it is empty."""
    summaries = ops.get_collection(key, scope=scope)
    if not summaries:
        return None
    return merge(summaries, name=name)


def get_summary_description(node_def):
    from flowvm import summary_pb2
    if node_def.op != "TensorSummary" and node_def.op != "TensorSummaryV2":
        raise ValueError("Can't get_summary_description on %s" % node_def.op)
    desc = summary_pb2.SummaryDescription()
    attr = node_def.attr.get("description")
    if attr is not None and attr.s:
        desc.ParseFromString(attr.s)
    return desc
