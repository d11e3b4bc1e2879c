"""tf.layers, tf.losses and tf.metrics: names, variables, values, updates."""
import numpy as np
import pytest

import flowvm.compat.v1 as tf
from flowvm.tf.framework import ops as _ops


def has_op(name):
    try:
        _ops.get_op_def(name)
        return True
    except tf.errors.NotFoundError:
        return False


def init_run(fetches, feed=None, sess=None):
    with tf.Session() as s:
        s.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        return s.run(fetches, feed)


def test_dense_names_variables_and_reuse():
    x = tf.placeholder(tf.float32, [None, 4])
    y1 = tf.layers.dense(x, 3, activation=tf.nn.relu)
    y2 = tf.layers.dense(x, 3)
    assert y1.name == "dense/Relu:0" and y1.shape.as_list() == [None, 3]
    assert y2.op.name == "dense_1/BiasAdd"
    names = [v.name for v in tf.trainable_variables()]
    assert names == ["dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0"]
    with tf.variable_scope("net"):
        a = tf.layers.dense(x, 2, name="fc")
    with tf.variable_scope("net", reuse=True):
        b = tf.layers.dense(x, 2, name="fc")
    assert len(tf.trainable_variables()) == 6  # shared
    with pytest.raises(ValueError):
        tf.layers.dense(x, 2, name="fresh", reuse=True)  # nothing to reuse
    with pytest.raises(ValueError):
        tf.layers.dense(tf.placeholder(tf.float32, [None, None]), 2)
    layer = tf.layers.Dense(5, use_bias=False, kernel_initializer=tf.ones_initializer())
    o1, o2 = layer(x), layer.apply(x * 2)
    assert layer.kernel.name == "dense_3/kernel:0" and layer.bias is None and len(layer.variables) == 1
    x3 = tf.placeholder(tf.float32, [None, 2, 4])
    o3 = tf.layers.dense(x3, 3, kernel_initializer=tf.constant_initializer(0.5),
                         bias_initializer=tf.constant_initializer(1.0))
    assert o3.shape.as_list() == [None, 2, 3]
    xv = np.arange(8, dtype=np.float32).reshape(2, 4)
    r = init_run([a, b, o1, o2, o3], {x: xv, x3: xv.reshape(1, 2, 4)})
    np.testing.assert_allclose(r[0], r[1])
    np.testing.assert_allclose(r[2], np.repeat(xv.sum(1, keepdims=True), 5, 1))
    np.testing.assert_allclose(r[3], 2 * r[2])
    np.testing.assert_allclose(r[4], xv.reshape(1, 2, 4).sum(-1, keepdims=True) * 0.5 + 1 + np.zeros((1, 2, 3)))


def test_conv_pool_flatten_dropout():
    rng = np.random.RandomState(0)
    img = rng.rand(2, 6, 6, 3).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 6, 6, 3])
    c = tf.layers.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu)
    cv = tf.layers.conv2d(x, 2, [3, 3], strides=(2, 2))
    assert c.shape.as_list() == [None, 6, 6, 4] and cv.shape.as_list() == [None, 2, 2, 2]
    kernel = tf.get_default_graph().get_tensor_by_name("conv2d/kernel:0")
    assert kernel.shape.as_list() == [3, 3, 3, 4]
    ref = tf.nn.relu(tf.nn.conv2d(x, tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)[0], 1, "SAME"))
    mp = tf.layers.max_pooling2d(c, pool_size=2, strides=2)
    ap = tf.layers.average_pooling2d(c, 3, 1, padding="same")
    assert mp.shape.as_list() == [None, 3, 3, 4] and ap.shape.as_list() == [None, 6, 6, 4]
    assert mp.op.name == "max_pooling2d/MaxPool"
    f = tf.layers.flatten(mp)
    assert f.shape.as_list() == [None, 36]
    d_off = tf.layers.dropout(f, 0.5)
    d_on = tf.layers.dropout(f, 0.5, training=True)
    training = tf.placeholder(tf.bool, [])
    d_t = tf.layers.dropout(f, 0.5, training=training)
    c1 = tf.layers.conv1d(tf.constant(img[:, 0]), 2, 3)
    assert c1.shape.as_list() == [2, 4, 2]
    out = init_run([c, ref, mp, f, d_off, d_on, d_t, c1], {x: img, training: False})
    np.testing.assert_allclose(out[0], out[1], rtol=1e-5)
    np.testing.assert_allclose(out[2], out[0].reshape(2, 3, 2, 3, 2, 4).max((2, 4)), rtol=1e-6)
    np.testing.assert_allclose(out[3], out[2].reshape(2, 36))
    np.testing.assert_allclose(out[4], out[3])
    kept = out[5] != 0
    np.testing.assert_allclose(out[5][kept], 2 * out[3][kept], rtol=1e-6)
    np.testing.assert_allclose(out[6], out[3])
    with pytest.raises(ValueError):
        tf.layers.conv2d(x, 2, 3, padding="full")
    with pytest.raises(ValueError):
        tf.layers.conv2d(tf.placeholder(tf.float32, [None, 4, 4]), 2, 3)


