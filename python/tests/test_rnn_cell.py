"""tf.nn.rnn_cell: each cell's outputs and states for fixed weights against a
NumPy implementation of TensorFlow's equations (rnn_reference.py), TF's
variable names, shapes and initial values, state_is_tuple both ways,
MultiRNNCell stacking, the wrappers (dropout statistics under a seed,
variational dropout, residual, device), and TF's errors."""
import numpy as np
import pytest

import flowvm.compat.v1 as tf
from rnn_reference import (load, np_basic_lstm, np_basic_rnn, np_gru, np_lstm, rand, shapes,
                           variables_by_name)


# ---- cells: names, shapes, numbers -------------------------------------------------
def test_basic_rnn_cell_matches_numpy():
    x, h = rand(3, 4), rand(3, 5)
    cell = tf.nn.rnn_cell.BasicRNNCell(5)
    assert cell.state_size == 5 and cell.output_size == 5
    with tf.variable_scope("rnn"):
        out, state = cell(tf.constant(x), tf.constant(h))
    assert shapes() == {"rnn/basic_rnn_cell/kernel:0": [9, 5], "rnn/basic_rnn_cell/bias:0": [5]}
    kernel, bias = rand(9, 5, scale=1.0), rand(5)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert np.all(sess.run("rnn/basic_rnn_cell/bias:0") == 0)  # TF's zeros bias
        load(sess, {"rnn/basic_rnn_cell/kernel:0": kernel, "rnn/basic_rnn_cell/bias:0": bias})
        got_out, got_state = sess.run([out, state])
    want, _ = np_basic_rnn(x, h, kernel, bias)
    np.testing.assert_allclose(got_out, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state, want, rtol=1e-5, atol=1e-6)
    assert out.shape.as_list() == [3, 5]


@pytest.mark.parametrize("forget_bias", [1.0, 0.25])
@pytest.mark.parametrize("state_is_tuple", [True, False])
def test_basic_lstm_cell_matches_numpy(forget_bias, state_is_tuple):
    x, c, h = rand(2, 3), rand(2, 4), rand(2, 4)
    cell = tf.nn.rnn_cell.BasicLSTMCell(4, forget_bias=forget_bias, state_is_tuple=state_is_tuple)
    if state_is_tuple:
        assert cell.state_size == tf.nn.rnn_cell.LSTMStateTuple(4, 4)
        state_in = tf.nn.rnn_cell.LSTMStateTuple(tf.constant(c), tf.constant(h))
    else:
        assert cell.state_size == 8
        state_in = tf.constant(np.concatenate([c, h], 1))
    with tf.variable_scope("rnn"):
        out, state = cell(tf.constant(x), state_in)
    assert shapes() == {"rnn/basic_lstm_cell/kernel:0": [7, 16], "rnn/basic_lstm_cell/bias:0": [16]}
    kernel, bias = rand(7, 16, scale=1.0), rand(16)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        load(sess, {"rnn/basic_lstm_cell/kernel:0": kernel, "rnn/basic_lstm_cell/bias:0": bias})
        got_out, got_state = sess.run([out, state])
    want_out, (want_c, want_h) = np_basic_lstm(x, c, h, kernel, bias, forget_bias)
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5, atol=1e-6)
    if state_is_tuple:
        assert isinstance(state, tf.nn.rnn_cell.LSTMStateTuple)
        assert isinstance(got_state, tf.nn.rnn_cell.LSTMStateTuple)
        np.testing.assert_allclose(got_state.c, want_c, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_state.h, want_h, rtol=1e-5, atol=1e-6)
        assert state.dtype == tf.float32
    else:
        np.testing.assert_allclose(got_state, np.concatenate([want_c, want_h], 1), rtol=1e-5, atol=1e-6)


def test_lstm_gate_order_is_i_j_f_o():
    # Only the f columns of the bias are large: the cell keeps its c.
    x, c, h = np.zeros((1, 1), np.float32), np.array([[0.7]], np.float32), np.zeros((1, 1), np.float32)
    cell = tf.nn.rnn_cell.BasicLSTMCell(1, forget_bias=0.0)
    _, state = cell(tf.constant(x), (tf.constant(c), tf.constant(h)))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        load(sess, {"basic_lstm_cell/kernel:0": np.zeros((2, 4), np.float32),
                    "basic_lstm_cell/bias:0": np.array([-30, 0, 30, 0], np.float32)})
        got = sess.run(state)
    np.testing.assert_allclose(got.c, c, rtol=1e-6)


