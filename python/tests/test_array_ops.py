"""tf array wrappers, slicing and random ops against NumPy."""
import numpy as np
import pytest

import flowvm.compat.v1 as tf
from gradcheck_util import check_gradients


def run(*fetches, feed=None):
    with tf.Session() as sess:
        out = sess.run(list(fetches), feed)
    return out[0] if len(out) == 1 else out


X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def test_getitem_matches_numpy():
    t = tf.constant(X)
    i = tf.constant(1)
    specs = [0, -1, (1, 2), (slice(None), 1), (Ellipsis, 2), (slice(None, None, -1),), (0, slice(1, None)),
             (slice(None), slice(None, None, 2), slice(1, 3)), (None, 0), (Ellipsis, None), (0, Ellipsis, 1),
             (slice(-2, None), tf.newaxis, slice(None, 2)), ()]
    outs = run(*[t[s] for s in specs], t[i], t[:, i:], t[i, i, i])
    for s, o in zip(specs, outs):
        np.testing.assert_array_equal(o, X[s], err_msg=str(s))
    np.testing.assert_array_equal(outs[-3], X[1])
    np.testing.assert_array_equal(outs[-2], X[:, 1:])
    assert outs[-1] == X[1, 1, 1]
    assert t[0].op.type == "StridedSlice" and t[0].shape.as_list() == [3, 4]
    assert t[..., None].shape.as_list() == [2, 3, 4, 1]
    with pytest.raises(TypeError):
        t[1.5]
    with pytest.raises(TypeError):
        t[tf.constant(1.0)]
    # Tensors with a known first dimension iterate.
    rows = list(tf.constant([[1, 2], [3, 4]]))
    assert len(rows) == 2 and run(rows[1]).tolist() == [3, 4]
    # A boolean mask selects, as tf.boolean_mask.
    np.testing.assert_array_equal(run(t[X > 20]), X[X > 20])


def test_creation_ops():
    z = tf.zeros([2, 3])
    assert z.op.type == "Const" and z.op.name == "zeros" and z.dtype == tf.float32
    big = tf.zeros([100, 100], tf.int32)
    assert big.op.type == "Fill" and big.shape.as_list() == [100, 100]
    n = tf.placeholder(tf.int32, [])
    dyn = tf.ones([n, 2], tf.int64)
    assert dyn.shape.as_list() == [None, 2]
    o = tf.ones((2, 2), tf.bool)
    outs = run(z, big, dyn, o, tf.fill([2, 2], 7.0), tf.zeros_like(tf.constant(X)), tf.ones_like(X, tf.int32),
               tf.zeros([0]), feed={n: 3})
    assert (outs[0] == 0).all() and outs[1].sum() == 0 and outs[2].tolist() == [[1, 1]] * 3
    assert outs[3].all() and (outs[4] == 7).all() and outs[5].shape == X.shape and outs[6].dtype == np.int32
    assert outs[7].shape == (0,)
    p = tf.placeholder(tf.float32, [None, 3])
    zl, ol = tf.zeros_like(p), tf.ones_like(p)
    assert zl.shape.as_list() == [None, 3] and ol.shape.as_list() == [None, 3]
    out = run(zl, ol, feed={p: np.ones((2, 3))})
    assert out[0].shape == (2, 3) and (out[1] == 1).all()
    d = tf.placeholder_with_default(tf.constant([1.0, 2.0]), [None])
    assert run(d).tolist() == [1.0, 2.0] and run(d, feed={d: [5.0]}).tolist() == [5.0]
    np.testing.assert_array_equal(run(tf.eye(2, 3)), np.eye(2, 3))


