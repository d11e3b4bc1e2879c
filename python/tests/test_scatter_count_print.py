"""tf.scatter_update / scatter_add / scatter_sub, tf.count_up_to and tf.Print
(the C++ ScatterUpdate, ScatterAdd, ScatterSub, CountUpTo and Print ops),
with TF 1.x's signatures and error classes."""
import collections

import numpy as np
import pytest

import flowvm.compat.v1 as tf
from flowvm.tf.ops import gen_ops

Slices = collections.namedtuple("Slices", ["values", "indices"])  # stands in for tf.IndexedSlices


def _var(value, name="v"):
    return tf.Variable(value, name=name)


def test_scatter_update_add_sub_values():
    v = _var([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    up = tf.scatter_update(v, [2, 0], [[10.0, 20.0], [30.0, 40.0]])
    add = tf.scatter_add(v, tf.constant([1, 1], tf.int64), [[1.0, 1.0], [2.0, 2.0]])  # repeats add up
    sub = tf.scatter_sub(v, [0], 1.5)  # a scalar update goes to the whole row
    assert up.dtype == tf.float32_ref and up.op.type == "ScatterUpdate"
    assert up.shape.as_list() == [3, 2]
    assert add.op.type == "ScatterAdd" and sub.op.type == "ScatterSub"
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(up), [[30, 40], [3, 4], [10, 20]])
        np.testing.assert_array_equal(sess.run(add), [[30, 40], [6, 7], [10, 20]])
        np.testing.assert_array_equal(sess.run(sub), [[28.5, 38.5], [6, 7], [10, 20]])
        np.testing.assert_array_equal(sess.run(v), [[28.5, 38.5], [6, 7], [10, 20]])


def test_scatter_defaults_match_tensorflow():
    v = _var([1, 2, 3])
    assert tf.scatter_update(v, [0], [5]).op.get_attr("use_locking") is True
    assert tf.scatter_add(v, [0], [5]).op.get_attr("use_locking") is False
    assert tf.scatter_sub(v, [0], [5], use_locking=True, name="s").op.get_attr("use_locking") is True
    assert tf.get_default_graph().get_operation_by_name("s").type == "ScatterSub"


def test_variable_scatter_methods():
    v = _var([0, 0, 0, 0])
    u = v.scatter_update(Slices(values=[7, 8], indices=[3, 1]))
    a = v.scatter_add(Slices(values=[1], indices=[3]))
    s = v.scatter_sub(Slices(values=[2, 2], indices=[0, 0]))
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(u)
        sess.run(a)
        np.testing.assert_array_equal(sess.run(s), [-4, 8, 0, 8])
    with pytest.raises(TypeError):
        v.scatter_update([1, 2])


def test_scatter_errors():
    v = _var([1.0, 2.0, 3.0], name="params")
    i = gen_ops.placeholder(tf.int32, shape=[None])
    bad = tf.scatter_add(v, i, [1.0, 1.0], name="my_scatter")
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(bad, {i: [0, 3]})
        assert "indices[1] = 3 is not in [0, 3)" in str(e.value)
        assert "my_scatter" in str(e.value)
        # Nothing was written: every index is checked first.
        np.testing.assert_array_equal(sess.run(v), [1, 2, 3])
        with pytest.raises(tf.errors.FailedPreconditionError):
            w = _var([1.0], name="uninit")
            sess.run(tf.scatter_update(w, [0], [2.0]))
    # updates must be indices.shape + ref.shape[1:] (or a scalar): a build-time error.
    m = _var([[1.0, 2.0]], name="m")
    with pytest.raises(ValueError):
        tf.scatter_update(m, [0], [[1.0, 2.0, 3.0]])
    with pytest.raises((TypeError, ValueError)):
        tf.scatter_add(m, [0.5], [[1.0, 2.0]])  # float indices


def test_count_up_to():
    c = tf.Variable(0, name="counter")
    inc = tf.count_up_to(c, 3)
    assert inc.dtype == tf.int32 and inc.shape.as_list() == [] and inc.op.get_attr("limit") == 3
    c64 = tf.Variable(np.int64(5), name="c64")
    inc64 = c64.count_up_to(6)
    assert inc64.dtype == tf.int64
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert [sess.run(inc) for _ in range(3)] == [0, 1, 2]
        with pytest.raises(tf.errors.OutOfRangeError) as e:
            sess.run(inc)
        assert "Reached limit of 3" in str(e.value)
        assert "CountUpTo" in str(e.value)
        assert sess.run(c) == 3  # unchanged by the failed step
        assert sess.run(inc64) == 5
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(inc64)
    with pytest.raises((TypeError, ValueError)):
        tf.count_up_to(tf.Variable(1.0, name="f"), 3)  # int32 / int64 only
    with pytest.raises(ValueError):
        tf.count_up_to(tf.Variable([1, 2], name="vec"), 3)  # a scalar only


def test_count_up_to_ends_a_queue_runner():
    """limit_epochs' pattern: a counter gates each enqueue; at the limit the
    OutOfRangeError stops the runner and closes the queue."""
    epochs = tf.Variable(0, name="epochs", trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES])
    counter = tf.count_up_to(epochs, 4)
    with tf.control_dependencies([counter]):
        value = gen_ops.identity(tf.constant(7.0))
    q = tf.FIFOQueue(10, tf.float32, shapes=[[]])
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [q.enqueue(value)]))
    taken = q.dequeue()
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        got = [sess.run(taken) for _ in range(4)]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(taken)
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
    assert got == [7.0] * 4


