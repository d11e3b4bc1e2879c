"""tf.train.MonitoredTrainingSession, MonitoredSession, Scaffold and the
standard hooks: initialize or restore, checkpoints, summaries, stopping,
NaN checks, hook protocol, recovery from preemption errors, workers."""
import glob
import os

import numpy as np
import pytest

import flowvm.compat.v1 as tf
from flowvm.tf.ops import gen_ops as g


def _model(lr=0.1):
    """y = w*x fitted to y = 2x; returns (train_op, loss, w, global_step)."""
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(0.0, name="w")
    x = tf.constant(np.linspace(-1, 1, 8).astype(np.float32))
    err = g.sub(g.mul(w, x), g.mul(x, 2.0))
    loss = g.mean(g.mul(err, err), [0], name="loss")
    tf.summary.scalar("loss", loss)
    train = tf.train.GradientDescentOptimizer(lr).minimize(loss, global_step=gs)
    return train, loss, w, gs


class _Recorder(tf.train.SessionRunHook):
    def __init__(self, fetch=None, feed=None):
        self.calls = []
        self.results = []
        self._fetch = fetch
        self._feed = feed

    def begin(self):
        self.calls.append("begin")

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")
        assert tf.get_default_graph().finalized

    def before_run(self, run_context):
        self.calls.append("before_run")
        return tf.train.SessionRunArgs(self._fetch, feed_dict=self._feed)

    def after_run(self, run_context, run_values):
        self.calls.append("after_run")
        self.results.append(run_values.results)

    def end(self, session):
        self.calls.append("end")


def test_training_saves_checkpoints_and_summaries_and_resumes(tmp_path):
    ckpt = str(tmp_path / "ckpt")
    train, loss, w, gs = _model()
    rec = _Recorder(fetch=gs)
    with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, save_checkpoint_steps=10,
                                           save_summaries_steps=5, log_step_count_steps=5,
                                           hooks=[tf.train.StopAtStepHook(last_step=20),
                                                  tf.train.NanTensorHook(loss),
                                                  tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=10),
                                                  rec]) as sess:
        steps = 0
        while not sess.should_stop():
            sess.run(train)
            steps += 1
    assert steps == 20
    assert rec.calls[:3] == ["begin", "after_create_session", "before_run"] and rec.calls[-1] == "end"
    assert rec.results[0] == 0 and rec.results[-1] == 19
    assert tf.train.latest_checkpoint(ckpt).endswith("model.ckpt-20")
    assert glob.glob(os.path.join(ckpt, "model.ckpt-10.*")) and glob.glob(os.path.join(ckpt, "model.ckpt-0.*"))
    assert os.path.exists(os.path.join(ckpt, "graph.pbtxt"))
    events = glob.glob(os.path.join(ckpt, "events.out.tfevents.*"))
    assert events
    written = b"".join(open(p, "rb").read() for p in events)
    assert b"loss" in written and b"global_step/sec" in written  # SummarySaverHook, StepCounterHook

    # A new program resumes from the checkpoint.
    tf.reset_default_graph()
    train, loss, w, gs = _model()
    with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, hooks=[tf.train.StopAtStepHook(num_steps=5)],
                                           save_summaries_steps=None, save_checkpoint_secs=None) as sess:
        first = sess.run(gs)
        assert first == 20
        trained_w = sess.run(w)
        assert abs(trained_w - 2.0) < 0.5
        while not sess.should_stop():
            sess.run(train)
    tf.reset_default_graph()
    train, loss, w, gs = _model()
    with tf.train.SingularMonitoredSession(checkpoint_dir=ckpt) as sess:
        # No checkpoint was saved at step 25 (saving was off), so step 20's is restored.
        assert sess.run(gs) == 20
        assert isinstance(sess.raw_session(), tf.Session)


def test_hooks_feed_and_fetch_and_stop():
    x = g.placeholder(tf.float32, shape=[], name="x")
    y = g.mul(x, 3.0)
    gs = tf.train.get_or_create_global_step()
    inc = tf.assign_add(gs, 1)
    rec = _Recorder(fetch={"y": y}, feed={x: 2.0})

    class Stopper(tf.train.SessionRunHook):
        def after_run(self, run_context, run_values):
            if run_values.results >= 2:
                run_context.request_stop()

        def before_run(self, run_context):
            assert run_context.original_args.fetches is inc
            return tf.train.SessionRunArgs(gs)

    with tf.train.MonitoredSession(hooks=[rec, Stopper()]) as sess:
        n = 0
        while not sess.should_stop():
            sess.run(inc)
            n += 1
        with pytest.raises(RuntimeError):
            sess.run(inc)
    assert n == 3
    assert rec.results == [{"y": 6.0}] * 3
    with tf.train.MonitoredSession(hooks=[_Recorder(feed={x: 1.0})]) as sess:
        with pytest.raises(RuntimeError):
            sess.run(y, feed_dict={x: 5.0})  # fed by a hook and the caller


