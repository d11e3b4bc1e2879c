"""tf.summary.FileWriterCache (TensorFlow's summary/writer/writer_cache.py)."""
import threading

from flowvm.tf.framework import ops
from flowvm.tf.summary.writer.writer import FileWriter

__all__ = ["FileWriterCache"]


class FileWriterCache(object):
    """One FileWriter per log directory, shared by whoever asks for it."""

    _cache = {}
    _lock = threading.RLock()

    @staticmethod
    def clear():
        with FileWriterCache._lock:
            for w in FileWriterCache._cache.values():
                w.close()
            FileWriterCache._cache = {}

    @staticmethod
    def get(logdir):
        with FileWriterCache._lock:
            w = FileWriterCache._cache.get(logdir)
            if w is None:
                w = FileWriter(logdir, graph=ops.get_default_graph())
                FileWriterCache._cache[logdir] = w
            return w
