"""The tf.train optimizers: two steps of each against NumPy's formulas, slot
names, global steps and learning-rate schedules."""
import numpy as np
import pytest

import flowvm.compat.v1 as tf
from flowvm.tf.ops import gen_ops

W0 = np.array([1.0, -2.0, 3.0], np.float32)
TARGET = np.array([0.5, 0.5, 0.5], np.float32)


def _model():
    w = tf.Variable(W0, name="w")
    # loss = sum((w - target)^2) / 2, so grad = w - target
    loss = gen_ops.l2_loss(gen_ops.sub(w, TARGET))
    return w, loss


def _run_steps(opt, steps=2, global_step=None):
    w, loss = _model()
    train = opt.minimize(loss, global_step=global_step)
    values = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(steps):
            sess.run(train)
            values.append(sess.run(w))
        gs = sess.run(global_step) if global_step is not None else None
    return w, train, values, gs


def test_gradient_descent():
    _, train, values, _ = _run_steps(tf.train.GradientDescentOptimizer(0.1))
    w = W0.copy()
    for got in values:
        w = w - 0.1 * (w - TARGET)
        np.testing.assert_allclose(got, w, rtol=1e-6)
    assert train.name == "GradientDescent"


def test_momentum_and_nesterov():
    for nesterov in (False, True):
        tf.reset_default_graph()
        opt = tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=nesterov)
        wv, _, values, _ = _run_steps(opt)
        w, acc = W0.copy(), np.zeros(3, np.float32)
        for got in values:
            g = w - TARGET
            acc = 0.9 * acc + g
            w = w - (0.1 * g + 0.1 * 0.9 * acc if nesterov else 0.1 * acc)
            np.testing.assert_allclose(got, w, rtol=1e-5)
        assert opt.get_slot(wv, "momentum").op.name == "w/Momentum"
        assert opt.get_slot_names() == ["momentum"]


def test_adam():
    opt = tf.train.AdamOptimizer(0.1)
    wv, train, values, _ = _run_steps(opt)
    w, m, v = W0.copy(), np.zeros(3), np.zeros(3)
    b1, b2, eps = 0.9, 0.999, 1e-8
    for t, got in enumerate(values, 1):
        g = w - TARGET
        lr_t = 0.1 * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        w = w - lr_t * m / (np.sqrt(v) + eps)
        np.testing.assert_allclose(got, w, rtol=1e-5)
    assert opt.get_slot(wv, "m").op.name == "w/Adam"
    assert opt.get_slot(wv, "v").op.name == "w/Adam_1"
    assert opt.get_slot_names() == ["m", "v"]
    names = [x.op.name for x in opt.variables()]
    assert names == ["beta1_power", "beta2_power", "w/Adam", "w/Adam_1"]
    assert train.name == "Adam"
    # Slots are global, untrainable variables.
    assert opt.get_slot(wv, "m") in tf.global_variables()
    assert opt.get_slot(wv, "m") not in tf.trainable_variables()


def test_adagrad():
    opt = tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.2)
    wv, _, values, _ = _run_steps(opt)
    w, acc = W0.copy(), np.full(3, 0.2)
    for got in values:
        g = w - TARGET
        acc = acc + g * g
        w = w - 0.1 * g / np.sqrt(acc)
        np.testing.assert_allclose(got, w, rtol=1e-5)
    assert opt.get_slot(wv, "accumulator").op.name == "w/Adagrad"
    with pytest.raises(ValueError):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)


def test_rmsprop():
    opt = tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5, epsilon=1e-10)
    wv, _, values, _ = _run_steps(opt)
    w, ms, mom = W0.copy(), np.ones(3), np.zeros(3)
    for got in values:
        g = w - TARGET
        ms = 0.9 * ms + 0.1 * g * g
        mom = 0.5 * mom + 0.01 * g / np.sqrt(ms + 1e-10)
        w = w - mom
        np.testing.assert_allclose(got, w, rtol=1e-5)
    assert opt.get_slot(wv, "rms").op.name == "w/RMSProp"
    assert opt.get_slot(wv, "momentum").op.name == "w/RMSProp_1"


def test_rmsprop_centered():
    opt = tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5, epsilon=1e-6, centered=True)
    wv, train, values, _ = _run_steps(opt, steps=3)
    w, ms, mg, mom = W0.copy(), np.ones(3), np.zeros(3), np.zeros(3)
    for got in values:
        g = w - TARGET
        ms = 0.9 * ms + 0.1 * g * g
        mg = 0.9 * mg + 0.1 * g
        mom = 0.5 * mom + 0.01 * g / np.sqrt(ms - mg * mg + 1e-6)
        w = w - mom
        np.testing.assert_allclose(got, w, rtol=1e-5)
    # TensorFlow's slot order and names: rms, mg, momentum.
    assert opt.get_slot(wv, "rms").op.name == "w/RMSProp"
    assert opt.get_slot(wv, "mg").op.name == "w/RMSProp_1"
    assert opt.get_slot(wv, "momentum").op.name == "w/RMSProp_2"
    assert sorted(opt.get_slot_names()) == ["mg", "momentum", "rms"]
    assert "ApplyCenteredRMSProp" in [op.type for op in tf.get_default_graph().get_operations()]