def test_shape_size_rank_reshape():
    t = tf.constant(X)
    s = tf.shape(t)
    assert s.op.type == "Const" and run(s).tolist() == [2, 3, 4]
    p = tf.placeholder(tf.float32, [None, 4])
    ps = tf.shape(p, out_type=tf.int64)
    assert ps.op.type == "Shape" and ps.dtype == tf.int64
    assert run(ps, tf.size(p), tf.rank(p), feed={p: np.zeros((5, 4))})[0].tolist() == [5, 4]
    assert run(tf.size(t), tf.rank(t)) == [24, 3]
    r = tf.reshape(t, [-1, 4])
    assert r.shape.as_list() == [6, 4]
    # A list holding tensors packs into a shape.
    r2 = tf.reshape(p, [tf.shape(p)[0], 2, 2])
    assert r2.shape.as_list() == [None, 2, 2]
    assert run(r2, feed={p: np.zeros((3, 4))}).shape == (3, 2, 2)
    with pytest.raises(ValueError) as e:
        tf.reshape(t, [5, 5])
    assert "Reshape" in str(e.value)
    assert [x.dtype for x in tf.shape_n([t, p])] == [tf.int32, tf.int32]
    e1 = tf.expand_dims(t, 1)
    assert e1.shape.as_list() == [2, 1, 3, 4]
    assert tf.expand_dims(t, dim=-1).shape.as_list() == [2, 3, 4, 1]
    sq = tf.squeeze(tf.constant(np.zeros((1, 2, 1, 3))))
    assert sq.shape.as_list() == [2, 3]
    assert tf.squeeze(tf.constant(np.zeros((1, 2, 1))), axis=[2]).shape.as_list() == [1, 2]
    assert tf.squeeze(tf.constant(np.zeros((1, 2, 1))), squeeze_dims=0).shape.as_list() == [2, 1]
    with pytest.raises(ValueError):
        tf.squeeze(t, axis=[0])
    assert tf.transpose(t).shape.as_list() == [4, 3, 2]
    np.testing.assert_array_equal(run(tf.transpose(t), tf.transpose(t, [1, 0, 2]))[1], X.transpose(1, 0, 2))
    u = tf.placeholder(tf.float32)
    np.testing.assert_array_equal(run(tf.transpose(u), feed={u: X}), X.T)
    assert tf.matrix_transpose(t).shape.as_list() == [2, 4, 3]
    assert run(tf.broadcast_to([1, 2], [3, 2])).tolist() == [[1, 2]] * 3
    assert tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])).as_list() == [2, 3]
    assert run(tf.broadcast_dynamic_shape([2, 1], [3])).tolist() == [2, 3]


def test_concat_stack_split():
    a = tf.constant([[1, 2], [3, 4]])
    b = tf.constant([[5, 6]])
    c = tf.concat([a, b], 0)
    assert c.op.type == "ConcatV2" and c.shape.as_list() == [3, 2]
    single = tf.concat([a], 1)
    assert single.op.type == "Identity"
    st = tf.stack([a, a], axis=1)
    assert st.shape.as_list() == [2, 2, 2]
    const = tf.stack([1, 2, 3])
    assert const.op.type == "Const"
    mixed = tf.stack([tf.constant(1.0), 2.0])
    assert mixed.dtype == tf.float32
    outs = run(c, single, st, const, mixed, tf.concat([a, a], -1))
    assert outs[0].tolist() == [[1, 2], [3, 4], [5, 6]] and outs[1].tolist() == [[1, 2], [3, 4]]
    np.testing.assert_array_equal(outs[2], np.stack([[[1, 2], [3, 4]]] * 2, axis=1))
    assert outs[4].tolist() == [1.0, 2.0] and outs[5].shape == (2, 4)
    with pytest.raises(ValueError):
        tf.concat([a, tf.constant([1, 2])], 0)
    with pytest.raises(ValueError):
        tf.stack([a, a], axis=3)
    parts = tf.unstack(tf.constant(X), axis=1)
    assert len(parts) == 3 and parts[0].shape.as_list() == [2, 4]
    np.testing.assert_array_equal(run(parts[2]), X[:, 2])
    with pytest.raises(ValueError):
        tf.unstack(tf.placeholder(tf.float32, [None]))
    eq = tf.split(tf.constant(X), 2, axis=2)
    sizes = tf.split(tf.constant(X), [1, -1], 1)
    assert len(eq) == 2 and eq[0].shape.as_list() == [2, 3, 2]
    assert [s.shape.as_list() for s in sizes] == [[2, 1, 4], [2, 2, 4]]
    outs = run(*(eq + sizes))
    np.testing.assert_array_equal(outs[1], X[:, :, 2:])
    np.testing.assert_array_equal(outs[3], X[:, 1:])


