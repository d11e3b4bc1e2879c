"""Queues, QueueRunner, Coordinator and tf.train.batch. Every blocking run
has a timeout (RunOptions.timeout_in_ms) or a closed queue to end it, and
every thread is joined with a bound."""
import threading

import numpy as np
import pytest

import flowvm.compat.v1 as tf
from flowvm.tf.ops import gen_ops

JOIN_SECS = 30


def _opts(ms=20000):
    return tf.RunOptions(timeout_in_ms=ms)


def test_fifo_queue_ops_names_and_shapes():
    q = tf.FIFOQueue(4, [tf.float32, tf.int32], shapes=[[2], []], name="q")
    assert q.name == "q" and q.dtypes == [tf.float32, tf.int32]
    assert [s.as_list() for s in q.shapes] == [[2], []]
    enq = q.enqueue([[1.0, 2.0], 5])
    many = q.enqueue_many([[[3.0, 3.0], [4.0, 4.0]], [7, 8]])
    deq = q.dequeue()
    assert deq[0].op.name == "q_Dequeue" and deq[0].shape.as_list() == [2]
    deqm = q.dequeue_many(2)
    assert deqm[0].shape.as_list() == [2, 2] and deqm[1].shape.as_list() == [2]
    upto = q.dequeue_up_to(5)
    assert upto[0].shape.as_list() == [None, 2]
    with pytest.raises(ValueError):
        q.enqueue([[1.0, 2.0, 3.0], 5])  # wrong shape
    with pytest.raises(ValueError):
        q.enqueue([[1.0, 2.0]])  # one component missing
    with tf.Session() as sess:
        sess.run(enq)
        sess.run(many)
        assert sess.run(q.size()) == 3
        x, y = sess.run(deq)
        np.testing.assert_array_equal(x, [1.0, 2.0])
        assert y == 5
        xs, ys = sess.run(deqm)
        np.testing.assert_array_equal(ys, [7, 8])
        assert not sess.run(q.is_closed())
        sess.run(enq)
        sess.run(q.close())
        assert sess.run(q.is_closed())
        xs, ys = sess.run(upto, options=_opts())  # what is left, fewer than asked
        np.testing.assert_array_equal(ys, [5])
        with pytest.raises(tf.errors.OutOfRangeError) as e:
            sess.run(deq, options=_opts())
        assert "q_Dequeue" in str(e.value)
        with pytest.raises(tf.errors.CancelledError):
            sess.run(enq, options=_opts())


def test_single_component_and_named_queues():
    q = tf.FIFOQueue(2, tf.int32, shapes=[])
    single = q.dequeue()
    assert isinstance(single, tf.Tensor)
    named = tf.FIFOQueue(2, [tf.int32, tf.string], names=["n", "s"])
    put = named.enqueue({"n": 3, "s": "x"})
    got = named.dequeue()
    with pytest.raises(ValueError):
        named.enqueue([3, "x"])
    with pytest.raises(ValueError):
        named.enqueue({"n": 3})
    with tf.Session() as sess:
        sess.run([q.enqueue(4)])
        assert sess.run(single) == 4
        sess.run(put)
        assert sess.run(got) == {"n": 3, "s": b"x"}


def test_dequeue_on_empty_queue_times_out():
    q = tf.FIFOQueue(1, tf.float32)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(q.dequeue(), options=_opts(100))


def test_random_shuffle_and_padding_queues():
    rq = tf.RandomShuffleQueue(100, 0, tf.int32, shapes=[], seed=3)
    fill = rq.enqueue_many([list(range(50))])
    draw = rq.dequeue_many(50)
    pq = tf.PaddingFIFOQueue(10, [tf.int32], shapes=[[None]])
    pad_in = tf.placeholder(tf.int32, [None]) if hasattr(tf, "placeholder") else \
        gen_ops.placeholder(tf.int32, shape=[None])
    put = pq.enqueue([pad_in])
    batch = pq.dequeue_many(2)
    with pytest.raises(ValueError):
        tf.PaddingFIFOQueue(10, [tf.int32], shapes=None)
    with tf.Session() as sess:
        sess.run(fill)
        out = sess.run(draw, options=_opts())
        assert sorted(out.tolist()) == list(range(50)) and out.tolist() != list(range(50))
        sess.run(put, {pad_in: [1, 2, 3]})
        sess.run(put, {pad_in: [4]})
        np.testing.assert_array_equal(sess.run(batch, options=_opts()), [[1, 2, 3], [4, 0, 0]])


