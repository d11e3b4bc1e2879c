"""tf.train.MonitoredTrainingSession, MonitoredSession,
SingularMonitoredSession, Scaffold and the session creators.

A MonitoredSession initializes the model or restores it from the newest
checkpoint (chief), or waits until the chief has (worker); runs the hooks
around each run; and, when a task of the cluster fails mid-run
(AbortedError or UnavailableError), closes the session and creates a new
one (restoring from the checkpoint), as TensorFlow's _RecoverableSession.
"""
import sys
import time

from flowvm.tf.client import session as session_lib
from flowvm.tf.framework import errors
from flowvm.tf.framework import ops
from flowvm.tf.ops import control_flow_ops
from flowvm.tf.ops import variables
from flowvm.tf.platform import tf_logging as logging
from flowvm.tf.summary import summary as summary_ops
from flowvm.tf.training import basic_session_run_hooks as hooks_lib
from flowvm.tf.training import coordinator
from flowvm.tf.training import queue_runner
from flowvm.tf.training import saver as saver_lib
from flowvm.tf.training.session_run_hook import SessionRunArgs, SessionRunContext, SessionRunValues  # noqa: F401

_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)
USE_DEFAULT = object()


class Scaffold(object):
    """The ops a monitored session needs; finalize() fills in TensorFlow's
    defaults (global_variables_initializer, report_uninitialized_variables,
    local variables' initializer, merge_all, a Saver) and finalizes the graph."""

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None,
                 ready_for_local_init_op=None, local_init_op=None, summary_op=None, saver=None,
                 copy_from_scaffold=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")
            c = copy_from_scaffold
            init_op = init_op or c.init_op
            init_feed_dict = init_feed_dict or c._init_feed_dict
            init_fn = init_fn or c._user_init_fn
            ready_op = ready_op or c.ready_op
            ready_for_local_init_op = ready_for_local_init_op or c.ready_for_local_init_op
            local_init_op = local_init_op or c.local_init_op
            summary_op = summary_op or c.summary_op
            saver = saver or c.saver
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._summary_op = summary_op
        self._saver = saver

    def finalize(self):
        g = ops.get_default_graph()
        if self._init_op is None:
            self._init_op = Scaffold.get_or_default("init_op", ops.GraphKeys.INIT_OP,
                                                    variables.global_variables_initializer)
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default("ready_op", ops.GraphKeys.READY_OP,
                                                     variables.report_uninitialized_variables)
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op", ops.GraphKeys.READY_FOR_LOCAL_INIT_OP,
                lambda: variables.report_uninitialized_variables(variables.global_variables(),
                                                                 name="report_uninitialized_global_variables"))
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", ops.GraphKeys.LOCAL_INIT_OP,
                lambda: control_flow_ops.group(variables.local_variables_initializer(), name="local_init"))
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default("summary_op", ops.GraphKeys.SUMMARY_OP,
                                                       summary_ops.merge_all)
        if self._saver is None:
            self._saver = Scaffold.get_or_default(
                "saver", ops.GraphKeys.SAVERS, lambda: saver_lib.Saver(sharded=True, allow_empty=True))
        if not g.finalized:
            g.finalize()
            logging.info("Graph was finalized.")
        return self

    @property
    def init_fn(self):
        return self._init_fn

    @property
    def init_op(self):
        return self._init_op

    @property
    def ready_op(self):
        return self._ready_op

    @property
    def ready_for_local_init_op(self):
        return self._ready_for_local_init_op

    @property
    def local_init_op(self):
        return self._local_init_op

    @property
    def summary_op(self):
        return self._summary_op

    @property
    def saver(self):
        return self._saver

    @property
    def init_feed_dict(self):
        return self._init_feed_dict

    @staticmethod
    def get_or_default(arg_name, collection_key, default_constructor):
        elements = ops.get_collection(collection_key)
        if not elements and ops.get_default_graph().finalized:
            return None  # another scaffold finalized the graph without this one
        if elements:
            if len(elements) > 1:
                raise RuntimeError("More than one item in the collection \"%s\". Please indicate which one to use "
                                   "by passing it to the tf.Scaffold constructor as:  tf.Scaffold(%s=item to use)"
                                   % (collection_key, arg_name))
            return elements[0]
        op = default_constructor()
        if op is not None and op not in ops.get_collection(collection_key):
            ops.add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op():
        return control_flow_ops.group(variables.local_variables_initializer())


# ---- SessionManager (what the creators use) -----------------------------------
def _ready(sess, op, what):
    """(True, None) when op reports no uninitialized variable."""
    if op is None:
        return True, None
    try:
        names = sess.run(op)
    except errors.FailedPreconditionError as e:
        return False, "%s: %s" % (what, e.message)
    if names is None or getattr(names, "size", 0) == 0:
        return True, None
    return False, "Variables not initialized: " + ", ".join(
        n.decode() if isinstance(n, bytes) else str(n) for n in names.ravel())