def test_tile_pad_reverse():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    t = tf.constant(x)
    pads = [[1, 1], [2, 2]]
    outs = run(tf.tile(t, [2, 1]), tf.pad(t, pads), tf.pad(t, pads, constant_values=9),
               tf.pad(t, pads, "REFLECT"), tf.pad(t, pads, mode="symmetric"), tf.reverse(t, [1]),
               tf.reverse_v2(t, [0, 1]))
    np.testing.assert_array_equal(outs[0], np.tile(x, [2, 1]))
    np.testing.assert_array_equal(outs[1], np.pad(x, pads))
    np.testing.assert_array_equal(outs[2], np.pad(x, pads, constant_values=9))
    np.testing.assert_array_equal(outs[3], np.pad(x, pads, "reflect"))
    np.testing.assert_array_equal(outs[4], np.pad(x, pads, "symmetric"))
    np.testing.assert_array_equal(outs[5], x[:, ::-1])
    np.testing.assert_array_equal(outs[6], x[::-1, ::-1])
    with pytest.raises(ValueError):
        tf.pad(t, pads, "WRAP")


def test_gather_one_hot_where_mask():
    params = tf.constant(X)
    outs = run(tf.gather(params, [1, 0]), tf.gather(params, [[2, 0]], axis=1),
               tf.gather_nd(params, [[0, 1], [1, 2]]), tf.one_hot([0, 2, -1], 3),
               tf.one_hot([1, 0], 2, on_value=5, off_value=-1, axis=0), tf.one_hot([1], 2, dtype=tf.bool),
               tf.where([[True, False], [False, True]]), tf.where([True, False], [1, 2], [3, 4]),
               tf.where_v2([True, False], [[1, 2]], 0),
               tf.boolean_mask(params, [True, False]), tf.boolean_mask(params, [[True, False, True]] * 2),
               tf.boolean_mask(params, [False, True, True], axis=1),
               tf.sequence_mask([1, 3, 0]), tf.sequence_mask([1, 2], 4, dtype=tf.float32))
    np.testing.assert_array_equal(outs[0], X[[1, 0]])
    np.testing.assert_array_equal(outs[1], X[:, [[2, 0]]])
    np.testing.assert_array_equal(outs[2], X[[0, 1], [1, 2]])
    np.testing.assert_array_equal(outs[3], [[1, 0, 0], [0, 0, 1], [0, 0, 0]])
    assert outs[3].dtype == np.float32
    np.testing.assert_array_equal(outs[4], [[-1, 5], [5, -1]])
    assert outs[5].dtype == np.bool_
    assert outs[6].tolist() == [[0, 0], [1, 1]] and outs[6].dtype == np.int64
    assert outs[7].tolist() == [1, 4] and outs[8].tolist() == [[1, 0]]
    np.testing.assert_array_equal(outs[9], X[[True, False]])
    np.testing.assert_array_equal(outs[10], X[np.array([[True, False, True]] * 2)])
    np.testing.assert_array_equal(outs[11], X[:, [False, True, True]])
    assert outs[12].tolist() == [[True, False, False], [True, True, True], [False, False, False]]
    assert outs[13].tolist() == [[1, 0, 0, 0], [1, 1, 0, 0]]
    with pytest.raises(ValueError):
        tf.where([True], [1])
    with pytest.raises(TypeError):
        tf.one_hot([0], 2, on_value=1.0, off_value=0)
    with pytest.raises(ValueError):
        tf.boolean_mask(params, True)