@pytest.mark.parametrize("fused", [False, None])
def test_batch_normalization_training_inference_and_updates(fused):
    if fused is None and not has_op("FusedBatchNormV3"):
        pytest.skip("FusedBatchNormV3 not registered")
    rng = np.random.RandomState(0)
    data = (rng.randn(8, 3, 3, 2) * 3 + 5).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 3, 3, 2])
    training = tf.placeholder(tf.bool, [])
    y = tf.layers.batch_normalization(x, momentum=0.9, training=training, fused=fused)
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert len(update_ops) == 2
    names = sorted(v.name for v in tf.global_variables())
    assert names == ["batch_normalization/beta:0", "batch_normalization/gamma:0",
                     "batch_normalization/moving_mean:0", "batch_normalization/moving_variance:0"]
    assert len(tf.trainable_variables()) == 2
    mm = [v for v in tf.global_variables() if "moving_mean" in v.name][0]
    mv = [v for v in tf.global_variables() if "moving_variance" in v.name][0]
    mu, var = data.mean((0, 1, 2)), data.var((0, 1, 2))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out_eval = sess.run(y, {x: data, training: False})
        np.testing.assert_allclose(out_eval, data / np.sqrt(1 + 1e-3), rtol=1e-4)
        assert (sess.run(mm) == 0).all()  # no update outside training
        sess.run(update_ops, {x: data, training: False})
        assert (sess.run(mm) == 0).all()
        out, _ = sess.run([y, update_ops], {x: data, training: True})
        np.testing.assert_allclose(out, (data - mu) / np.sqrt(var + 1e-3), rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(sess.run(mm), 0.1 * mu, rtol=1e-4)
        n = data.size / 2
        expected_var = 0.9 + 0.1 * (var * n / (n - 1) if fused is None else var)
        np.testing.assert_allclose(sess.run(mv), expected_var, rtol=1e-4)
    static = tf.layers.batch_normalization(tf.constant(data), axis=1, training=True, name="bn_c")
    assert [v.shape.as_list() for v in tf.global_variables() if v.name.startswith("bn_c/")] == [[3]] * 4
    r = init_run(static)
    mu1, var1 = data.mean((0, 2, 3), keepdims=True), data.var((0, 2, 3), keepdims=True)
    np.testing.assert_allclose(r, (data - mu1) / np.sqrt(var1 + 1e-3), rtol=1e-3, atol=1e-3)


def test_regularizers_and_total_loss():
    x = tf.placeholder(tf.float32, [None, 3])
    reg = lambda w: 0.5 * tf.reduce_sum(tf.square(w))  # noqa: E731
    y = tf.layers.dense(x, 2, kernel_initializer=tf.ones_initializer(), kernel_regularizer=reg)
    assert len(tf.losses.get_regularization_losses()) == 1
    mse = tf.losses.mean_squared_error(tf.zeros([1, 2]), y)
    assert tf.losses.get_losses() == [mse]
    total = tf.losses.get_total_loss()
    no_reg = tf.losses.get_total_loss(add_regularization_losses=False)
    r = init_run([total, no_reg, tf.losses.get_regularization_loss()], {x: [[1.0, 1.0, 1.0]]})
    np.testing.assert_allclose(r, [9.0 + 3.0, 9.0, 3.0], rtol=1e-6)
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            tf.losses.get_total_loss()
        assert tf.losses.get_regularization_loss().op.type == "Const"


def test_losses_values_weights_and_reductions():
    rng = np.random.RandomState(0)
    labels = rng.rand(4, 3).astype(np.float32)
    preds = rng.rand(4, 3).astype(np.float32)
    w = np.array([[1.0], [0.0], [2.0], [1.0]], np.float32)
    R = tf.losses.Reduction
    sq = (preds - labels) ** 2
    cases = [
        (tf.losses.mean_squared_error(labels, preds), sq.mean()),
        (tf.losses.mean_squared_error(labels, preds, weights=w), (sq * w).sum() / 9),
        (tf.losses.mean_squared_error(labels, preds, weights=w, reduction=R.SUM), (sq * w).sum()),
        (tf.losses.mean_squared_error(labels, preds, weights=w, reduction=R.MEAN), (sq * w).sum() / 12),
        (tf.losses.mean_squared_error(labels, preds, weights=w, reduction=R.SUM_OVER_BATCH_SIZE),
         (sq * w).sum() / 12),
        (tf.losses.mean_squared_error(labels, preds, weights=w, reduction=R.NONE), sq * w),
        (tf.losses.mean_squared_error(labels, preds, weights=0.0), 0.0),
        (tf.losses.absolute_difference(labels, preds), np.abs(preds - labels).mean()),
        (tf.losses.log_loss(labels, preds), (-labels * np.log(preds + 1e-7) -
                                             (1 - labels) * np.log(1 - preds + 1e-7)).mean()),
        (tf.losses.hinge_loss((labels > 0.5).astype(np.float32), preds - 0.5),
         np.maximum(0, 1 - (2 * (labels > 0.5) - 1) * (preds - 0.5)).mean()),
        (tf.losses.huber_loss(labels, preds * 3, delta=0.5),
         np.where(np.abs(preds * 3 - labels) <= 0.5, 0.5 * (preds * 3 - labels) ** 2,
                  0.5 * (np.abs(preds * 3 - labels) - 0.25)).mean()),
        (tf.losses.cosine_distance(labels, preds, axis=1), (1 - (labels * preds).sum(1)).mean()),
    ]
    logits = rng.randn(4, 3).astype(np.float32)
    onehot = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
    sm = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    smoothed = onehot * 0.9 + 0.1 / 3
    cases += [
        (tf.losses.softmax_cross_entropy(onehot, logits), -(onehot * np.log(sm)).sum(1).mean()),
        (tf.losses.softmax_cross_entropy(onehot, logits, label_smoothing=0.1),
         -(smoothed * np.log(sm)).sum(1).mean()),
        (tf.losses.sparse_softmax_cross_entropy([0, 2, 1, 2], logits), -(onehot * np.log(sm)).sum(1).mean()),
        (tf.losses.sparse_softmax_cross_entropy([[0], [2], [1], [2]], logits, weights=w),
         (-(onehot * np.log(sm)).sum(1) * w[:, 0]).sum() / 3),
        (tf.losses.sigmoid_cross_entropy(onehot, logits),
         (np.maximum(logits, 0) - logits * onehot + np.log1p(np.exp(-np.abs(logits)))).mean()),
    ]
    outs = init_run([c[0] for c in cases])
    for (t, e), o in zip(cases, outs):
        np.testing.assert_allclose(o, e, rtol=1e-4, atol=1e-6, err_msg=t.name)
    assert cases[0][0].op.name == "mean_squared_error/value"
    assert len(tf.get_collection(tf.GraphKeys.LOSSES)) == len(cases)
    tf.losses.mean_squared_error(labels, preds, loss_collection=None)
    assert len(tf.get_collection(tf.GraphKeys.LOSSES)) == len(cases)
    with pytest.raises(ValueError):
        tf.losses.mean_squared_error(labels, preds[:, :2])
    with pytest.raises(ValueError):
        tf.losses.mean_squared_error(labels, preds, weights=np.ones((4, 2)))
    with pytest.raises(ValueError):
        tf.losses.cosine_distance(labels, preds)
    with pytest.raises(ValueError):
        tf.losses.compute_weighted_loss(sq, reduction="bogus")


def test_metrics_stream_over_batches():
    labels = tf.placeholder(tf.int64, [None])
    preds = tf.placeholder(tf.int64, [None])
    acc, acc_update = tf.metrics.accuracy(labels, preds)
    wmean, wmean_update = tf.metrics.mean(tf.cast(preds, tf.float32), weights=tf.cast(labels, tf.float32))
    prec, prec_update = tf.metrics.precision(labels, preds)
    rec, rec_update = tf.metrics.recall(labels, preds)
    rmse, rmse_update = tf.metrics.root_mean_squared_error(labels, preds)
    assert acc.op.name == "accuracy/value" and acc_update.op.name == "accuracy/update_op"
    local = [v.name for v in tf.local_variables()]
    assert "accuracy/total:0" in local and "accuracy/count:0" in local
    assert len(tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)) == len(local)
    assert tf.trainable_variables() == []
    updates = [acc_update, wmean_update, prec_update, rec_update, rmse_update]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(updates, {labels: [1, 0, 1, 1], preds: [1, 0, 0, 1]})
        sess.run(updates, {labels: [0, 1], preds: [1, 1]})
        a, m, p, r, e = sess.run([acc, wmean, prec, rec, rmse])
    # 4 of 6 right; preds where labels are 1: 1, 0, 1, 1; tp 3, fp 1, fn 1
    np.testing.assert_allclose([a, m, p, r, e], [4 / 6, 3 / 4, 3 / 4, 3 / 4, np.sqrt(2 / 6)], rtol=1e-6)
    with pytest.raises(ValueError):
        tf.metrics.accuracy([1, 2, 3], [1, 2])
    c = tf.get_collection("my_metrics")
    tf.metrics.accuracy(labels, preds, metrics_collections=["my_metrics"], updates_collections=["my_updates"])
    assert len(tf.get_collection("my_metrics")) == len(c) + 1 and len(tf.get_collection("my_updates")) == 1