class SessionManager(object):
    """Creates sessions that restore or initialize the model (chief), or
    wait until another task has (workers)."""

    def __init__(self, local_init_op=None, ready_op=None, ready_for_local_init_op=None, graph=None,
                 recovery_wait_secs=30, local_init_run_options=None, local_init_feed_dict=None):
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph if graph is not None else ops.get_default_graph()
        self._recovery_wait_secs = recovery_wait_secs
        self._local_init_feed_dict = local_init_feed_dict

    def _new_session(self, master, config):
        return session_lib.Session(master, graph=self._graph, config=config)

    def _restore_checkpoint(self, master, saver, checkpoint_dir, checkpoint_filename_with_path, config):
        sess = self._new_session(master, config)
        try:
            if checkpoint_filename_with_path:
                saver.restore(sess, checkpoint_filename_with_path)
                return sess, True
            if saver is None or not checkpoint_dir:
                return sess, False
            ckpt = saver_lib.get_checkpoint_state(checkpoint_dir)
            if ckpt is None or not ckpt.model_checkpoint_path:
                return sess, False
            saver.restore(sess, ckpt.model_checkpoint_path)
            saver.recover_last_checkpoints(list(ckpt.all_model_checkpoint_paths))
            return sess, True
        except BaseException:
            sess.close()
            raise

    def _try_run_local_init_op(self, sess):
        if self._local_init_op is None:
            return True, None
        ready, msg = _ready(sess, self._ready_for_local_init_op, "ready_for_local_init_op")
        if not ready:
            return False, msg
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict)
        return True, None

    def prepare_session(self, master, init_op=None, saver=None, checkpoint_dir=None, wait_for_checkpoint=False,
                        max_wait_secs=7200, config=None, init_feed_dict=None, init_fn=None,
                        checkpoint_filename_with_path=None):
        if wait_for_checkpoint:
            raise NotImplementedError("prepare_session(wait_for_checkpoint=True) is not supported")
        sess, restored = self._restore_checkpoint(master, saver, checkpoint_dir, checkpoint_filename_with_path,
                                                  config)
        try:
            if not restored:
                if init_op is None and not init_fn and self._local_init_op is None:
                    raise RuntimeError("Model is not initialized and no init_op or init_fn or local_init_op was "
                                       "given")
                if init_op is not None:
                    sess.run(init_op, feed_dict=init_feed_dict)
                if init_fn:
                    init_fn(sess)
            ok, msg = self._try_run_local_init_op(sess)
            if not ok:
                raise RuntimeError("Init operations did not make model ready for local_init. Init op: %s, init fn: "
                                   "%s, error: %s" % (getattr(init_op, "name", init_op), init_fn, msg))
            ready, msg = _ready(sess, self._ready_op, "ready_op")
            if not ready:
                raise RuntimeError("Init operations did not make model ready. Init op: %s, init fn: %s, local_init_op:"
                                   " %s, error: %s" % (getattr(init_op, "name", init_op), init_fn,
                                                       self._local_init_op, msg))
        except BaseException:
            sess.close()
            raise
        return sess

    def wait_for_session(self, master, config=None, max_wait_secs=float("Inf")):
        """A session once the model is ready (another task initialized it);
        DeadlineExceededError after max_wait_secs."""
        start = time.time()
        while True:
            sess = self._new_session(master, config)
            try:
                ok, msg = self._try_run_local_init_op(sess)
                if ok:
                    ok, msg = _ready(sess, self._ready_op, "ready_op")
                    if ok:
                        return sess
            except BaseException:
                sess.close()
                raise
            sess.close()
            remaining = max_wait_secs - (time.time() - start)
            if remaining <= 0:
                raise errors.DeadlineExceededError(None, None, "Session was not ready after waiting %d secs."
                                                   % max_wait_secs)
            logging.info("Waiting for model to be ready. Ready_for_local_init_op: %s, ready: %s", msg, msg)
            time.sleep(min(self._recovery_wait_secs, remaining))


class SessionCreator(object):
    def create_session(self):
        raise NotImplementedError("create_session is not implemented for %s." % self)


