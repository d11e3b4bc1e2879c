"""tf.nn against NumPy references, gradients and errors."""
import numpy as np
import pytest

import flowvm.compat.v1 as tf
from flowvm.tf.framework import ops as _ops
from gradcheck_util import check_gradients


def run(*fetches, feed=None):
    with tf.Session() as sess:
        out = sess.run(list(fetches), feed)
    return out[0] if len(out) == 1 else out


def has_op(name):
    try:
        _ops.get_op_def(name)
        return True
    except tf.errors.NotFoundError:
        return False


X = np.array([[-2.0, -0.5, 0.0, 0.5, 7.0], [1.0, -3.0, 2.0, 0.1, -0.1]], np.float32)


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def test_activations():
    t = tf.constant(X)
    cases = [
        (tf.nn.relu(t), np.maximum(X, 0)), (tf.nn.relu6(t), np.clip(X, 0, 6)),
        (tf.nn.elu(t), np.where(X > 0, X, np.exp(X) - 1)),
        (tf.nn.selu(t), 1.0507009873554805 * np.where(X > 0, X, 1.6732632423543772 * (np.exp(X) - 1))),
        (tf.nn.softplus(t), np.log1p(np.exp(X))), (tf.nn.softsign(t), X / (1 + np.abs(X))),
        (tf.nn.sigmoid(t), 1 / (1 + np.exp(-X))), (tf.nn.tanh(t), np.tanh(X)),
        (tf.nn.leaky_relu(t), np.where(X > 0, X, 0.2 * X)),
        (tf.nn.leaky_relu(t, alpha=0.01), np.where(X > 0, X, 0.01 * X)),
        (tf.nn.softmax(t), np_softmax(X)), (tf.nn.softmax(t, axis=0), np_softmax(X, 0)),
        (tf.nn.log_softmax(t), np.log(np_softmax(X))), (tf.nn.log_softmax(t, dim=0), np.log(np_softmax(X, 0))),
        (tf.nn.crelu(t), np.maximum(np.concatenate([X, -X], -1), 0)),
    ]
    outs = run(*[c[0] for c in cases])
    for (tt, e), o in zip(cases, outs):
        np.testing.assert_allclose(o, e, rtol=1e-5, atol=1e-6, err_msg=tt.name)
    assert tf.nn.relu(t).op.type == "Relu" and tf.nn.leaky_relu(t).op.type == "LeakyRelu"


def test_bias_add_xw_plus_b_and_l2_loss():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2)
    b = np.array([1.0, -1.0], np.float32)
    bc = np.array([1.0, 2.0, 3.0], np.float32)
    w = np.ones((2, 3), np.float32)
    outs = run(tf.nn.bias_add(x, b), tf.nn.bias_add(x, bc, data_format="NCHW"),
               tf.nn.xw_plus_b(x[0, 0], w, bc), tf.nn.relu_layer(x[0, 0], -w, bc), tf.nn.l2_loss(X))
    np.testing.assert_allclose(outs[0], x + b)
    np.testing.assert_allclose(outs[1], x + bc[None, :, None, None])
    np.testing.assert_allclose(outs[2], x[0, 0] @ w + bc)
    np.testing.assert_allclose(outs[3], np.maximum(x[0, 0] @ -w + bc, 0))
    np.testing.assert_allclose(outs[4], (X ** 2).sum() / 2, rtol=1e-6)
    with pytest.raises(ValueError):
        tf.nn.bias_add(x, bc)


def np_conv2d(x, w, stride, padding):
    n, h, wd, c = x.shape
    kh, kw, _, o = w.shape
    if padding == "SAME":
        oh, ow = -(-h // stride), -(-wd // stride)
        ph = max((oh - 1) * stride + kh - h, 0)
        pw = max((ow - 1) * stride + kw - wd, 0)
        x = np.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)])
    else:
        oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, oh, ow, o), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j, :] = np.tensordot(patch, w, axes=([1, 2, 3], [0, 1, 2]))
    return out