@pytest.mark.parametrize("peepholes", [False, True])
@pytest.mark.parametrize("num_proj", [None, 3])
@pytest.mark.parametrize("state_is_tuple", [True, False])
def test_lstm_cell_matches_numpy(peepholes, num_proj, state_is_tuple):
    units, depth, batch = 4, 2, 3
    h_depth = num_proj or units
    x, c, m = rand(batch, depth), rand(batch, units, scale=2.0), rand(batch, h_depth)
    cell = tf.nn.rnn_cell.LSTMCell(units, use_peepholes=peepholes, cell_clip=0.6, num_proj=num_proj,
                                   proj_clip=0.4 if num_proj else None, forget_bias=0.5,
                                   state_is_tuple=state_is_tuple)
    assert cell.output_size == h_depth
    if state_is_tuple:
        assert cell.state_size == (units, h_depth)
        state_in = tf.nn.rnn_cell.LSTMStateTuple(tf.constant(c), tf.constant(m))
    else:
        assert cell.state_size == units + h_depth
        state_in = tf.constant(np.concatenate([c, m], 1))
    with tf.variable_scope("rnn"):
        out, state = cell(tf.constant(x), state_in)
    want_shapes = {"rnn/lstm_cell/kernel:0": [depth + h_depth, 4 * units], "rnn/lstm_cell/bias:0": [4 * units]}
    values = {"rnn/lstm_cell/kernel:0": rand(depth + h_depth, 4 * units, scale=1.5),
              "rnn/lstm_cell/bias:0": rand(4 * units)}
    peep = None
    if peepholes:
        for g in ("f", "i", "o"):
            want_shapes["rnn/lstm_cell/w_%s_diag:0" % g] = [units]
            values["rnn/lstm_cell/w_%s_diag:0" % g] = rand(units, scale=2.0)
        peep = tuple(values["rnn/lstm_cell/w_%s_diag:0" % g] for g in ("f", "i", "o"))
    proj = None
    if num_proj:
        want_shapes["rnn/lstm_cell/projection/kernel:0"] = [units, num_proj]
        values["rnn/lstm_cell/projection/kernel:0"] = proj = rand(units, num_proj, scale=2.0)
    assert shapes() == want_shapes
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        load(sess, values)
        got_out, got_state = sess.run([out, state])
    want_out, (want_c, want_m) = np_lstm(x, c, m, values["rnn/lstm_cell/kernel:0"], values["rnn/lstm_cell/bias:0"],
                                         0.5, peep, 0.6, proj, 0.4 if num_proj else None)
    assert np.abs(want_c).max() == pytest.approx(0.6)  # the clip is exercised
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5, atol=1e-6)
    if state_is_tuple:
        np.testing.assert_allclose(got_state.c, want_c, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_state.h, want_m, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_allclose(got_state, np.concatenate([want_c, want_m], 1), rtol=1e-5, atol=1e-6)


def test_lstm_cell_refuses_sharded_variables():
    with pytest.raises(NotImplementedError, match="num_unit_shards"):
        tf.nn.rnn_cell.LSTMCell(4, num_unit_shards=2)


def test_gru_cell_matches_numpy():
    x, h = rand(3, 2), rand(3, 4)
    cell = tf.nn.rnn_cell.GRUCell(4)
    with tf.variable_scope("rnn"):
        out, state = cell(tf.constant(x), tf.constant(h))
    assert shapes() == {"rnn/gru_cell/gates/kernel:0": [6, 8], "rnn/gru_cell/gates/bias:0": [8],
                        "rnn/gru_cell/candidate/kernel:0": [6, 4], "rnn/gru_cell/candidate/bias:0": [4]}
    values = {"rnn/gru_cell/gates/kernel:0": rand(6, 8, scale=1.5), "rnn/gru_cell/gates/bias:0": rand(8),
              "rnn/gru_cell/candidate/kernel:0": rand(6, 4, scale=1.5), "rnn/gru_cell/candidate/bias:0": rand(4)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        # TF's initial biases: ones for the gates, zeros for the candidate.
        assert np.all(sess.run("rnn/gru_cell/gates/bias:0") == 1)
        assert np.all(sess.run("rnn/gru_cell/candidate/bias:0") == 0)
        load(sess, values)
        got_out, got_state = sess.run([out, state])
    want, _ = np_gru(x, h, *(values["rnn/gru_cell/%s:0" % n] for n in
                             ("gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias")))
    np.testing.assert_allclose(got_out, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("state_is_tuple", [True, False])
def test_multi_rnn_cell_stacks_cells(state_is_tuple):
    x = rand(2, 3)
    if state_is_tuple:
        cells = [tf.nn.rnn_cell.BasicLSTMCell(4), tf.nn.rnn_cell.BasicLSTMCell(5)]
        names = ["basic_lstm_cell", "basic_lstm_cell"]
    else:
        cells = [tf.nn.rnn_cell.BasicRNNCell(4), tf.nn.rnn_cell.GRUCell(5)]
        names = ["basic_rnn_cell", "gru_cell"]
    cell = tf.nn.rnn_cell.MultiRNNCell(cells, state_is_tuple=state_is_tuple)
    assert cell.output_size == 5
    state0 = cell.zero_state(2, tf.float32)
    with tf.variable_scope("rnn"):
        out, state = cell(tf.constant(x), state0)
    got_shapes = shapes()
    for i, name in enumerate(names):
        assert "rnn/multi_rnn_cell/cell_%d/%s/kernel:0" % (i, name) in got_shapes or \
            "rnn/multi_rnn_cell/cell_%d/%s/gates/kernel:0" % (i, name) in got_shapes, got_shapes
    values = {n: rand(*s, scale=1.0) for n, s in got_shapes.items()}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        load(sess, values)
        got_out, got_state = sess.run([out, state])
    if state_is_tuple:
        assert cell.state_size == ((4, 4), (5, 5))
        assert isinstance(state, tuple) and isinstance(state[1], tf.nn.rnn_cell.LSTMStateTuple)
        p = "rnn/multi_rnn_cell/cell_%d/basic_lstm_cell/%s:0"
        h0, s0 = np_basic_lstm(x, np.zeros((2, 4)), np.zeros((2, 4)), values[p % (0, "kernel")],
                               values[p % (0, "bias")])
        h1, s1 = np_basic_lstm(h0, np.zeros((2, 5)), np.zeros((2, 5)), values[p % (1, "kernel")],
                               values[p % (1, "bias")])
        np.testing.assert_allclose(got_out, h1, rtol=1e-5, atol=1e-6)
        for got, want in zip(got_state, (s0, s1)):
            np.testing.assert_allclose(got.c, want[0], rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(got.h, want[1], rtol=1e-5, atol=1e-6)
    else:
        assert cell.state_size == 9
        p0, p1 = "rnn/multi_rnn_cell/cell_0/basic_rnn_cell/", "rnn/multi_rnn_cell/cell_1/gru_cell/"
        h0, _ = np_basic_rnn(x, np.zeros((2, 4)), values[p0 + "kernel:0"], values[p0 + "bias:0"])
        h1, _ = np_gru(h0, np.zeros((2, 5)), values[p1 + "gates/kernel:0"], values[p1 + "gates/bias:0"],
                       values[p1 + "candidate/kernel:0"], values[p1 + "candidate/bias:0"])
        np.testing.assert_allclose(got_out, h1, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_state, np.concatenate([h0, h1], 1), rtol=1e-5, atol=1e-6)
    assert len(cell.trainable_weights) == 4 if state_is_tuple else 6


def test_multi_rnn_cell_errors():
    with pytest.raises(ValueError, match="Must specify at least one cell"):
        tf.nn.rnn_cell.MultiRNNCell([])
    with pytest.raises(ValueError, match="state_is_tuple is not set"):
        tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(2)], state_is_tuple=False)
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicRNNCell(2)])
    with pytest.raises(ValueError, match="Expected state to be a tuple of length 1"):
        cell(tf.zeros([1, 3]), tf.zeros([1, 2]))