def test_nan_loss_raises_and_out_of_range_ends_quietly():
    tf.train.get_or_create_global_step()
    loss = g.div(tf.constant(0.0), tf.constant(0.0))
    with pytest.raises(tf.train.NanLossDuringTrainingError):
        with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss)]) as sess:
            sess.run(loss)
    stopping = tf.train.NanTensorHook(loss, fail_on_nan_loss=False)
    with tf.train.MonitoredSession(hooks=[stopping]) as sess:
        sess.run(loss)
        assert sess.should_stop()
    end = _Recorder()
    with tf.train.MonitoredSession(hooks=[end]) as sess:
        raise tf.errors.OutOfRangeError(None, None, "input exhausted")
    assert end.calls[-1] == "end"


def test_hook_argument_errors():
    with pytest.raises(ValueError):
        tf.train.StopAtStepHook()
    with pytest.raises(ValueError):
        tf.train.StopAtStepHook(num_steps=1, last_step=2)
    with pytest.raises(ValueError):
        tf.train.CheckpointSaverHook("/tmp/x")
    with pytest.raises(ValueError):
        tf.train.SummarySaverHook(save_steps=1)
    with pytest.raises(ValueError):
        tf.train.LoggingTensorHook({"a": "b"})
    with pytest.raises(RuntimeError):  # no global step
        with tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(num_steps=1)]):
            pass


class _FlakyHook(tf.train.SessionRunHook):
    """Fails the first `n` runs as a lost parameter server would."""

    def __init__(self, n):
        self.n = n

    def after_run(self, run_context, run_values):
        if self.n > 0:
            self.n -= 1
            raise tf.errors.UnavailableError(None, None, "task /job:ps/replica:0/task:0 is unreachable")


class _CountingCreator(tf.train.ChiefSessionCreator):
    created = 0

    def create_session(self):
        _CountingCreator.created += 1
        return super(_CountingCreator, self).create_session()


def test_recovers_from_unavailable_by_restoring_a_new_session(tmp_path):
    ckpt = str(tmp_path)
    train, loss, w, gs = _model()
    with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, save_checkpoint_steps=1,
                                           save_summaries_steps=None) as sess:
        for _ in range(3):
            sess.run(train)
    tf.reset_default_graph()
    train, loss, w, gs = _model()
    _CountingCreator.created = 0
    creator = _CountingCreator(checkpoint_dir=ckpt)
    with tf.train.MonitoredSession(session_creator=creator, hooks=[_FlakyHook(2)]) as sess:
        assert sess.run(gs) == 3  # after two failed runs and two new sessions
    assert _CountingCreator.created == 3
    with pytest.raises(tf.errors.UnavailableError):
        with tf.train.SingularMonitoredSession(hooks=[_FlakyHook(1)], checkpoint_dir=ckpt) as sess:
            sess.run(gs)


def test_chief_and_worker_share_a_cluster(tmp_path):
    server = tf.train.Server.create_local_server()
    try:
        chief_graph = tf.Graph()
        with chief_graph.as_default():
            train, loss, w, gs = _model()
            with tf.train.MonitoredTrainingSession(master=server.target, is_chief=True,
                                                   hooks=[tf.train.StopAtStepHook(last_step=4)]) as sess:
                while not sess.should_stop():
                    sess.run(train)
        worker_graph = tf.Graph()
        with worker_graph.as_default():
            train, loss, w, gs = _model()
            final = tf.train.FinalOpsHook(gs)
            with tf.train.MonitoredTrainingSession(master=server.target, is_chief=False, max_wait_secs=30,
                                                   hooks=[tf.train.StopAtStepHook(last_step=6), final]) as sess:
                assert sess.run(gs) == 4  # the chief's variables, not re-initialized
                while not sess.should_stop():
                    sess.run(train)
            assert final.final_ops_values == 6
    finally:
        server.stop()


def test_worker_times_out_when_model_is_not_initialized():
    server = tf.train.Server.create_local_server()
    try:
        _model()
        creator = tf.train.WorkerSessionCreator(master=server.target, max_wait_secs=0.5)
        with pytest.raises(tf.errors.DeadlineExceededError):
            tf.train.MonitoredSession(session_creator=creator)
    finally:
        server.stop()