def test_small_model_trains_with_layers_and_losses():
    rng = np.random.RandomState(0)
    xs = rng.randn(200, 2).astype(np.float32)
    ys = (xs[:, 0] + xs[:, 1] > 0).astype(np.int64)
    tf.set_random_seed(3)
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.int64, [None])
    h = tf.layers.dense(x, 8, activation=tf.nn.tanh)
    logits = tf.layers.dense(h, 2)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    params = tf.trainable_variables()
    grads = tf.gradients(loss, params)
    step = [tf.assign_sub(p, 0.5 * g) for p, g in zip(params, grads)]
    acc, acc_update = tf.metrics.accuracy(y, tf.argmax(logits, 1))
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        first = sess.run(loss, {x: xs, y: ys})
        for _ in range(100):
            sess.run(step, {x: xs, y: ys})
        last = sess.run(loss, {x: xs, y: ys})
        sess.run(acc_update, {x: xs, y: ys})
        assert last < first / 3 and sess.run(acc) > 0.95


@pytest.mark.parametrize("fused", [False, True])
def test_training_placeholder_keeps_static_shapes_for_dense(fused):
    # Issue 27, section 5: with `training` a bool placeholder of unknown
    # shape, batch_normalization and dropout keep their input's static
    # shape (smart_cond builds a tf.cond, whose Merge combines the branches'
    # shapes), so a following dense layer can be built.
    if fused and not has_op("FusedBatchNormV3"):
        pytest.skip("FusedBatchNormV3 not registered")
    t = tf.placeholder(tf.bool, None)
    x = tf.placeholder(tf.float32, [None, 2, 2, 3])
    bn = tf.layers.batch_normalization(x, training=t, fused=fused)
    dr = tf.layers.dropout(x, 0.5, training=t)
    assert bn.shape.as_list() == [None, 2, 2, 3] and dr.shape.as_list() == [None, 2, 2, 3]
    d1 = tf.layers.dense(tf.layers.flatten(bn), 4, name="after_bn")
    d2 = tf.layers.dense(tf.layers.flatten(dr), 5, name="after_dropout")
    assert d1.shape.as_list() == [None, 4] and d2.shape.as_list() == [None, 5]
    x2 = tf.placeholder(tf.float32, [None, 6])
    bn2 = tf.layers.batch_normalization(x2, training=t, name="bn2")
    d3 = tf.layers.dense(tf.layers.dropout(bn2, 0.25, training=t), 3, name="head")
    assert bn2.shape.as_list() == [None, 6] and d3.shape.as_list() == [None, 3]
    rng = np.random.RandomState(1)
    data = (rng.randn(5, 2, 2, 3) * 2 + 1).astype(np.float32)
    data2 = rng.randn(5, 6).astype(np.float32)
    feed = {x: data, x2: data2}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run([bn, dr, bn2, d3], {**feed, t: False})
        # Inference: the moving statistics (0 and 1) and no dropout.
        np.testing.assert_allclose(out[0], data / np.sqrt(1 + 1e-3), rtol=1e-4)
        np.testing.assert_allclose(out[1], data)
        np.testing.assert_allclose(out[2], data2 / np.sqrt(1 + 1e-3), rtol=1e-4)
        out = sess.run([bn, dr, d3], {**feed, t: True})
        mu, var = data.mean((0, 1, 2)), data.var((0, 1, 2))
        np.testing.assert_allclose(out[0], (data - mu) / np.sqrt(var + 1e-3), rtol=1e-3, atol=1e-3)
        kept = out[1] != 0
        assert 0 < kept.sum() < data.size
        np.testing.assert_allclose(out[1][kept], 2 * data[kept], rtol=1e-6)
        assert out[2].shape == (5, 3)


def test_training_as_a_constant_tensor_is_decided_when_the_graph_is_built():
    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.layers.dropout(x, 0.5, training=tf.constant(False))
    z = tf.layers.batch_normalization(x, training=tf.constant(True))
    ops = tf.get_default_graph().get_operations()
    assert not [op for op in ops if op.type in ("Switch", "Merge", "Select", "SelectV2")]
    assert y.shape.as_list() == [None, 4] and z.shape.as_list() == [None, 4]
    data = np.arange(8, dtype=np.float32).reshape(2, 4)
    out = init_run([y, z], {x: data})
    np.testing.assert_allclose(out[0], data)
    np.testing.assert_allclose(out[1], (data - data.mean(0)) / np.sqrt(data.var(0) + 1e-3), rtol=1e-3, atol=1e-3)