def test_conv_and_pooling():
    rng = np.random.RandomState(0)
    x = rng.randn(2, 5, 5, 3).astype(np.float32)
    w = rng.randn(3, 3, 3, 4).astype(np.float32)
    c1 = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME")
    c2 = tf.nn.conv2d(x, w, strides=2, padding="VALID")
    c3 = tf.nn.conv2d(input=x, filters=w, strides=[2, 2], padding="SAME")
    assert c1.shape.as_list() == [2, 5, 5, 4] and c2.shape.as_list() == [2, 2, 2, 4]
    mp = tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    ap = tf.nn.avg_pool(x, ksize=2, strides=2, padding="VALID")
    mps = tf.nn.max_pool(x, 3, 2, "SAME")
    assert mp.shape.as_list() == [2, 2, 2, 3] and mps.shape.as_list() == [2, 3, 3, 3]
    outs = run(c1, c2, c3, mp, ap)
    np.testing.assert_allclose(outs[0], np_conv2d(x, w, 1, "SAME"), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(outs[1], np_conv2d(x, w, 2, "VALID"), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(outs[2], np_conv2d(x, w, 2, "SAME"), rtol=1e-4, atol=1e-4)
    blocks = x[:, :4, :4].reshape(2, 2, 2, 2, 2, 3)
    np.testing.assert_allclose(outs[3], blocks.max((2, 4)), rtol=1e-6)
    np.testing.assert_allclose(outs[4], blocks.mean((2, 4)), rtol=1e-5)
    # conv2d_transpose is the gradient of conv2d with respect to its input.
    dy = rng.randn(2, 3, 3, 4).astype(np.float32)
    xp = tf.placeholder(tf.float32, [2, 5, 5, 3])
    g = tf.gradients(tf.reduce_sum(tf.nn.conv2d(xp, w, 2, "SAME") * dy), xp)[0]
    ct = tf.nn.conv2d_transpose(dy, w, [2, 5, 5, 3], strides=[1, 2, 2, 1], padding="SAME")
    assert ct.shape.as_list() == [2, 5, 5, 3]
    a, b = run(g, ct, feed={xp: x})
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError):
        tf.nn.conv2d(x, w, strides=[1, 1, 1], padding="SAME")
    with pytest.raises(ValueError):
        tf.nn.conv2d(x, w, strides=1, padding="FULL")
    with pytest.raises(ValueError) as e:
        tf.nn.conv2d(x, rng.randn(3, 3, 2, 4).astype(np.float32), strides=1, padding="SAME")
    assert "Conv2D" in str(e.value)
    dw = tf.nn.depthwise_conv2d(x, rng.randn(3, 3, 3, 2).astype(np.float32), [1, 1, 1, 1], "SAME")
    assert dw.shape.as_list() == [2, 5, 5, 6]


@pytest.mark.skipif(not has_op("Conv3D"), reason="Conv3D not registered")
def test_conv3d_and_3d_pooling():
    rng = np.random.RandomState(0)
    x = rng.randn(1, 4, 4, 4, 2).astype(np.float32)
    w = rng.randn(2, 2, 2, 2, 3).astype(np.float32)
    c = tf.nn.conv3d(x, w, strides=[1, 1, 1, 1, 1], padding="VALID")
    mp = tf.nn.max_pool3d(x, 2, 2, "VALID")
    ap = tf.nn.avg_pool3d(x, [2, 2, 2], [2, 2, 2], "VALID")
    assert c.shape.as_list() == [1, 3, 3, 3, 3] and mp.shape.as_list() == [1, 2, 2, 2, 2]
    oc, om, oa = run(c, mp, ap)
    ref = np.zeros((1, 3, 3, 3, 3))
    for i in range(3):
        for j in range(3):
            for k in range(3):
                ref[0, i, j, k] = np.tensordot(x[0, i:i + 2, j:j + 2, k:k + 2], w, 4)
    np.testing.assert_allclose(oc, ref, rtol=1e-4, atol=1e-4)
    blocks = x.reshape(1, 2, 2, 2, 2, 2, 2, 2)
    np.testing.assert_allclose(om, blocks.max((2, 4, 6)), rtol=1e-6)
    np.testing.assert_allclose(oa, blocks.mean((2, 4, 6)), rtol=1e-5)


def test_dropout():
    x = tf.ones([100, 100])
    d = tf.nn.dropout(x, keep_prob=0.5, seed=1)
    r = tf.nn.dropout(x, rate=0.25)
    kp = tf.placeholder(tf.float32, [])
    dp = tf.nn.dropout(x, kp)
    ns = tf.nn.dropout(x, rate=0.5, noise_shape=[100, 1])
    assert d.shape.as_list() == [100, 100]
    od, orr, o1, ons = run(d, r, dp, ns, feed={kp: 1.0})
    assert set(np.unique(od)) <= {0.0, 2.0} and 0.4 < (od > 0).mean() < 0.6
    assert np.allclose(orr[orr > 0], 4.0 / 3) and 0.7 < (orr > 0).mean() < 0.8
    assert (o1 == 1).all()
    assert all(len(set(row)) == 1 for row in ons)  # one draw per row
    with pytest.raises(ValueError):
        tf.nn.dropout(x, keep_prob=0.5, rate=0.5)
    with pytest.raises(ValueError):
        tf.nn.dropout(x, rate=1.0)
    with pytest.raises(ValueError):
        tf.nn.dropout(tf.constant([1, 2]), rate=0.5)


def test_cross_entropies():
    logits = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], np.float32)
    labels = np.array([[0.2, 0.7, 0.1], [0.0, 0.0, 1.0]], np.float32)
    sparse = np.array([1, 2])
    ref = -(labels * np.log(np_softmax(logits))).sum(-1)
    ref_sparse = -np.log(np_softmax(logits))[[0, 1], sparse]
    l3 = np.stack([logits, logits * 2])
    s3 = np.stack([sparse, sparse[::-1]])
    ref3 = -np.log(np_softmax(l3))[np.arange(2)[:, None], np.arange(2)[None, :], s3]
    z = np.array([[1.0, 0.0, 1.0], [0.0, 0.5, 1.0]], np.float32)
    ref_sig = np.maximum(logits, 0) - logits * z + np.log1p(np.exp(-np.abs(logits)))
    outs = run(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits),
               tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits),
               tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels.T, logits=logits.T, axis=0),
               tf.nn.sparse_softmax_cross_entropy_with_logits(labels=sparse, logits=logits),
               tf.nn.sparse_softmax_cross_entropy_with_logits(labels=s3, logits=l3),
               tf.nn.softmax_cross_entropy_with_logits_v2(labels=np.eye(3)[s3], logits=l3),
               tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=logits),
               tf.nn.weighted_cross_entropy_with_logits(targets=z, logits=logits, pos_weight=1.0))
    np.testing.assert_allclose(outs[0], ref, rtol=1e-5)
    np.testing.assert_allclose(outs[1], ref, rtol=1e-5)
    np.testing.assert_allclose(outs[2], ref, rtol=1e-5)
    np.testing.assert_allclose(outs[3], ref_sparse, rtol=1e-5)
    np.testing.assert_allclose(outs[4], ref3, rtol=1e-5)
    np.testing.assert_allclose(outs[5], ref3, rtol=1e-5)
    np.testing.assert_allclose(outs[6], ref_sig, rtol=1e-5)
    np.testing.assert_allclose(outs[7], ref_sig, rtol=1e-5)
    with pytest.raises(ValueError):
        tf.nn.softmax_cross_entropy_with_logits_v2(labels, logits)  # positional: refused as TF does
    with pytest.raises(ValueError):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[[1], [2]], logits=logits)
    with pytest.raises(ValueError):
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels[:, :2], logits=logits)
    with pytest.raises(ValueError):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=z[0], logits=logits)
    # The v1 form stops gradients into labels; v2 lets them through.
    lab = tf.constant(labels)
    g1 = tf.gradients(tf.nn.softmax_cross_entropy_with_logits(labels=lab, logits=logits), lab)[0]
    g2 = tf.gradients(tf.nn.softmax_cross_entropy_with_logits_v2(labels=lab, logits=logits), lab)[0]
    assert g2 is not None and np.abs(run(g2)).sum() > 0
    assert g1 is None or (run(g1) == 0).all()


