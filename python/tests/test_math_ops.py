"""tf math wrappers and Tensor operators against NumPy."""
import numpy as np
import pytest

import flowvm.compat.v1 as tf
from gradcheck_util import check_gradients


def run(*fetches, feed=None):
    with tf.Session() as sess:
        out = sess.run(list(fetches), feed)
    return out[0] if len(out) == 1 else out


A = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], np.float32)
B = np.array([[0.5, 2.0, -1.0], [3.0, -4.0, 2.0]], np.float32)


def test_operators_with_constants_broadcast_and_names():
    a = tf.constant(A)
    y = a * 2 + 1
    assert y.op.name == "add" and y.op.inputs[0].op.name == "mul"
    assert y.op.inputs[1].op.name == "add/y" and y.dtype == tf.float32
    r = 1 - a
    assert r.op.name == "sub" and r.op.inputs[0].op.name == "sub/x"
    row = tf.constant([1.0, 2.0, 3.0])
    outs = run(y, r, a + row, a - row, row * a, a / row, 2.0 / a, a ** 2, 2 ** a, -a, abs(a),
               np.float32(3) * a, np.array([1.0, 0.0, 2.0], np.float32) + a, a @ tf.transpose(a))
    ref = [A * 2 + 1, 1 - A, A + [1, 2, 3], A - [1, 2, 3], [1, 2, 3] * A, A / [1, 2, 3], 2 / A, A ** 2, 2 ** A,
           -A, np.abs(A), 3 * A, np.array([1, 0, 2]) + A, A @ A.T]
    for o, e in zip(outs, ref):
        np.testing.assert_allclose(o, e, rtol=1e-6)
    assert (a * 2).shape.as_list() == [2, 3] and (a + row).shape.as_list() == [2, 3]


def test_shape_mismatch_raises_value_error_naming_the_node():
    with pytest.raises(ValueError) as e:
        tf.constant([1.0, 2.0]) + tf.constant([1.0, 2.0, 3.0])
    assert "'add'" in str(e.value) and isinstance(e.value, tf.errors.InvalidArgumentError)
    with pytest.raises(ValueError) as e:
        tf.maximum(tf.ones([2, 3]), tf.ones([4]), name="mx")
    assert "'mx'" in str(e.value)


