"""tf.train.write_graph (TensorFlow's framework/graph_io.py)."""
import os

from flowvm.tf.framework import ops


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Writes the graph to logdir/name (text or binary GraphDef), creating
    logdir; returns the path."""
    from google.protobuf import text_format
    gd = graph_or_graph_def.as_graph_def() if isinstance(graph_or_graph_def, ops.Graph) else graph_or_graph_def
    if logdir and not os.path.isdir(logdir):
        os.makedirs(logdir)
    path = os.path.join(logdir, name)
    tmp = path + ".tmp"
    if as_text:
        with open(tmp, "w") as f:
            f.write(text_format.MessageToString(gd))
    else:
        with open(tmp, "wb") as f:
            f.write(gd.SerializeToString())
    os.replace(tmp, path)
    return path
