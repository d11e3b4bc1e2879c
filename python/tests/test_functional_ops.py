"""tf.scan, tf.map_fn, tf.foldl, tf.foldr: values against NumPy (cumulative
sums and products, a running mean, nested structures, reverse, an
initializer of another structure, dtype different from elems), static
shapes, gradients against finite differences, their errors, and runs on a
session with two CPU devices."""
import collections

import numpy as np
import pytest

import flowvm.compat.v1 as tf

from gradcheck_util import check_gradients

TWO_CPUS = tf.ConfigProto(device_count={"CPU": 2})


def _run(fetches, feed=None, config=None):
    with tf.Session(config=config) as sess:
        return sess.run(fetches, feed)


# ---- scan ------------------------------------------------------------------------------
def test_scan_cumulative_sum_and_product():
    rng = np.random.RandomState(0)
    x = rng.uniform(0.5, 1.5, size=(6, 3)).astype(np.float32)
    s = tf.scan(lambda a, v: a + v, x)
    p = tf.scan(lambda a, v: a * v, tf.constant(x), initializer=tf.ones([3]))
    assert s.shape.as_list() == [6, 3] and p.shape.as_list() == [6, 3]
    vs, vp = _run([s, p])
    np.testing.assert_allclose(vs, np.cumsum(x, axis=0), rtol=1e-5)
    np.testing.assert_allclose(vp, np.cumprod(x, axis=0), rtol=1e-5)
    # TensorFlow's documented examples.
    elems = np.array([1, 2, 3, 4, 5, 6])
    a = tf.scan(lambda a, v: a + v, elems)
    r = tf.scan(lambda a, v: a + v, elems, reverse=True)
    one = tf.scan(lambda a, v: v[0] - v[1] + a, (elems + 1, elems), np.array(0))
    fib = tf.scan(lambda a, _: (a[1], a[0] + a[1]), np.array([1, 0, 0, 0, 0, 0]), (np.array(0), np.array(1)))
    va, vr, vone, vfib = _run([a, r, one, fib])
    np.testing.assert_array_equal(va, [1, 3, 6, 10, 15, 21])
    np.testing.assert_array_equal(vr, [21, 20, 18, 15, 11, 6])
    np.testing.assert_array_equal(vone, [1, 2, 3, 4, 5, 6])
    assert isinstance(vfib, tuple)
    np.testing.assert_array_equal(vfib[0], [1, 1, 2, 3, 5, 8])
    np.testing.assert_array_equal(vfib[1], [1, 2, 3, 5, 8, 13])


def test_scan_running_mean_with_an_initializer_of_another_structure():
    rng = np.random.RandomState(1)
    x = rng.randn(7, 2)
    State = collections.namedtuple("State", ["count", "mean"])

    def step(state, v):
        count = state.count + 1.0
        return State(count, state.mean + (v - state.mean) / count)
    out = tf.scan(step, x, initializer=State(tf.constant(0.0, tf.float64), tf.zeros([2], tf.float64)))
    assert isinstance(out, State)
    assert out.count.shape.as_list() == [7] and out.mean.shape.as_list() == [7, 2]
    got = _run(out)
    np.testing.assert_allclose(got.count, np.arange(1, 8))
    np.testing.assert_allclose(got.mean, np.cumsum(x, axis=0) / np.arange(1, 8)[:, None], rtol=1e-12)


def test_scan_nested_elems_reverse_and_unknown_length():
    rng = np.random.RandomState(2)
    a = rng.randn(5, 2).astype(np.float32)
    b = rng.randn(5).astype(np.float32)
    pa = tf.placeholder(tf.float32, [None, 2])
    pb = tf.placeholder(tf.float32, [None])
    # No initializer: elems' structure is the accumulator's.
    out = tf.scan(lambda acc, e: {"a": acc["a"] + e["a"], "b": [acc["b"][0] * 0.5 + e["b"][0]]},
                  {"a": pa, "b": [pb]}, reverse=True)
    assert out["a"].shape.as_list() == [None, 2]
    got = _run(out, {pa: a, pb: b})
    np.testing.assert_allclose(got["a"], np.cumsum(a[::-1], axis=0)[::-1], rtol=1e-5)
    expect = np.zeros(5, np.float32)
    expect[4] = b[4]
    for t in range(3, -1, -1):
        expect[t] = expect[t + 1] * 0.5 + b[t]
    np.testing.assert_allclose(got["b"][0], expect, rtol=1e-5)