def test_global_step_increments_after_the_update():
    step = tf.train.get_or_create_global_step()
    assert step.op.name == "global_step" and step.dtype.base_dtype == tf.int64
    assert tf.train.get_global_step() is step and tf.train.get_or_create_global_step() is step
    with pytest.raises(ValueError):
        tf.train.create_global_step()
    _, train, values, gs = _run_steps(tf.train.GradientDescentOptimizer(0.5), steps=3, global_step=step)
    assert gs == 3 and train.name == "GradientDescent"
    assert train in tf.get_collection(tf.GraphKeys.TRAIN_OP)
    with tf.Session() as sess:
        sess.run(step.initializer)
        assert tf.train.global_step(sess, step) == 0


def test_compute_and_apply_gradients():
    w, loss = _model()
    unused = tf.Variable(1.0, name="unused")
    opt = tf.train.GradientDescentOptimizer(1.0)
    gv = opt.compute_gradients(loss)
    assert [v for _, v in gv] == [w, unused]
    assert gv[0][0] is not None and gv[1][0] is None  # as TensorFlow: None where the loss does not depend
    scaled = [(gen_ops.mul(g, 0.5), v) for g, v in gv if g is not None]
    train = opt.apply_gradients(scaled, name="apply")
    assert train.name == "apply"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        grad = sess.run(gv[0][0])
        np.testing.assert_allclose(grad, W0 - TARGET)
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), W0 - 0.5 * (W0 - TARGET), rtol=1e-6)
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.minimize(loss, var_list=[unused])
    with pytest.raises(ValueError):
        opt.apply_gradients([])


def test_minimize_with_var_list_and_int_loss_errors():
    w, loss = _model()
    other = tf.Variable(W0, name="other")
    opt = tf.train.GradientDescentOptimizer(0.1)
    train = opt.minimize(loss, var_list=[w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(other), W0)
    with pytest.raises(ValueError, match="Invalid type"):
        opt.compute_gradients(tf.constant(1))


def test_learning_rate_schedules():
    step = tf.Variable(0, dtype=tf.int64, name="step")
    exp = tf.train.exponential_decay(0.1, step, 10, 0.5)
    stair = tf.train.exponential_decay(0.1, step, 10, 0.5, staircase=True)
    pw = tf.train.piecewise_constant(step, [5, 10], [1.0, 0.5, 0.1])
    poly = tf.train.polynomial_decay(1.0, step, 20, end_learning_rate=0.0)
    inv = tf.train.inverse_time_decay(1.0, step, 10, 1.0)
    nat = tf.train.natural_exp_decay(1.0, step, 10, 1.0)
    with pytest.raises(ValueError):
        tf.train.exponential_decay(0.1, None, 10, 0.5)
    with tf.Session() as sess:
        for s, want_pw in ((0, 1.0), (5, 1.0), (6, 0.5), (10, 0.5), (15, 0.1)):
            sess.run(step.initializer)
            sess.run(tf.assign(step, s))
            e, st, p, po, i, n = sess.run([exp, stair, pw, poly, inv, nat])
            np.testing.assert_allclose(e, 0.1 * 0.5 ** (s / 10.0), rtol=1e-6)
            np.testing.assert_allclose(st, 0.1 * 0.5 ** (s // 10), rtol=1e-6)
            assert p == pytest.approx(want_pw)
            np.testing.assert_allclose(po, 1.0 - s / 20.0, rtol=1e-6)
            np.testing.assert_allclose(i, 1.0 / (1.0 + s / 10.0), rtol=1e-6)
            np.testing.assert_allclose(n, np.exp(-s / 10.0), rtol=1e-6)


def test_decayed_learning_rate_drives_an_optimizer():
    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.1, step, 1, 0.5)
    _, _, values, gs = _run_steps(tf.train.GradientDescentOptimizer(lr), steps=2, global_step=step)
    w = W0.copy()
    for s, got in enumerate(values):
        w = w - 0.1 * 0.5 ** s * (w - TARGET)
        np.testing.assert_allclose(got, w, rtol=1e-6)
    assert gs == 2


def test_optimizer_inside_variable_scope_and_two_optimizers():
    w, loss = _model()
    a1 = tf.train.AdamOptimizer()
    a2 = tf.train.AdamOptimizer()
    a1.minimize(loss)
    a2.minimize(loss)
    assert a1.get_slot(w, "m").op.name == "w/Adam"
    assert a2.get_slot(w, "m").op.name == "w/Adam_2"
    assert a2.get_slot(w, "v").op.name == "w/Adam_1_1"  # the unique scope of "w/Adam_1"
    assert a2._get_beta_accumulators()[0].op.name == "beta1_power_1"


def test_linear_regression_converges_with_each_optimizer():
    rng = np.random.RandomState(0)
    xs = rng.randn(128, 4).astype(np.float32)
    ys = xs @ rng.randn(4, 1).astype(np.float32) + 0.5
    x = gen_ops.placeholder(tf.float32, shape=[None, 4], name="x")
    y = gen_ops.placeholder(tf.float32, shape=[None, 1], name="y")
    with tf.variable_scope("linear"):
        w = tf.get_variable("w", [4, 1])
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    loss = gen_ops.mean(gen_ops.squared_difference(gen_ops.bias_add(gen_ops.mat_mul(x, w), b), y), [0, 1])
    for opt in (tf.train.GradientDescentOptimizer(0.1), tf.train.AdamOptimizer(0.1),
                tf.train.MomentumOptimizer(0.05, 0.9), tf.train.AdagradOptimizer(0.5)):
        train = opt.minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(200):
                sess.run(train, {x: xs, y: ys})
            assert sess.run(loss, {x: xs, y: ys}) < 1e-3, type(opt).__name__