def test_queue_runner_producer_consumer_with_coordinator():
    counter = tf.Variable(0, name="counter")
    inc = tf.assign_add(counter, 1)
    q = tf.FIFOQueue(5, tf.int32, shapes=[])
    qr = tf.train.QueueRunner(q, [q.enqueue(inc)] * 2)
    tf.train.add_queue_runner(qr)
    assert tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS) == [qr]
    item = q.dequeue()
    with tf.Session() as sess:
        sess.run(counter.initializer)
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        assert len(threads) == 3  # two enqueue threads and the canceller
        assert tf.train.start_queue_runners(sess=sess, coord=coord) == []  # already running
        got = [int(sess.run(item, options=_opts())) for _ in range(20)]
        assert len(set(got)) == 20 and min(got) >= 1
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=JOIN_SECS)
        assert not any(t.is_alive() for t in threads)


def test_input_exhausted_closes_the_queue_and_consumers_see_out_of_range():
    source = tf.FIFOQueue(10, tf.int32, shapes=[])
    fill = source.enqueue_many([[1, 2, 3, 4, 5]])
    close = source.close()
    out = tf.FIFOQueue(2, tf.int32, shapes=[])
    tf.train.add_queue_runner(tf.train.QueueRunner(out, [out.enqueue(source.dequeue())]))
    item = out.dequeue()
    got = []
    with tf.Session() as sess:
        sess.run(fill)
        sess.run(close)
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            while not coord.should_stop():
                got.append(int(sess.run(item, options=_opts())))
        except tf.errors.OutOfRangeError:
            coord.request_stop()
        coord.join(threads, stop_grace_period_secs=JOIN_SECS)
    assert got == [1, 2, 3, 4, 5]


def test_runner_errors_reach_the_coordinator():
    q = tf.FIFOQueue(2, tf.float32, shapes=[])
    bad = gen_ops.placeholder(tf.float32, shape=[], name="never_fed")
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue(bad)]))
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert coord.wait_for_stop(JOIN_SECS)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            coord.join(threads, stop_grace_period_secs=JOIN_SECS)
        assert "never_fed" in str(e.value)


def test_coordinator_semantics():
    coord = tf.train.Coordinator()
    assert not coord.should_stop()
    with coord.stop_on_exception():
        raise tf.errors.OutOfRangeError(None, None, "done")  # a clean stop
    assert coord.should_stop()
    coord.join([])
    coord.clear_stop()
    assert not coord.should_stop()

    def worker():
        with coord.stop_on_exception():
            raise RuntimeError("boom")

    t = threading.Thread(target=worker)
    coord.register_thread(t)
    t.start()
    with pytest.raises(RuntimeError, match="boom"):
        coord.join(stop_grace_period_secs=JOIN_SECS)
    assert coord.joined
    coord.clear_stop()
    release = threading.Event()
    stuck = threading.Thread(target=release.wait, args=(JOIN_SECS,))
    stuck.start()
    coord.request_stop()
    with pytest.raises(RuntimeError, match="threads still running"):
        coord.join([stuck], stop_grace_period_secs=0.01)
    release.set()
    stuck.join(JOIN_SECS)
    with pytest.raises(ValueError):
        coord.request_stop(ValueError("after join"))  # joined: raised at once


def test_train_batch_and_shuffle_batch():
    counter = tf.Variable(0, name="counter")
    value = tf.assign_add(counter, 1)
    b = tf.train.batch([value], batch_size=4, capacity=8)
    assert isinstance(b, tf.Tensor) and b.shape.as_list() == [4] and b.op.name == "batch"
    d = tf.train.batch({"x": value, "y": gen_ops.mul(value, 10)}, batch_size=3, capacity=8)
    sb = tf.train.shuffle_batch([value], batch_size=5, capacity=20, min_after_dequeue=5, seed=1)
    summaries = [s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)]
    assert "batch/fraction_of_8_full" in summaries
    with tf.Session() as sess:
        sess.run(counter.initializer)
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        first = sess.run(b, options=_opts())
        assert first.shape == (4,) and list(first) == sorted(first)
        dd = sess.run(d, options=_opts())
        np.testing.assert_array_equal(dd["y"], dd["x"] * 10)
        assert sess.run(sb, options=_opts()).shape == (5,)
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=JOIN_SECS)
    with pytest.raises(ValueError):
        tf.train.batch([gen_ops.placeholder(tf.float32, shape=[None])], batch_size=2)