def test_zero_state():
    cell = tf.nn.rnn_cell.BasicLSTMCell(3)
    z = cell.zero_state(4, tf.float32)
    assert isinstance(z, tf.nn.rnn_cell.LSTMStateTuple)
    assert z.c.shape.as_list() == [4, 3] and "BasicLSTMCellZeroState" in z.c.name
    batch = tf.placeholder(tf.int32, [])
    z2 = tf.nn.rnn_cell.GRUCell(2).zero_state(batch, tf.float64)
    assert z2.shape.as_list() == [None, 2] and z2.dtype == tf.float64
    with tf.Session() as sess:
        c, h = sess.run(z)
        assert np.all(c == 0) and c.shape == (4, 3) and h.shape == (4, 3)
        assert sess.run(z2, {batch: 5}).shape == (5, 2)


def test_cell_variables_are_reused_across_calls_and_cells_get_their_own_scope():
    cell = tf.nn.rnn_cell.BasicLSTMCell(2)
    x = tf.zeros([1, 3])
    s = cell.zero_state(1, tf.float32)
    cell(x, s)
    cell(x, s)  # same variables
    assert sorted(shapes()) == ["basic_lstm_cell/bias:0", "basic_lstm_cell/kernel:0"]
    assert len(cell.trainable_weights) == 2 and len(cell.variables) == 2
    other = tf.nn.rnn_cell.BasicLSTMCell(2)
    other(x, s)  # a second cell object: a scope of its own, as TF names it
    assert "basic_lstm_cell_1/kernel:0" in shapes()
    # reuse=True under an existing scope shares the first cell's variables.
    with tf.variable_scope("", reuse=True):
        shared = tf.nn.rnn_cell.BasicLSTMCell(2, reuse=True)
        shared(x, s)
    assert len(shapes()) == 4
    # An explicit scope names the variables.
    tf.nn.rnn_cell.GRUCell(2)(x, tf.zeros([1, 2]), scope="my_gru")
    assert "my_gru/gates/kernel:0" in shapes()


