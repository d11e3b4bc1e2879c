"""tf.py_func / tf.numpy_function: Python functions as nodes, their values
against NumPy's, their errors (TensorFlow's codes), state across runs, and
their use in tf.data (Dataset.from_generator)."""
import numpy as np
import pytest

import flowvm.compat.v1 as tf
from data_test_util import drain


def test_py_func_values_and_multiple_outputs():
    x = tf.placeholder(tf.float64, [None])
    y = tf.py_func(np.sinh, [x], tf.float64)
    a, b = tf.py_func(lambda u, v: (u * v, np.int32(len(u))), [x, tf.constant(2.0, tf.float64)],
                      [tf.float64, tf.int32])
    assert y.dtype == tf.float64 and y.shape.ndims is None
    with tf.Session() as sess:
        vals = np.array([0.0, 0.5, -1.5])
        vy, va, vb = sess.run([y, a, b], {x: vals})
    np.testing.assert_allclose(vy, np.sinh(vals))
    np.testing.assert_allclose(va, vals * 2.0)
    assert vb == 3


def test_py_func_results_are_converted_to_tout():
    s = tf.py_func(lambda: np.array([b"ab", "c\u00e9"], dtype=object), [], tf.string)
    i = tf.py_func(lambda: np.array([1, 2, 3]), [], tf.int64)
    none = tf.py_func(lambda: None, [], [])
    with tf.Session() as sess:
        vs, vi = sess.run([s, i])
        sess.run(none)
    assert list(vs) == [b"ab", "c\u00e9".encode("utf-8")]
    assert vi.dtype == np.int64 and list(vi) == [1, 2, 3]


def test_stateful_py_func_runs_each_step():
    calls = []

    def count():
        calls.append(1)
        return np.int32(len(calls))

    c = tf.py_func(count, [], tf.int32)
    with tf.Session() as sess:
        assert [sess.run(c) for _ in range(3)] == [1, 2, 3]


def test_py_func_errors_have_tensorflows_codes():
    def bad_value(x):
        raise ValueError("no good: %s" % x)

    def bad_runtime(x):
        raise RuntimeError("broken")

    x = tf.constant(1.0)
    v = tf.py_func(bad_value, [x], tf.float32, name="checks_value")
    r = tf.py_func(bad_runtime, [x], tf.float32)
    wrong_count = tf.py_func(lambda x: (x, x), [x], tf.float32)
    wrong_type = tf.py_func(lambda x: np.float64(0.5), [x], tf.int32)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(v)
        assert "checks_value" in e.value.message and "no good: 1.0" in e.value.message
        assert "Traceback" in e.value.message
        with pytest.raises(tf.errors.UnknownError, match="broken"):
            sess.run(r)
        with pytest.raises(tf.errors.InvalidArgumentError, match="returned 2 values"):
            sess.run(wrong_count)
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(wrong_type)


def test_py_func_on_a_second_cpu_and_in_a_dataset_map():
    with tf.device("/cpu:1"):
        y = tf.py_func(lambda v: v[::-1].copy(), [tf.constant([1, 2, 3])], tf.int32)
    ds = tf.data.Dataset.range(4).map(lambda i: tf.py_func(lambda v: v * v + 1, [i], tf.int64))
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        np.testing.assert_array_equal(sess.run(y), [3, 2, 1])
        assert [int(v) for v in drain(sess, nxt)] == [1, 2, 5, 10]


# ---- Dataset.from_generator ------------------------------------------------------
def test_from_generator_yields_what_python_yields():
    def gen():
        for i in range(1, 4):
            yield i, "x" * i, [float(i)] * i

    ds = tf.data.Dataset.from_generator(gen, (tf.int64, tf.string, tf.float32), ([], [], [None]))
    assert ds.output_types == (tf.int64, tf.string, tf.float32)
    assert ds.output_shapes[2].as_list() == [None]
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        got = drain(sess, nxt)
    assert [(int(a), b) for a, b, _ in got] == [(1, b"x"), (2, b"xx"), (3, b"xxx")]
    for i, (_, _, c) in enumerate(got):
        np.testing.assert_array_equal(c, np.full([i + 1], float(i + 1), np.float32))


def test_from_generator_restarts_with_each_initialization_and_takes_args():
    def gen(n, scale):
        for i in range(n):
            yield i * scale

    n = tf.placeholder(tf.int64, [])
    ds = tf.data.Dataset.from_generator(gen, tf.float32, [], args=[n, tf.constant(0.5)]).batch(2)
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(it.initializer, {n: 5})
        got = drain(sess, nxt)
        assert [list(g) for g in got] == [[0.0, 0.5], [1.0, 1.5], [2.0]]
        sess.run(it.initializer, {n: 2})
        assert [list(g) for g in drain(sess, nxt)] == [[0.0, 0.5]]


def test_from_generator_checks_shapes_types_and_structure():
    def gen():
        yield [1.0, 2.0]
        yield [1.0, 2.0, 3.0]

    nxt = tf.data.Dataset.from_generator(gen, tf.float32, [2]).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        sess.run(nxt)
        with pytest.raises(tf.errors.InvalidArgumentError, match="yielded an element of shape"):
            sess.run(nxt)

    def strings():
        yield "not a number"

    nxt = tf.data.Dataset.from_generator(strings, tf.float32).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="could not be converted"):
            sess.run(nxt)
    with pytest.raises(TypeError):
        tf.data.Dataset.from_generator(3, tf.float32)


def test_py_func_has_no_gradient_unless_one_is_registered():
    x = tf.constant([1.0, 2.0])
    y = tf.py_func(np.square, [x], tf.float32)
    assert tf.gradients(y, x) == [None]

    @tf.RegisterGradient("SquareByPython")
    def _square_grad(op, dy):
        return [2.0 * op.inputs[0] * dy]

    with tf.get_default_graph().gradient_override_map({"PyFunc": "SquareByPython"}):
        z = tf.py_func(np.square, [x], tf.float32)
    g, = tf.gradients(z, x)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(g), [2.0, 4.0])