def test_print_passes_the_input_through(capfd):
    x = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0], name="x")
    n = tf.constant([[1, 2], [3, 4]], name="n")
    p = tf.Print(x, [x, n, "words"], message="values: ")
    assert p.op.type == "Print" and p.dtype == tf.float32 and p.shape.as_list() == [5]
    assert p.op.get_attr("first_n") == -1 and p.op.get_attr("summarize") == 3
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(gen_ops.mul(p, 2.0)), [2, 4, 6, 8, 10])
    err = capfd.readouterr().err
    assert "values: [1 2 3...][[1 2][3...]...][words]\n" in err


def test_print_first_n_summarize_and_variables(capfd):
    v = tf.Variable([1.5, 2.5], name="v")
    p = tf.Print(v, [v], message="v=", first_n=2, summarize=-1, name="show")
    assert p.op.name == "show" and p.dtype == tf.float32
    with tf.Session() as sess:
        sess.run(v.initializer)
        for _ in range(4):
            np.testing.assert_array_equal(sess.run(p), [1.5, 2.5])
    assert capfd.readouterr().err.count("v=[1.5 2.5]\n") == 2


def test_print_gradient_goes_to_the_input_only():
    x = gen_ops.placeholder(tf.float32, shape=[3], name="x")
    d = gen_ops.placeholder(tf.float32, shape=[3], name="d")
    y = gen_ops.sum(gen_ops.mul(tf.Print(x, [d, x]), 3.0), [0])
    gx, gd = tf.gradients(y, [x, d])
    with tf.Session() as sess:
        feed = {x: [1, 2, 3], d: [0, 0, 0]}
        # x is printed too: a gradient through the data would make this 6.
        np.testing.assert_array_equal(sess.run(gx, feed), [3, 3, 3])
        # The data gets none (flowvm's tf.gradients gives zeros where TF gives None).
        assert gd is None or not np.any(sess.run(gd, feed))


def _drain(sess, t):
    out = []
    while True:
        try:
            out.append(sess.run(t))
        except tf.errors.OutOfRangeError:
            return out


def _with_runners(fn):
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            return fn(sess)
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)


def test_limit_epochs():
    assert tf.train.limit_epochs("x") == "x"  # no limit: the tensor itself
    with pytest.raises(ValueError):
        tf.train.limit_epochs(tf.constant(1), 0)
    t = tf.train.limit_epochs(tf.constant([1, 2]), num_epochs=2, name="limited")
    assert t.op.name == "limited"
    epochs = [v for v in tf.local_variables() if v.op.name == "limited/epochs"]
    assert len(epochs) == 1 and epochs[0].dtype.base_dtype == tf.int64
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert [list(x) for x in _drain(sess, t)] == [[1, 2], [1, 2]]


def test_string_input_producer_runs_num_epochs():
    q = tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=False)
    name = q.dequeue()
    got = _with_runners(lambda sess: _drain(sess, name))
    assert got == [b"a", b"b", b"c"] * 2
    with pytest.raises(ValueError):
        tf.train.string_input_producer([])


def test_shuffled_range_and_slice_producers():
    q = tf.train.range_input_producer(5, num_epochs=2, shuffle=True, seed=3)
    got = _with_runners(lambda sess: _drain(sess, q.dequeue()))
    assert sorted(got[:5]) == list(range(5)) and sorted(got[5:]) == list(range(5))
    tf.reset_default_graph()
    x, y = tf.train.slice_input_producer([tf.constant([1, 2, 3]), tf.constant([10.0, 20.0, 30.0])], num_epochs=1,
                                         shuffle=False)
    pairs = _with_runners(lambda sess: _drain(sess, [x, y]))
    assert [(int(a), float(b)) for a, b in pairs] == [(1, 10.0), (2, 20.0), (3, 30.0)]