@pytest.mark.parametrize("parallel_iterations", [1, 10])
def test_scan_parallel_iterations_and_two_cpus(parallel_iterations):
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    with tf.device("/device:CPU:1"):
        elems = tf.constant(x) * 2.0
    out = tf.scan(lambda a, v: a * 0.5 + v, elems, parallel_iterations=parallel_iterations)
    expect = np.zeros_like(x)
    acc = 2 * x[0]
    expect[0] = acc
    for t in range(1, 4):
        acc = acc * 0.5 + 2 * x[t]
        expect[t] = acc
    np.testing.assert_allclose(_run(out, config=TWO_CPUS), expect, rtol=1e-6)


def test_scan_uses_a_variable_and_trains_it():
    x = np.linspace(-1, 1, 5).astype(np.float32)
    with tf.variable_scope("smoother"):
        alpha = tf.get_variable("alpha", [], initializer=tf.constant_initializer(0.2))
    y = tf.scan(lambda a, v: alpha * v + (1.0 - alpha) * a, x, initializer=tf.constant(0.0))
    target = np.zeros(5, np.float32)
    acc = 0.0
    for t in range(5):
        acc = 0.9 * x[t] + 0.1 * acc
        target[t] = acc
    loss = tf.reduce_mean(tf.square(y - target))
    train = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(200):
            sess.run(train)
        assert sess.run(loss) < first * 0.01
        assert abs(sess.run(alpha) - 0.9) < 0.05


# ---- map_fn --------------------------------------------------------------------------
def test_map_fn_values_and_dtypes():
    rng = np.random.RandomState(3)
    x = rng.randn(4, 3).astype(np.float32)
    sq = tf.map_fn(lambda v: v * v, x)
    norms = tf.map_fn(lambda v: tf.reduce_sum(v * v), tf.constant(x))
    assert sq.shape.as_list() == [4, 3] and norms.shape.as_list() == [4]
    # dtype differs from elems: ints in, floats out.
    halves = tf.map_fn(lambda v: tf.cast(v, tf.float32) / 2.0, np.array([1, 2, 3]), dtype=tf.float32)
    # nested elems, one output
    prod = tf.map_fn(lambda ab: ab[0] * ab[1], (tf.constant(x), tf.constant(x[::-1])), dtype=tf.float32)
    # one elem, nested outputs
    both = tf.map_fn(lambda v: (v + 1.0, tf.cast(tf.reduce_max(v) > 0, tf.int32)), x,
                     dtype=(tf.float32, tf.int32))
    vsq, vn, vh, vp, vb = _run([sq, norms, halves, prod, both])
    np.testing.assert_allclose(vsq, x * x, rtol=1e-6)
    np.testing.assert_allclose(vn, (x * x).sum(1), rtol=1e-5)
    np.testing.assert_allclose(vh, [0.5, 1.0, 1.5])
    np.testing.assert_allclose(vp, x * x[::-1], rtol=1e-6)
    assert isinstance(vb, tuple)
    np.testing.assert_allclose(vb[0], x + 1, rtol=1e-6)
    np.testing.assert_array_equal(vb[1], (x.max(1) > 0).astype(np.int32))