def test_misc_array_ops():
    t = tf.constant([3, 1, 3, 2, 1])
    u = tf.unique(t)
    assert run(u.y).tolist() == [3, 1, 2] and run(u.idx).tolist() == [0, 1, 0, 2, 1]
    s = tf.slice(tf.constant(X), [0, 1, 0], [1, 2, -1])
    np.testing.assert_array_equal(run(s), X[0:1, 1:3, :])
    ss = tf.strided_slice(tf.constant(X), [0, 0, 0], [2, 3, 4], [1, 2, 2])
    np.testing.assert_array_equal(run(ss), X[:, ::2, ::2])
    xs, ys = tf.meshgrid([1, 2, 3], [4, 5])
    nx, ny = np.meshgrid([1, 2, 3], [4, 5])
    np.testing.assert_array_equal(run(xs), nx)
    np.testing.assert_array_equal(run(ys), ny)
    ix, iy = tf.meshgrid([1, 2, 3], [4, 5], indexing="ij")
    np.testing.assert_array_equal(run(iy), np.meshgrid([1, 2, 3], [4, 5], indexing="ij")[1])
    c = tf.constant([1.0, 2.0])
    i = tf.identity(c, name="ident")
    assert i.op.name == "ident" and tf.stop_gradient(c).op.type == "StopGradient"
    assert tf.gradients(tf.reduce_sum(tf.stop_gradient(c) * c), c)[0] is not None
    np.testing.assert_array_equal(run(tf.scatter_nd([[1], [3]], [5, 6], [5])), [0, 5, 0, 6, 0])
    np.testing.assert_array_equal(run(tf.tensor_scatter_update([1, 1, 1], [[0]], [7])), [7, 1, 1])
    assert run(tf.invert_permutation([2, 0, 1])).tolist() == [1, 2, 0]
    assert run(tf.dynamic_stitch([[0, 2], [1]], [[1, 3], [2]])).tolist() == [1, 2, 3]


def test_array_gradients():
    rng = np.random.RandomState(0)
    a = rng.rand(2, 3)
    check_gradients(lambda x: tf.concat([x, x * 2], 1), a)
    check_gradients(lambda x: tf.stack([x, x[::-1]], 1), a)
    check_gradients(lambda x: tf.reshape(tf.transpose(x), [3, 2]) * 2, a)
    check_gradients(lambda x: tf.gather(x, [1, 0, 1], axis=1), a)
    check_gradients(lambda x: tf.pad(x, [[1, 0], [0, 2]], "REFLECT"), a)
    check_gradients(lambda x: tf.tile(tf.split(x, [1, 2], 1)[1], [2, 1]), a)
    check_gradients(lambda x: tf.where(x > 0.5, x * x, -x), a)


def test_random_ops_seeds_and_values():
    def draw(graph_seed, op_seed):
        with tf.Graph().as_default():
            if graph_seed is not None:
                tf.set_random_seed(graph_seed)
            ops = [tf.random_normal([50], seed=op_seed), tf.random_uniform([50], seed=op_seed),
                   tf.truncated_normal([50], seed=op_seed)]
            with tf.Session() as sess:
                return sess.run(ops)
    first = draw(42, None)
    again = draw(42, None)
    for x, y in zip(first, again):
        np.testing.assert_array_equal(x, y)
    other = draw(7, None)
    assert not np.array_equal(first[0], other[0])
    with_op_seed = draw(None, 5)
    np.testing.assert_array_equal(with_op_seed[1], draw(None, 5)[1])
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        assert tf.get_seed(None)[0] == 1 and tf.get_seed(3) == (1, 3)
        n = tf.random_normal([1000], mean=2.0, stddev=0.5)
        u = tf.random_uniform([1000], minval=-1.0, maxval=3.0, dtype=tf.float64)
        ui = tf.random_uniform([1000], minval=5, maxval=8, dtype=tf.int32)
        tn = tf.truncated_normal([1000], stddev=2.0)
        sh = tf.random_shuffle(tf.range(10))
        assert n.op.name == "random_normal" and u.dtype == tf.float64 and ui.dtype == tf.int32
        with tf.Session() as sess:
            vn, vu, vi, vt, vs = sess.run([n, u, ui, tn, sh])
    assert abs(vn.mean() - 2.0) < 0.1 and abs(vn.std() - 0.5) < 0.1
    assert vu.min() >= -1 and vu.max() < 3 and abs(vu.mean() - 1.0) < 0.2
    assert vi.min() >= 5 and vi.max() <= 7
    assert np.abs(vt).max() <= 4.0 + 1e-6
    assert sorted(vs.tolist()) == list(range(10))
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            tf.random_uniform([2], dtype=tf.int32)
        with pytest.raises(NotImplementedError):
            tf.multinomial([[0.0, 1.0]], 2)
    assert tf.get_seed(None) == (None, None)