def test_operator_dtype_rules():
    i = tf.constant([7, -7, 6], tf.int32)
    with pytest.raises(TypeError):
        i * 1.5  # a Python float does not fit int32
    with pytest.raises(ValueError):
        i + tf.constant([1.0, 2.0, 3.0])
    q = i / 2
    assert q.dtype == tf.float64  # int32 true division gives float64, as TensorFlow
    i8 = tf.constant([7], tf.int8) / tf.constant([2], tf.int8)
    assert i8.dtype == tf.float32
    fd, md = i // 2, i % 3
    assert run(q).tolist() == [3.5, -3.5, 3.0]
    assert run(fd).tolist() == [3, -4, 3] and run(md).tolist() == [1, 2, 0]
    f = tf.constant([7.5, -7.5])
    np.testing.assert_allclose(run(f // 2, f % 2), [[3, -4], [1.5, 0.5]])
    assert run(tf.div(i, 2)).tolist() == [3, -4, 3]
    assert run(tf.truncatediv(i, 2)).tolist() == [3, -3, 3]
    assert run(tf.truncatemod(i, 4)).tolist() == [3, -3, 2]
    assert run(tf.divide(7, 2)) == 3.5


def test_comparisons_and_logic():
    a = tf.constant(A)
    outs = run(a < 1, a <= 1, a > B, a >= 3.0, tf.equal(a, 3.0), tf.not_equal(a, 3.0))
    for o, e in zip(outs, [A < 1, A <= 1, A > B, A >= 3, A == 3, A != 3]):
        assert o.dtype == np.bool_ and (o == e).all()
    p = tf.constant([True, True, False, False])
    q = tf.constant([True, False, True, False])
    outs = run(p & q, p | q, p ^ q, ~p, tf.logical_xor(p, q), tf.logical_not(q))
    assert [o.tolist() for o in outs] == [[True, False, False, False], [True, True, True, False],
                                          [False, True, True, False], [False, False, True, True],
                                          [False, True, True, False], [False, True, False, True]]
    with pytest.raises(TypeError):
        tf.constant([1, 2]) & tf.constant([1, 2])
    assert (a == a) is True  # Tensor equality stays identity in TF 1.x
    with pytest.raises(TypeError):
        bool(a)


def test_elementwise_functions_match_numpy():
    x = np.array([0.1, 0.5, 1.5, 2.5, 3.7], np.float32)
    t = tf.constant(x)
    fns = [(tf.square, np.square), (tf.sqrt, np.sqrt), (tf.rsqrt, lambda v: 1 / np.sqrt(v)), (tf.exp, np.exp),
           (tf.log, np.log), (tf.log1p, np.log1p), (tf.expm1, np.expm1), (tf.negative, np.negative),
           (tf.sign, np.sign), (tf.reciprocal, np.reciprocal), (tf.floor, np.floor), (tf.ceil, np.ceil),
           (tf.round, np.round), (tf.sigmoid, lambda v: 1 / (1 + np.exp(-v))), (tf.tanh, np.tanh),
           (tf.sin, np.sin), (tf.cos, np.cos), (tf.tan, np.tan), (tf.abs, np.abs),
           (tf.math.log_sigmoid, lambda v: -np.log1p(np.exp(-v)))]
    outs = run(*[f(t) for f, _ in fns])
    for (f, g), o in zip(fns, outs):
        np.testing.assert_allclose(o, g(x), rtol=1e-5, atol=1e-6, err_msg=f.__name__)
    assert run(tf.round(tf.constant([0.5, 1.5, 2.5, -0.5]))).tolist() == [0, 2, 2, -0]  # half to even
    import math
    np.testing.assert_allclose(run(tf.erf(t)), [math.erf(v) for v in x], rtol=1e-5)
    np.testing.assert_allclose(run(tf.atan2(t, 2.0)), np.arctan2(x, 2.0), rtol=1e-5)
    np.testing.assert_allclose(run(tf.squared_difference(t, 1.0)), (x - 1) ** 2, rtol=1e-5)
    np.testing.assert_allclose(run(tf.maximum(t, 1.0), tf.minimum(t, 1.0)), [np.maximum(x, 1), np.minimum(x, 1)])
    np.testing.assert_allclose(run(tf.pow(t, 2.0)), x ** 2, rtol=1e-5)
    np.testing.assert_allclose(run(tf.scalar_mul(3.0, t)), 3 * x, rtol=1e-6)
    with pytest.raises(ValueError):
        tf.scalar_mul([1.0, 2.0], t)
    special = tf.constant([np.nan, np.inf, -np.inf, 1.0])
    outs = run(tf.is_nan(special), tf.is_inf(special), tf.is_finite(special))
    assert [o.tolist() for o in outs] == [[True, False, False, False], [False, True, True, False],
                                          [False, False, False, True]]
    np.testing.assert_allclose(run(tf.math.divide_no_nan(tf.constant([1.0, 2.0]), tf.constant([0.0, 4.0]))),
                               [0.0, 0.5])


def test_casts():
    f = tf.constant([1.7, -1.7, 300.0])
    assert tf.cast(f, tf.float32) is f
    c = tf.cast(f, tf.int32)
    assert c.op.type == "Cast" and c.op.name == "Cast" and c.dtype == tf.int32
    assert run(c).tolist() == [1, -1, 300]
    assert run(tf.cast(1.5, tf.int32)) == 1
    assert tf.to_float(tf.constant(1)).op.name == "ToFloat"
    assert tf.to_int64(f).dtype == tf.int64 and tf.to_int32(f).dtype == tf.int32
    assert tf.to_double(f).dtype == tf.float64
    assert run(tf.saturate_cast(f, tf.uint8)).tolist() == [1, 0, 255]
    assert run(tf.cast(tf.constant([True, False]), tf.float32)).tolist() == [1.0, 0.0]


def test_matmul_variants():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    ta, tb = tf.constant(a), tf.constant(b)
    m = tf.matmul(ta, tb)
    assert m.op.type == "MatMul" and m.shape.as_list() == [2, 4]
    outs = run(m, tf.matmul(tf.transpose(ta), tb, transpose_a=True), tf.matmul(ta, tf.transpose(tb),
                                                                                 transpose_b=True),
               tf.matmul(ta, tf.transpose(tb), adjoint_b=True))
    for o in outs:
        np.testing.assert_allclose(o, a @ b)
    x = np.random.RandomState(0).rand(5, 2, 3).astype(np.float32)
    y = np.random.RandomState(1).rand(5, 3, 4).astype(np.float32)
    bm = tf.matmul(x, y)
    assert bm.op.type == "BatchMatMulV2" and bm.shape.as_list() == [5, 2, 4]
    np.testing.assert_allclose(run(bm), x @ y, rtol=1e-5)
    np.testing.assert_allclose(run(tf.matmul(x, x, transpose_b=True)), x @ x.transpose(0, 2, 1), rtol=1e-5)
    with pytest.raises(ValueError) as e:
        tf.matmul(ta, ta)
    assert "MatMul" in str(e.value)
    with pytest.raises(ValueError):
        tf.matmul(ta, tb, transpose_a=True, adjoint_a=True)


def test_tensordot_and_add_n():
    rng = np.random.RandomState(0)
    a = rng.rand(2, 3, 4).astype(np.float32)
    b = rng.rand(4, 5).astype(np.float32)
    c = rng.rand(3, 4, 6).astype(np.float32)
    d = tf.tensordot(a, b, 1)
    assert d.shape.as_list() == [2, 3, 5]
    e = tf.tensordot(a, c, [[1, 2], [0, 1]])
    f = tf.tensordot(a, b, [[2], [0]])
    g = tf.tensordot(a[0], a[1], 0)
    outs = run(d, e, f, g)
    np.testing.assert_allclose(outs[0], np.tensordot(a, b, 1), rtol=1e-5)
    np.testing.assert_allclose(outs[1], np.tensordot(a, c, [[1, 2], [0, 1]]), rtol=1e-5)
    np.testing.assert_allclose(outs[2], np.tensordot(a, b, [[2], [0]]), rtol=1e-5)
    np.testing.assert_allclose(outs[3], np.tensordot(a[0], a[1], 0), rtol=1e-5)
    p = tf.placeholder(tf.float32, [None, 4])
    dyn = tf.tensordot(p, b, 1)
    assert dyn.shape.as_list() == [None, 5]
    np.testing.assert_allclose(run(dyn, feed={p: a[0]}), a[0] @ b, rtol=1e-5)
    s = tf.add_n([tf.constant(A), tf.constant(B), A])
    assert s.op.type == "AddN"
    np.testing.assert_allclose(run(s), A + B + A)
    one = tf.constant(A)
    assert tf.add_n([one]) is one
    with pytest.raises(ValueError):
        tf.add_n([])


def test_reductions():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 10
    t = tf.constant(x)
    cases = [
        (tf.reduce_sum(t), x.sum()), (tf.reduce_sum(t, 1), x.sum(1)),
        (tf.reduce_sum(t, axis=[0, 2], keepdims=True), x.sum((0, 2), keepdims=True)),
        (tf.reduce_sum(t, reduction_indices=[1], keep_dims=True), x.sum(1, keepdims=True)),
        (tf.reduce_mean(t, -1), x.mean(-1)), (tf.reduce_max(t, 0), x.max(0)), (tf.reduce_min(t), x.min()),
        (tf.reduce_prod(t[0, 0] + 11, 0), (x[0, 0] + 11).prod()),
        (tf.reduce_logsumexp(t, 2), np.log(np.exp(x).sum(2))),
        (tf.reduce_logsumexp(t, keepdims=True), np.log(np.exp(x).sum(keepdims=True))),
        (tf.argmax(t, 1), x.argmax(1)), (tf.argmin(t, axis=2), x.argmin(2)), (tf.argmax(t), x.argmax(0)),
        (tf.count_nonzero(t, 2), np.count_nonzero(x, 2)), (tf.count_nonzero(t), np.count_nonzero(x)),
        (tf.math.reduce_euclidean_norm(t, 1), np.sqrt((x * x).sum(1))),
    ]
    outs = run(*[c[0] for c in cases])
    for (tt, e), o in zip(cases, outs):
        np.testing.assert_allclose(o, e, rtol=1e-5, err_msg=tt.name)
        assert tt.shape.as_list() == list(np.shape(e)), tt.name
    assert tf.reduce_sum(t).op.type == "Sum" and tf.argmax(t, 1).dtype == tf.int64
    assert tf.argmax(t, 1, output_type=tf.int32).dtype == tf.int32
    assert tf.count_nonzero(t).dtype == tf.int64
    b = tf.constant([[True, False], [True, True]])
    assert run(tf.reduce_all(b, 1)).tolist() == [False, True] and run(tf.reduce_any(b)) == True  # noqa: E712
    # Large values stay finite (the max is subtracted first).
    np.testing.assert_allclose(run(tf.reduce_logsumexp(tf.constant([1000.0, 1000.0]))), 1000 + np.log(2))
    p = tf.placeholder(tf.float32)  # unknown rank
    total = tf.reduce_sum(p)
    assert total.shape.as_list() == []
    assert run(total, feed={p: x}) == x.sum() and run(total, feed={p: 2.5}) == 2.5
    g = tf.gradients(tf.reduce_mean(p * p), p)[0]
    assert run(g, feed={p: 3.0}) == 6.0  # a scalar fed where the rank was unknown
    assert run(tf.reduce_max(p, keepdims=True), feed={p: x}).shape == (1, 1, 1)
    with pytest.raises(ValueError):
        tf.reduce_sum(t, axis=1, reduction_indices=1)
    with pytest.raises(ValueError) as e:
        tf.reduce_sum(t, 3)
    assert "Sum" in str(e.value)


def test_range_cumsum_clip_and_norms():
    r5 = tf.range(5)
    assert r5.op.name == "range" and r5.dtype == tf.int32 and run(r5).tolist() == [0, 1, 2, 3, 4]
    r = tf.range(1, 2.0, 0.25)
    assert r.dtype == tf.float32
    np.testing.assert_allclose(run(r), [1, 1.25, 1.5, 1.75])
    assert run(tf.range(10, 0, -3, dtype=tf.int64)).tolist() == [10, 7, 4, 1]
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    t = tf.constant(x)
    outs = run(tf.cumsum(t, 1), tf.cumsum(t, 1, exclusive=True), tf.cumsum(t, 0, reverse=True),
               tf.cumprod(t, 1))
    np.testing.assert_allclose(outs[0], np.cumsum(x, 1))
    np.testing.assert_allclose(outs[1], np.cumsum(x, 1) - x)
    np.testing.assert_allclose(outs[2], np.cumsum(x[::-1], 0)[::-1])
    np.testing.assert_allclose(outs[3], np.cumprod(x, 1))
    cv = tf.clip_by_value(t, 2.0, 5.0)
    assert cv.op.name == "clip_by_value"
    np.testing.assert_allclose(run(cv), np.clip(x, 2, 5))
    np.testing.assert_allclose(run(tf.clip_by_value(t, [1.0, 2.5, 3.5], 4.0)), np.clip(x, [1, 2.5, 3.5], 4))
    with pytest.raises(ValueError):
        tf.clip_by_value(tf.constant([1.0, 2.0]), [[0.0], [1.0]], 5.0)
    norm = np.sqrt((x ** 2).sum())
    np.testing.assert_allclose(run(tf.clip_by_norm(t, 1.0)), x / norm, rtol=1e-5)
    np.testing.assert_allclose(run(tf.clip_by_norm(t, 100.0)), x, rtol=1e-5)
    rows = np.sqrt((x ** 2).sum(1, keepdims=True))
    np.testing.assert_allclose(run(tf.clip_by_norm(t, 5.0, axes=[1])), x * 5 / np.maximum(rows, 5), rtol=1e-5)
    y = np.array([3.0, 4.0], np.float32)
    gn = tf.global_norm([t, None, tf.constant(y)])
    total = np.sqrt((x ** 2).sum() + 25)
    np.testing.assert_allclose(run(gn), total, rtol=1e-5)
    clipped, n = tf.clip_by_global_norm([t, None, y], 2.0)
    assert clipped[1] is None
    outs = run(clipped[0], clipped[2], n)
    np.testing.assert_allclose(outs[0], x * 2 / total, rtol=1e-5)
    np.testing.assert_allclose(outs[1], y * 2 / total, rtol=1e-5)
    np.testing.assert_allclose(outs[2], total, rtol=1e-5)
    np.testing.assert_allclose(run(tf.nn.l2_normalize(t, 1) if hasattr(tf, "nn") else tf.math.l2_normalize(t, 1)),
                               x / rows, rtol=1e-5)
    outs = run(tf.norm(t), tf.norm(t, ord=1, axis=1), tf.norm(t, ord=np.inf))
    for o, e in zip(outs, [norm, np.abs(x).sum(1), 6.0]):
        np.testing.assert_allclose(o, e, rtol=1e-5)


def test_math_namespace_aliases():
    assert tf.math.add is tf.add and tf.math.reduce_sum is tf.reduce_sum and tf.math.floormod is tf.mod
    assert tf.linalg.matmul is tf.matmul and tf.random.normal is tf.random_normal
    x = tf.constant([[2.0, 1.0], [1.0, 3.0]])
    outs = run(tf.linalg.inv(x), tf.linalg.det(x), tf.linalg.transpose(x), tf.linalg.eye(2))
    np.testing.assert_allclose(outs[0], np.linalg.inv([[2, 1], [1, 3]]), rtol=1e-5)
    np.testing.assert_allclose(outs[1], 5.0, rtol=1e-5)
    np.testing.assert_allclose(outs[3], np.eye(2))


def test_unsupported_raise_clearly():
    with pytest.raises(NotImplementedError):
        tf.lbeta(tf.constant([1.0]))
    with pytest.raises(NotImplementedError):
        tf.tensordot(tf.placeholder(tf.float32), tf.constant([1.0]), 1)


def test_gradients_match_finite_differences():
    rng = np.random.RandomState(0)
    a = rng.uniform(0.5, 2.0, (2, 3))
    b = rng.uniform(0.5, 2.0, (3,))
    m = rng.uniform(-1, 1, (3, 2))
    check_gradients(lambda x, y: x * y + x / y - y ** 2, a, b)
    check_gradients(lambda x: tf.sqrt(x) + tf.exp(-x) + tf.log(x) + tf.sigmoid(x) + tf.tanh(x), a)
    check_gradients(lambda x, y: tf.matmul(x, y), a, m)
    check_gradients(lambda x: tf.reduce_mean(x, 1) + tf.reduce_max(x, 1), a)
    check_gradients(lambda x: tf.reduce_logsumexp(x, 1), a)
    check_gradients(lambda x: tf.nn.l2_normalize(x, 1) if hasattr(tf, "nn") else tf.math.l2_normalize(x, 1), a)
    check_gradients(lambda x: tf.clip_by_value(x, 0.8, 1.5), a)
    check_gradients(lambda x, y: tf.tensordot(x, y, 1), a, m)
    check_gradients(lambda x: x[:, 1:] * 2.0 + tf.sin(x)[0, :2], a)