def test_cell_input_errors():
    cell = tf.nn.rnn_cell.BasicLSTMCell(2)
    with pytest.raises(ValueError, match="expected ndim=2, found ndim=3"):
        cell(tf.zeros([1, 2, 3]), cell.zero_state(1, tf.float32))
    with pytest.raises(ValueError, match="Expected inputs.shape\\[-1\\] to be known"):
        tf.nn.rnn_cell.BasicRNNCell(2)(tf.placeholder(tf.float32, [1, None]), tf.zeros([1, 2]))
    with pytest.raises(ValueError, match="RNN cell only supports floating point inputs"):
        tf.nn.rnn_cell.BasicRNNCell(2, dtype=tf.float32)(tf.zeros([1, 3], tf.int32), tf.zeros([1, 2], tf.int32))


# ---- wrappers ------------------------------------------------------------------------
def test_dropout_wrapper_keep_prob_one_is_identity():
    x, h = rand(3, 2), rand(3, 4)
    cell = tf.nn.rnn_cell.GRUCell(4)
    with tf.variable_scope("rnn"):
        plain_out, plain_state = cell(tf.constant(x), tf.constant(h))
    wrapped = tf.nn.rnn_cell.DropoutWrapper(cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0)
    assert wrapped.state_size == 4 and wrapped.output_size == 4 and wrapped.wrapped_cell is cell
    with tf.variable_scope("rnn", reuse=True):
        out, state = wrapped(tf.constant(x), tf.constant(h))
    assert len(shapes()) == 4  # the wrapper adds no variables and no scope
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b, c, d = sess.run([plain_out, plain_state, out, state])
    np.testing.assert_array_equal(a, c)
    np.testing.assert_array_equal(b, d)


def test_dropout_wrapper_statistics_and_state_filter():
    tf.set_random_seed(3)
    batch, units = 200, 50
    cell = tf.nn.rnn_cell.BasicLSTMCell(units)
    wrapped = tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=0.5, state_keep_prob=0.25, seed=7)
    x = tf.constant(rand(batch, 3))
    state0 = tf.nn.rnn_cell.LSTMStateTuple(tf.ones([batch, units]), tf.ones([batch, units]))
    out, state = wrapped(x, state0)
    with tf.variable_scope("", reuse=True):
        plain_out, plain_state = cell(x, state0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, s, po, ps = sess.run([out, state, plain_out, plain_state])
    kept = o != 0
    assert abs(kept.mean() - 0.5) < 0.02
    np.testing.assert_allclose(o[kept], po[kept] / 0.5, rtol=1e-5)
    # h is dropped with keep 0.25; c never (TF's default state filter).
    kept_h = s.h != 0
    assert abs(kept_h.mean() - 0.25) < 0.02
    np.testing.assert_allclose(s.h[kept_h], ps.h[kept_h] / 0.25, rtol=1e-5)
    np.testing.assert_array_equal(s.c, ps.c)
    # The same seeds give the same masks in a new graph.
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        cell2 = tf.nn.rnn_cell.BasicLSTMCell(units)
        w2 = tf.nn.rnn_cell.DropoutWrapper(cell2, output_keep_prob=0.5, state_keep_prob=0.25, seed=7)
        out2, _ = w2(tf.constant(np.ones((batch, 3), np.float32)), w2.zero_state(batch, tf.float32))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert np.array_equal(sess.run(out2) != 0, kept)


def test_dropout_wrapper_variational_uses_one_mask_for_all_steps():
    tf.set_random_seed(1)
    cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicRNNCell(64), output_keep_prob=0.5,
                                         input_keep_prob=0.5, variational_recurrent=True, input_size=3,
                                         dtype=tf.float32, seed=5)
    x = tf.constant(np.ones((4, 6, 3), np.float32))
    outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o = sess.run(outputs)
    mask = o != 0
    assert 0.3 < mask[0, 0].mean() < 0.7
    for b in range(4):
        for t in range(6):
            np.testing.assert_array_equal(mask[b, t], mask[0, 0])