def test_moments_and_batch_normalization():
    rng = np.random.RandomState(0)
    x = rng.randn(4, 3, 2).astype(np.float32)
    mean, var = tf.nn.moments(tf.constant(x), axes=[0, 1])
    mk, vk = tf.nn.moments(tf.constant(x), [0], keep_dims=True)
    assert mean.shape.as_list() == [2] and mk.shape.as_list() == [1, 3, 2]
    bn = tf.nn.batch_normalization(x, mean, var, offset=0.5, scale=2.0, variance_epsilon=1e-3)
    bn_none = tf.nn.batch_normalization(x, mean, var, None, None, 1e-3)
    outs = run(mean, var, mk, vk, bn, bn_none)
    np.testing.assert_allclose(outs[0], x.mean((0, 1)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[1], x.var((0, 1)), rtol=1e-5)
    np.testing.assert_allclose(outs[2], x.mean(0, keepdims=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[3], x.var(0, keepdims=True), rtol=1e-5)
    norm = (x - x.mean((0, 1))) / np.sqrt(x.var((0, 1)) + 1e-3)
    np.testing.assert_allclose(outs[4], norm * 2 + 0.5, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(outs[5], norm, rtol=1e-4, atol=1e-5)


@pytest.mark.skipif(not has_op("FusedBatchNormV3"), reason="FusedBatchNormV3 not registered")
def test_fused_batch_norm():
    rng = np.random.RandomState(0)
    x = rng.randn(2, 3, 3, 4).astype(np.float32)
    scale = rng.rand(4).astype(np.float32) + 0.5
    offset = rng.randn(4).astype(np.float32)
    y, m, v = tf.nn.fused_batch_norm(x, scale, offset, epsilon=1e-3)
    yi, _, _ = tf.nn.fused_batch_norm(x, scale, offset, mean=np.zeros(4, np.float32),
                                      variance=np.ones(4, np.float32), is_training=False)
    oy, om, ov, oyi = run(y, m, v, yi)
    mu, var = x.mean((0, 1, 2)), x.var((0, 1, 2))
    np.testing.assert_allclose(oy, (x - mu) / np.sqrt(var + 1e-3) * scale + offset, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(om, mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ov, var * 18 / 17, rtol=1e-4)  # the unbiased variance
    np.testing.assert_allclose(oyi, x / np.sqrt(1 + 1e-3) * scale + offset, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError):
        tf.nn.fused_batch_norm(x, scale, offset, is_training=False)


def test_embedding_lookup_top_k_in_top_k():
    table = np.arange(20, dtype=np.float32).reshape(10, 2)
    ids = np.array([[0, 9], [3, 4]])
    single = tf.nn.embedding_lookup(table, ids)
    # mod sharding: shard p holds ids p, p + 3, ...; div: contiguous ranges of 4, 3, 3
    mod_shards = [table[p::3] for p in range(3)]
    div_shards = [table[0:4], table[4:7], table[7:10]]
    mod = tf.nn.embedding_lookup(mod_shards, ids)
    div = tf.nn.embedding_lookup(div_shards, ids, partition_strategy="div")
    clipped = tf.nn.embedding_lookup(table, [9], max_norm=1.0)
    assert single.shape.as_list() == [2, 2, 2]
    outs = run(single, mod, div, clipped)
    for o in outs[:3]:
        np.testing.assert_array_equal(o, table[ids])
    np.testing.assert_allclose(np.linalg.norm(outs[3][0]), 1.0, rtol=1e-5)
    vals, idx = tf.nn.top_k([[1.0, 5.0, 3.0], [2.0, 0.0, 4.0]], k=2)
    assert run(vals).tolist() == [[5.0, 3.0], [4.0, 2.0]] and run(idx).tolist() == [[1, 2], [2, 0]]
    preds = [[0.1, 0.5, 0.4], [0.3, 0.3, 0.4], [0.8, 0.1, 0.1]]
    assert run(tf.nn.in_top_k(preds, [1, 0, 2], 1)).tolist() == [True, False, False]
    assert run(tf.nn.in_top_k(preds, [2, 1, 1], 2)).tolist() == [True, True, True]  # ties count
    assert run(tf.nn.in_top_k(preds, [3, -1, 0], 3)).tolist() == [False, False, True]
    with pytest.raises(ValueError):
        tf.nn.embedding_lookup([], ids)
    with pytest.raises(NotImplementedError):
        tf.nn.nce_loss(None, None, None, None, 1, 2)


def test_nn_gradients():
    rng = np.random.RandomState(1)
    x = rng.randn(2, 4)
    lab = np_softmax(rng.randn(2, 4))
    check_gradients(lambda v: tf.nn.softmax(v) * 3.0, x)
    check_gradients(lambda v: tf.nn.log_softmax(v, axis=0), x)
    check_gradients(lambda v: tf.nn.softmax_cross_entropy_with_logits_v2(labels=lab, logits=v), x)
    check_gradients(lambda v: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 3], logits=v), x)
    check_gradients(lambda v: tf.nn.sigmoid_cross_entropy_with_logits(labels=lab, logits=v), x)
    check_gradients(lambda v: tf.nn.elu(v) + tf.nn.softplus(v) + tf.nn.leaky_relu(v), x)
    check_gradients(lambda v: tf.concat(tf.nn.moments(v, [0]), 0), x)
    check_gradients(lambda v, w: tf.nn.conv2d(v, w, 1, "SAME"), rng.randn(1, 3, 3, 2), rng.randn(2, 2, 2, 2))
    check_gradients(lambda v: tf.nn.max_pool(v, 2, 1, "VALID") + tf.nn.avg_pool(v, 2, 1, "VALID"),
                    rng.randn(1, 3, 3, 2))
    check_gradients(lambda v: tf.nn.embedding_lookup([v[:2], v[2:]], [[0, 3], [2, 1]]),
                    rng.randn(4, 3))