class ChiefSessionCreator(SessionCreator):
    """Restores from the newest checkpoint in checkpoint_dir, else runs the
    scaffold's init_op / init_fn."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._master = master
        self._config = config

    def create_session(self):
        self._scaffold.finalize()
        sm = SessionManager(local_init_op=self._scaffold.local_init_op, ready_op=self._scaffold.ready_op,
                            ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                            graph=ops.get_default_graph())
        return sm.prepare_session(self._master, saver=self._scaffold.saver, checkpoint_dir=self._checkpoint_dir,
                                  checkpoint_filename_with_path=self._checkpoint_filename_with_path,
                                  config=self._config, init_op=self._scaffold.init_op,
                                  init_feed_dict=self._scaffold.init_feed_dict, init_fn=self._scaffold.init_fn)


class WorkerSessionCreator(SessionCreator):
    """Waits (up to max_wait_secs) until the chief has initialized the model."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        self._scaffold = scaffold or Scaffold()
        self._master = master
        self._config = config
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        self._scaffold.finalize()
        sm = SessionManager(local_init_op=self._scaffold.local_init_op, ready_op=self._scaffold.ready_op,
                            ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                            graph=ops.get_default_graph(), recovery_wait_secs=1)
        return sm.wait_for_session(self._master, config=self._config, max_wait_secs=self._max_wait_secs)


# ---- the session wrappers -----------------------------------------------------
def _start_queue_runners(sess, coord):
    if not ops.get_collection(ops.GraphKeys.QUEUE_RUNNERS):
        return []
    return queue_runner.start_queue_runners(sess=sess, coord=coord, daemon=True, start=True) or []


class _HookedSession(object):
    """Runs the hooks' before_run/after_run around each run."""

    def __init__(self, sess, hooks):
        self._sess = sess
        self._hooks = hooks
        self._should_stop = False

    @property
    def graph(self):
        return self._sess.graph

    def should_stop(self):
        return self._should_stop

    def close(self):
        self._sess.close()

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self._should_stop:
            raise RuntimeError("Run called even after should_stop requested.")
        run_context = SessionRunContext(original_args=SessionRunArgs(fetches, feed_dict), session=self._sess)
        actual_fetches = {"caller": fetches}
        hook_feeds = {}
        for hook in self._hooks:
            request = hook.before_run(run_context)
            if request is None:
                continue
            if request.fetches is not None:
                actual_fetches[hook] = request.fetches
            if request.feed_dict:
                if set(hook_feeds) & set(request.feed_dict):
                    raise RuntimeError("Same tensor is fed by two hooks.")
                hook_feeds.update(request.feed_dict)
            if request.options is not None:
                raise NotImplementedError("SessionRunArgs(options=...) from hooks is not supported by flowvm")
        if hook_feeds:
            if feed_dict and set(hook_feeds) & set(feed_dict):
                raise RuntimeError("Same tensor is fed by a SessionRunHook and user.")
            merged = dict(feed_dict or {})
            merged.update(hook_feeds)
            feed_dict = merged
        outputs = self._sess.run(actual_fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata)
        for hook in self._hooks:
            hook.after_run(run_context, SessionRunValues(results=outputs.get(hook), options=options,
                                                         run_metadata=run_metadata))
        self._should_stop = self._should_stop or run_context.stop_requested
        return outputs["caller"]


class _CoordinatedSession(object):
    """A hooked session with a coordinator (and queue runners)."""

    def __init__(self, sess, coord, threads, stop_grace_period_secs):
        self._sess = sess
        self._coord = coord
        self._threads = threads
        self._grace = stop_grace_period_secs

    @property
    def graph(self):
        return self._sess.graph

    def should_stop(self):
        return self._coord.should_stop() or self._sess.should_stop()

    def run(self, *args, **kwargs):
        try:
            return self._sess.run(*args, **kwargs)
        except _PREEMPTION_ERRORS:
            raise
        except Exception:
            original = sys.exc_info()
            try:
                # A queue runner's failure explains this one better.
                self._coord.raise_requested_exception()
            except _PREEMPTION_ERRORS:
                raise
            except Exception:
                raise original[1].with_traceback(original[2])
            raise original[1].with_traceback(original[2])

    def close(self):
        self._coord.request_stop()
        try:
            self._coord.join(self._threads, stop_grace_period_secs=self._grace, ignore_live_threads=True)
        finally:
            self._sess.close()