def test_dropout_wrapper_errors():
    cell = tf.nn.rnn_cell.BasicRNNCell(2)
    with pytest.raises(ValueError, match="Parameter input_keep_prob must be between 0 and 1"):
        tf.nn.rnn_cell.DropoutWrapper(cell, input_keep_prob=1.5)
    with pytest.raises(ValueError, match="dtype must be provided"):
        tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=0.5, variational_recurrent=True)
    with pytest.raises(ValueError, match="input_size must be provided"):
        tf.nn.rnn_cell.DropoutWrapper(cell, input_keep_prob=0.5, variational_recurrent=True, dtype=tf.float32)
    with pytest.raises(TypeError, match="is not an RNNCell"):
        tf.nn.rnn_cell.DropoutWrapper(object())


def test_residual_and_device_wrappers():
    x, h = rand(2, 3), rand(2, 3)
    cell = tf.nn.rnn_cell.BasicRNNCell(3)
    res = tf.nn.rnn_cell.ResidualWrapper(cell)
    out, state = res(tf.constant(x), tf.constant(h))
    dev = tf.nn.rnn_cell.DeviceWrapper(tf.nn.rnn_cell.BasicRNNCell(3, name="on_cpu"), "/cpu:0")
    dout, dstate = dev(tf.constant(x), dev.zero_state(2, tf.float32))
    assert "CPU:0" in dout.op.device.upper()
    kernel, bias = rand(6, 3), rand(3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        by_name = variables_by_name()
        by_name["basic_rnn_cell/kernel:0"].load(kernel, sess)
        by_name["basic_rnn_cell/bias:0"].load(bias, sess)
        got_out, got_state, _ = sess.run([out, state, dout])
    want, _ = np_basic_rnn(x, h, kernel, bias)
    np.testing.assert_allclose(got_out, want + x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError):
        tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.BasicRNNCell(4))(tf.zeros([2, 3]), tf.zeros([2, 4]))


def test_internal_paths_and_a_language_model_loop():
    import importlib
    for path in ("ops.rnn", "ops.rnn_cell", "ops.rnn_cell_impl"):
        assert importlib.import_module("flowvm.compat.v1.python." + path) is \
            importlib.import_module("flowvm.tf." + path)
    from flowvm.compat.v1.python.ops import rnn_cell_impl
    assert rnn_cell_impl.LSTMCell is tf.nn.rnn_cell.LSTMCell
    # The PTB tutorial's loop: the cell called step by step, variables
    # reused from the second step on, under TF's names.
    keep_prob = tf.placeholder(tf.float32, [])
    with tf.variable_scope("Model", initializer=tf.random_uniform_initializer(-0.1, 0.1)):
        cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.DropoutWrapper(
            tf.nn.rnn_cell.BasicLSTMCell(4, forget_bias=0.0), output_keep_prob=keep_prob) for _ in range(2)])
        state = cell.zero_state(3, tf.float32)
        inputs = tf.constant(rand(3, 5, 4))
        with tf.variable_scope("RNN"):
            for t in range(5):
                if t > 0:
                    tf.get_variable_scope().reuse_variables()
                output, state = cell(inputs[:, t, :], state)
    assert sorted(shapes()) == ["Model/RNN/multi_rnn_cell/cell_%d/basic_lstm_cell/%s:0" % (i, n)
                                for i in range(2) for n in ("bias", "kernel")]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(output, {keep_prob: 1.0}).shape == (3, 4)
