"""tf.train.QueueRunner, add_queue_runner, start_queue_runners.

A QueueRunner keeps a queue filled: one thread per enqueue op, each running
its op in a loop until the coordinator stops or the op fails. When every
thread of a session has seen the queue closed (an OutOfRangeError from an
input queue upstream) the queue is closed, so its consumers get
OutOfRangeError once it is drained. With a coordinator, one more thread
cancels pending enqueues when a stop is requested, so that no thread stays
blocked on a full queue; any other error is reported to the coordinator.
"""
import logging
import threading
import weakref

from flowvm.tf.client import session as session_lib
from flowvm.tf.framework import errors
from flowvm.tf.framework import ops

__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]

_log = logging.getLogger("flowvm")


class QueueRunner(object):
    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None, import_scope=None):
        if queue_runner_def is not None:
            raise NotImplementedError("QueueRunner(queue_runner_def=...): QueueRunnerDef protos are not supported")
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else queue.close(cancel_pending_enqueues=True)
        if queue_closed_exception_types is None:
            queue_closed_exception_types = (errors.OutOfRangeError,)
        else:
            queue_closed_exception_types = tuple(queue_closed_exception_types)
            for t in queue_closed_exception_types:
                if not (isinstance(t, type) and issubclass(t, errors.OpError)):
                    raise TypeError("queue_closed_exception_types, when provided, must contain tf.errors.OpError "
                                    "subclasses: %s" % (queue_closed_exception_types,))
        self._queue_closed_exception_types = queue_closed_exception_types
        self._lock = threading.Lock()
        self._runs_per_session = weakref.WeakKeyDictionary()
        self._exceptions_raised = []

    @property
    def queue(self):
        return self._queue

    @property
    def enqueue_ops(self):
        return self._enqueue_ops

    @property
    def close_op(self):
        return self._close_op

    @property
    def cancel_op(self):
        return self._cancel_op

    @property
    def queue_closed_exception_types(self):
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self):
        """Exceptions the threads raised when there was no coordinator to report to."""
        return self._exceptions_raised

    @property
    def name(self):
        return self._queue.name

    def _run(self, sess, enqueue_op, coord):
        counted_down = False
        try:
            enqueue = sess.make_callable(enqueue_op)
            while True:
                if coord is not None and coord.should_stop():
                    break
                try:
                    enqueue()
                except self._queue_closed_exception_types:
                    # An upstream queue is done: the last thread closes ours.
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        counted_down = True
                        last = self._runs_per_session[sess] == 0
                    if last:
                        try:
                            sess.run(self._close_op)
                        except Exception as e:  # noqa: BLE001 - the session may be gone
                            _log.debug("QueueRunner: ignored %s", e)
                    return
        except Exception as e:  # noqa: BLE001 - reported, as TensorFlow's
            if coord is not None:
                coord.request_stop(e)
            else:
                _log.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not counted_down:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, cancel_op, coord):
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as e:  # noqa: BLE001 - the session may be closed already
            _log.debug("QueueRunner: ignored %s", e)

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """The threads that run the enqueue ops in `sess` (none if they already run there)."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord),
                                    name="QueueRunnerThread-%s-%s" % (self.name, op.name))
                   for op in self._enqueue_ops]
        if coord is not None:
            threads.append(threading.Thread(target=self._close_on_stop, args=(sess, self._cancel_op, coord),
                                            name="QueueRunnerThread-%s-close_on_stop" % self.name))
        for t in threads:
            if coord is not None:
                coord.register_thread(t)
            if daemon:
                t.daemon = True
            if start:
                t.start()
        return threads

    def to_proto(self, export_scope=None):
        raise NotImplementedError("QueueRunner.to_proto: QueueRunnerDef protos are not supported")


def add_queue_runner(qr, collection=ops.GraphKeys.QUEUE_RUNNERS):
    ops.add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True, collection=ops.GraphKeys.QUEUE_RUNNERS):
    """Starts the threads of every QueueRunner in the collection of sess's graph; returns them."""
    if sess is None:
        sess = ops.get_default_session()
        if not sess:
            raise ValueError("Cannot start queue runners: No default session is registered. Use `with "
                             "sess.as_default()` or pass an explicit session to tf.start_queue_runners(sess=sess)")
    if not isinstance(sess, session_lib.BaseSession):
        if sess.__class__.__name__ in ("MonitoredSession", "SingularMonitoredSession"):
            return []  # those start their own
        raise TypeError("sess must be a `tf.Session` object. Given class: {}".format(sess.__class__))
    runners = sess.graph.get_collection(collection)
    if not runners:
        _log.warning("`tf.train.start_queue_runners()` was called when no queue runners were defined.")
    threads = []
    with sess.graph.as_default():
        for qr in runners:
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