class _MonitoredSession(object):
    def __init__(self, session_creator, hooks, should_recover, stop_grace_period_secs=120):
        self._hooks = list(hooks or [])
        for h in self._hooks:
            h.begin()
        self._creator = session_creator or ChiefSessionCreator()
        self._grace = stop_grace_period_secs
        self._should_recover = should_recover
        self._raw = None
        self._sess = None
        self._closed = False
        self._create()

    def _create_once(self):
        raw = self._creator.create_session()
        coord = coordinator.Coordinator()
        try:
            threads = _start_queue_runners(raw, coord)
            for hook in self._hooks:
                hook.after_create_session(raw, coord)
        except BaseException:
            coord.request_stop()
            raw.close()
            raise
        self._raw = raw
        return _CoordinatedSession(_HookedSession(raw, self._hooks), coord, threads, self._grace)

    def _create(self):
        while True:
            try:
                self._sess = self._create_once()
                return
            except _PREEMPTION_ERRORS as e:
                if not self._should_recover:
                    raise
                logging.info("An error was raised while a session was being created. This may be due to a "
                             "preemption of a connected worker or parameter server. A new session will be "
                             "created. Error: %s", e)
                time.sleep(1)

    @property
    def graph(self):
        return ops.get_default_graph() if self._raw is None else self._raw.graph

    def _tf_sess(self):
        return self._raw

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        while True:
            if self._sess is None:
                self._create()
            try:
                return self._sess.run(fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata)
            except _PREEMPTION_ERRORS as e:
                if not self._should_recover:
                    raise
                logging.info("An error was raised. This may be due to a preemption in a connected worker or "
                             "parameter server. The current session will be closed and a new session will be "
                             "created. Error: %s", e)
                self._close_quietly()

    def run_step_fn(self, step_fn):
        """step_fn(step_context): step_context.session is the tf.Session
        (no hooks), step_context.run_with_hooks runs through them."""
        return step_fn(_StepContext(self))

    def should_stop(self):
        if self._sess is None:
            return self._closed
        return self._sess.should_stop()

    def _close_quietly(self):
        sess, self._sess = self._sess, None
        if sess is not None:
            try:
                sess.close()
            except Exception:  # noqa: B902 - the session is being replaced anyway
                pass

    def close(self):
        self._close_internal(None)

    def _close_internal(self, exception_type=None):
        if self._closed:
            return
        self._closed = True
        try:
            if self._sess is not None and exception_type is None:
                for h in self._hooks:
                    h.end(self._raw)
        finally:
            try:
                if self._sess is not None:
                    self._sess.close()
            finally:
                self._sess = None
                self._raw = None

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None
        self._close_internal(exception_type)
        # An OutOfRangeError (the input ran out) ends training normally.
        return exception_type is None


class _StepContext(object):
    def __init__(self, monitored):
        self._m = monitored

    @property
    def session(self):
        return self._m._raw

    def run_with_hooks(self, *args, **kwargs):
        return self._m.run(*args, **kwargs)

    def request_stop(self):
        self._m._sess._sess._should_stop = True


class MonitoredSession(_MonitoredSession):
    """A session that recovers from AbortedError/UnavailableError by creating
    a new session (restored from the newest checkpoint)."""

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super(MonitoredSession, self).__init__(session_creator, hooks, should_recover=True,
                                               stop_grace_period_secs=stop_grace_period_secs)


class SingularMonitoredSession(_MonitoredSession):
    """A chief's monitored session without recovery; raw_session() is the
    tf.Session underneath."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir,
                                      checkpoint_filename_with_path=checkpoint_filename_with_path)
        super(SingularMonitoredSession, self).__init__(creator, hooks, should_recover=False,
                                                       stop_grace_period_secs=stop_grace_period_secs)

    def raw_session(self):
        return self._tf_sess()


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None, scaffold=None, hooks=None,  # noqa: N802
                             chief_only_hooks=None, save_checkpoint_secs=USE_DEFAULT,
                             save_summaries_steps=USE_DEFAULT, save_summaries_secs=USE_DEFAULT, config=None,
                             stop_grace_period_secs=120, log_step_count_steps=100, max_wait_secs=7200,
                             save_checkpoint_steps=USE_DEFAULT, summary_dir=None):
    """A MonitoredSession for training: the chief restores or initializes
    the model and saves checkpoints (every 600 s by default) and summaries
    (every 100 steps) into checkpoint_dir; other workers wait for it."""
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    scaffold = scaffold or Scaffold()
    if not is_chief:
        creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config, max_wait_secs=max_wait_secs)
        return MonitoredSession(session_creator=creator, hooks=hooks or [],
                                stop_grace_period_secs=stop_grace_period_secs)
    all_hooks = list(chief_only_hooks or [])
    creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir, master=master, config=config)
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(hooks_lib.StepCounterHook(output_dir=summary_dir, every_n_steps=log_step_count_steps))
        if (save_summaries_steps and save_summaries_steps > 0) or (save_summaries_secs and save_summaries_secs > 0):
            all_hooks.append(hooks_lib.SummarySaverHook(scaffold=scaffold, save_steps=save_summaries_steps,
                                                        save_secs=save_summaries_secs, output_dir=summary_dir))
    if checkpoint_dir:
        if (save_checkpoint_secs and save_checkpoint_secs > 0) or (save_checkpoint_steps and save_checkpoint_steps > 0):
            all_hooks.append(hooks_lib.CheckpointSaverHook(checkpoint_dir, save_steps=save_checkpoint_steps,
                                                           save_secs=save_checkpoint_secs, scaffold=scaffold))
    all_hooks.extend(hooks or [])
    return MonitoredSession(session_creator=creator, hooks=all_hooks, stop_grace_period_secs=stop_grace_period_secs)