def test_map_fn_nested_structures_and_two_cpus():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    y = np.arange(3, dtype=np.int32)
    with tf.device("/device:CPU:1"):
        ex = tf.constant(x)
    out = tf.map_fn(lambda e: {"x": e["pair"][0] * 2.0, "y": e["pair"][1] + 1}, {"pair": (ex, y)},
                    dtype={"x": tf.float32, "y": tf.int32}, parallel_iterations=1)
    got = _run(out, config=TWO_CPUS)
    np.testing.assert_allclose(got["x"], x * 2)
    np.testing.assert_array_equal(got["y"], y + 1)
    # Without dtype the result has elems' structure and dtypes.
    same = tf.map_fn(lambda e: (e[0] + 1.0, e[1] * 2), (x, y))
    got = _run(same, config=TWO_CPUS)
    np.testing.assert_allclose(got[0], x + 1)
    np.testing.assert_array_equal(got[1], y * 2)


def test_map_fn_infer_shape_false_allows_different_shapes():
    x = np.array([1, 2, 3], np.int32)
    out = tf.map_fn(lambda n: tf.reduce_sum(tf.range(n)), x, infer_shape=False)
    np.testing.assert_array_equal(_run(out), [0, 1, 3])


# ---- foldl / foldr ---------------------------------------------------------------------------
def test_foldl_foldr():
    elems = tf.constant([1, 2, 3, 4, 5, 6])
    assert _run(tf.foldl(lambda a, x: a + x, elems)) == 21
    assert _run(tf.foldr(lambda a, x: a + x, elems)) == 21
    # Order matters: digits read left to right and right to left.
    digits = np.array([1, 2, 3, 4])
    assert _run(tf.foldl(lambda a, x: a * 10 + x, digits, initializer=np.int64(0))) == 1234
    assert _run(tf.foldr(lambda a, x: a * 10 + x, digits, initializer=np.int64(0))) == 4321
    assert _run(tf.foldl(lambda a, x: a - x, digits)) == 1 - 2 - 3 - 4
    assert _run(tf.foldr(lambda a, x: a - x, digits)) == 4 - 3 - 2 - 1
    # Nested elems and accumulator.
    x = np.arange(8, dtype=np.float64).reshape(4, 2)
    acc = tf.foldl(lambda a, e: (a[0] + e[0], a[1] * e[1]), (x, x[:, 0] + 1.0),
                   initializer=(tf.zeros([2], tf.float64), tf.constant(1.0, tf.float64)))
    got = _run(acc)
    np.testing.assert_allclose(got[0], x.sum(0))
    np.testing.assert_allclose(got[1], np.prod(x[:, 0] + 1.0))
    with tf.device("/device:CPU:1"):
        e = tf.constant([1.0, 2.0, 3.0])
    np.testing.assert_allclose(_run(tf.foldr(lambda a, x: a * 2.0 + x, e, parallel_iterations=1),
                                    config=TWO_CPUS), (3.0 * 2 + 2.0) * 2 + 1.0)


# ---- gradients ------------------------------------------------------------------------------
def test_gradients_of_scan():
    rng = np.random.RandomState(4)

    def ema(x, alpha):
        return tf.scan(lambda a, v: alpha * v + (1.0 - alpha) * a, x, initializer=tf.zeros([2], tf.float64))
    check_gradients(ema, rng.randn(5, 2), np.array([0.3, 0.6]))

    def reverse_product(x):
        return tf.scan(lambda a, v: a * tf.tanh(v), x, reverse=True)
    check_gradients(reverse_product, rng.randn(4, 3))

    def nested(x, y):
        out = tf.scan(lambda a, e: (a[0] + e[0] * e[1], tf.sin(a[1]) + e[1]), (x, y),
                      parallel_iterations=1)
        return out[0] + out[1]
    check_gradients(nested, rng.randn(4, 2), rng.randn(4, 2))


def test_gradients_of_map_fn_foldl_foldr():
    rng = np.random.RandomState(5)
    w = rng.randn(3, 2)

    def mapped(x, w):
        return tf.map_fn(lambda v: tf.tanh(tf.reduce_sum(v[:, None] * w, 0)), x)
    check_gradients(mapped, rng.randn(4, 3), w)

    def folded(x):
        return tf.foldl(lambda a, v: a * v + tf.sin(v), x)
    check_gradients(folded, rng.randn(5, 2))

    def folded_right(x, h):
        return tf.foldr(lambda a, v: tf.tanh(a * 0.7 + v), x, initializer=h)
    check_gradients(folded_right, rng.randn(5, 2), rng.randn(2))


