"""tf.summary.FileWriter over flowvm's event-file
writer (_flowvm.SummaryWriter): TensorBoard event files that `flowvm board`
and TensorBoard read. Events are queued in memory and written by the
writer's thread every flush_secs, when max_queue are pending, and on
flush() and close(). Thread-safe."""
import threading
import time

from flowvm import _flowvm
from flowvm.tf.framework import ops

__all__ = ["FileWriter"]


class FileWriter(object):
    """tf.summary.FileWriter(logdir, graph=None, max_queue=10, flush_secs=120,
    graph_def=None, filename_suffix=None, session=None)."""

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None, filename_suffix=None,
                 session=None):
        if session is not None:
            raise NotImplementedError("FileWriter(session=...): the summary-writer ops of TF 2 are not "
                                      "supported; use the default FileWriter")
        self._logdir = str(logdir)
        self._max_queue = max_queue
        self._flush_secs = flush_secs
        self._suffix = filename_suffix or ""
        self._lock = threading.Lock()
        self._seen_summary_tags = set()
        self._closed = False
        self._writer = _flowvm.SummaryWriter(self._logdir, max(1, int(max_queue)), float(flush_secs), self._suffix)
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)

    def get_logdir(self):
        return self._logdir

    @property
    def event_file_path(self):
        return self._writer.path

    def _event(self, step=None):
        from flowvm import event_pb2
        e = event_pb2.Event()
        e.wall_time = time.time()
        if step is not None:
            e.step = int(step)
        return e

    def add_event(self, event):
        """Queues an Event proto (or its serialization)."""
        if self._closed:
            return
        data = event if isinstance(event, bytes) else event.SerializeToString()
        self._writer.add_event(data)

    def add_summary(self, summary, global_step=None):
        """Queues a Summary: the bytes a summary op returns, or the proto.
        Plugin metadata is written with the first value of each tag only."""
        from flowvm import summary_pb2
        if isinstance(summary, bytes):
            parsed = summary_pb2.Summary()
            parsed.ParseFromString(summary)
            summary = parsed
        elif not isinstance(summary, summary_pb2.Summary):
            raise TypeError("add_summary takes a Summary proto or its serialization, not %s" % type(summary))
        with self._lock:
            for value in summary.value:
                if not value.HasField("metadata"):
                    continue
                if value.tag in self._seen_summary_tags:
                    value.ClearField("metadata")
                else:
                    self._seen_summary_tags.add(value.tag)
        e = self._event(global_step)
        e.summary.CopyFrom(summary)
        self.add_event(e)

    def add_session_log(self, session_log, global_step=None):
        e = self._event(global_step)
        e.session_log.CopyFrom(session_log)
        self.add_event(e)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Queues the graph (a tf.Graph, or a GraphDef) for TensorBoard's graph view."""
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if isinstance(graph, ops.Graph):
            gd = graph.as_graph_def(add_shapes=True)
        elif graph is not None:
            gd = graph  # a GraphDef passed as the graph (TF 1.x accepts it, deprecated)
        elif graph_def is not None:
            gd = graph_def
        else:
            raise ValueError("add_graph needs a graph or a graph_def")
        if not hasattr(gd, "SerializeToString"):
            raise TypeError("add_graph: %s is neither a tf.Graph nor a GraphDef" % type(gd))
        e = self._event(global_step)
        e.graph_def = gd.SerializeToString()
        self.add_event(e)

    def add_meta_graph(self, meta_graph_def, global_step=None):
        """Queues a MetaGraphDef (TensorBoard reads its graph and collections)."""
        from flowvm import meta_graph_pb2
        if not isinstance(meta_graph_def, meta_graph_pb2.MetaGraphDef):
            raise TypeError("meta_graph_def must be type MetaGraphDef, saw type: %s" % type(meta_graph_def))
        e = self._event(global_step)
        e.meta_graph_def = meta_graph_def.SerializeToString()
        self.add_event(e)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Queues a RunMetadata (the step stats of a traced run) under `tag`."""
        e = self._event(global_step)
        e.tagged_run_metadata.tag = tag
        e.tagged_run_metadata.run_metadata = run_metadata.SerializeToString()
        self.add_event(e)

    def flush(self):
        """Writes every queued event to the file."""
        if not self._closed:
            self._writer.flush()

    def close(self):
        """Flushes and closes the file; later events are dropped until reopen()."""
        if not self._closed:
            self._closed = True
            self._writer.close()

    def reopen(self):
        """After close(): a new event file in the same directory."""
        if self._closed:
            self._writer = _flowvm.SummaryWriter(self._logdir, max(1, int(self._max_queue)),
                                                 float(self._flush_secs), self._suffix)
            self._closed = False

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.close()
        return False