# ---- errors ----------------------------------------------------------------------------------------
def test_errors():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    for f in (tf.scan, tf.map_fn, tf.foldl, tf.foldr):
        with pytest.raises(TypeError, match="fn must be callable"):
            f("not callable", x)
    with pytest.raises(ValueError, match="elems must be a 1\\+ dimensional Tensor, not a scalar"):
        tf.map_fn(lambda v: v, tf.constant(1.0))
    with pytest.raises(ValueError, match="1\\+ dimensional Tensors, not scalars"):
        tf.scan(lambda a, v: a, (x, tf.constant(1.0)))
    # elems of different first dimensions
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        tf.map_fn(lambda e: e[0], (x, tf.zeros([3, 2])), dtype=tf.float32)
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        tf.scan(lambda a, e: a, (x, tf.zeros([3])))
    # fn's output has another structure than dtype / elems / initializer
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tf.map_fn(lambda v: (v, v), x)
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        tf.scan(lambda a, v: a[0] + v, x, initializer=(tf.zeros([2]), tf.zeros([2])))
    # fn's output shape changes from the accumulator's
    with pytest.raises(ValueError, match="Inconsistent shapes"):
        tf.scan(lambda a, v: tf.concat([a, v], 0), x)
    # fn's output type is not the accumulator's
    with pytest.raises(TypeError):
        tf.scan(lambda a, v: tf.cast(v, tf.int32), x, initializer=tf.zeros([2]))


def test_map_fn_output_not_of_dtype_fails_when_run():
    # As in TensorFlow 1.15: the write of the wrong type fails in the runtime.
    out = tf.map_fn(lambda v: tf.cast(v, tf.int32), tf.constant([1.0, 2.0]))
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        _run(out)
    assert "TensorArray dtype is float but Op is trying to write dtype int32" in str(e.value)


def test_internal_path_and_exports():
    from flowvm.compat.v1.python.ops import functional_ops
    assert functional_ops.scan is tf.scan and functional_ops.map_fn is tf.map_fn
    assert functional_ops.foldl is tf.foldl and functional_ops.foldr is tf.foldr
    assert tf.compat.v1.scan is tf.scan


def test_gradients_on_two_cpus_match_the_closed_form():
    # y_t = alpha x_t + (1 - alpha) y_{t-1}, y_{-1} = 0, so
    # d sum(y) / d x_s = alpha * sum_{k=0}^{T-1-s} (1 - alpha)^k.
    alpha, n = 0.3, 6
    x = np.linspace(-1.0, 1.0, n)
    with tf.device("/device:CPU:1"):
        px = tf.placeholder(tf.float64, [n])
    y = tf.scan(lambda a, v: alpha * v + (1 - alpha) * a, px, initializer=tf.constant(0.0, tf.float64))
    total = tf.foldl(lambda a, v: a + v, y)
    gx, = tf.gradients(total, [px])
    mapped = tf.map_fn(lambda v: v * v, px)
    gm, = tf.gradients(tf.reduce_sum(mapped), [px])
    with tf.Session(config=TWO_CPUS) as sess:
        vt, vg, vgm = sess.run([total, gx, gm], {px: x})
    expect_y = np.zeros(n)
    acc = 0.0
    for t in range(n):
        acc = alpha * x[t] + (1 - alpha) * acc
        expect_y[t] = acc
    np.testing.assert_allclose(vt, expect_y.sum(), rtol=1e-12)
    expect_g = [alpha * sum((1 - alpha) ** k for k in range(n - s)) for s in range(n)]
    np.testing.assert_allclose(vg, expect_g, rtol=1e-12)
    np.testing.assert_allclose(vgm, 2 * x, rtol=1e-12)
