"""tf.nn.rnn_cell, tf.nn.dynamic_rnn / static_rnn / bidirectional RNNs and
tf.contrib.rnn: each cell's outputs and states for fixed weights against a
NumPy implementation of TensorFlow's equations (written here), TF's
variable names and shapes, the unrolled RNNs against NumPy loops (with
sequence lengths: zeros past a length, the final state at it), gradients
against finite differences, and TF's errors."""
import numpy as np
import pytest

import flowvm.compat.v1 as tf
from gradcheck_util import check_gradients

RNG = np.random.RandomState(42)


# ---- NumPy references (TensorFlow's equations) -----------------------------------
def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def np_basic_rnn(x, h, kernel, bias, act=np.tanh):
    out = act(np.concatenate([x, h], 1) @ kernel + bias)
    return out, out


def np_basic_lstm(x, c, h, kernel, bias, forget_bias=1.0):
    """Gates i, j, f, o in the kernel's column order."""
    i, j, f, o = np.split(np.concatenate([x, h], 1) @ kernel + bias, 4, axis=1)
    new_c = c * sigmoid(f + forget_bias) + sigmoid(i) * np.tanh(j)
    new_h = np.tanh(new_c) * sigmoid(o)
    return new_h, (new_c, new_h)


def np_lstm(x, c, m, kernel, bias, forget_bias=1.0, peep=None, cell_clip=None, proj=None, proj_clip=None):
    """peep = (w_f_diag, w_i_diag, w_o_diag); proj = projection kernel."""
    i, j, f, o = np.split(np.concatenate([x, m], 1) @ kernel + bias, 4, axis=1)
    if peep is not None:
        wf, wi, wo = peep
        new_c = sigmoid(f + forget_bias + wf * c) * c + sigmoid(i + wi * c) * np.tanh(j)
    else:
        new_c = sigmoid(f + forget_bias) * c + sigmoid(i) * np.tanh(j)
    if cell_clip is not None:
        new_c = np.clip(new_c, -cell_clip, cell_clip)
    if peep is not None:
        new_m = sigmoid(o + wo * new_c) * np.tanh(new_c)
    else:
        new_m = sigmoid(o) * np.tanh(new_c)
    if proj is not None:
        new_m = new_m @ proj
        if proj_clip is not None:
            new_m = np.clip(new_m, -proj_clip, proj_clip)
    return new_m, (new_c, new_m)


def np_gru(x, h, gk, gb, ck, cb):
    r, u = np.split(sigmoid(np.concatenate([x, h], 1) @ gk + gb), 2, axis=1)
    c = np.tanh(np.concatenate([x, r * h], 1) @ ck + cb)
    new_h = u * h + (1 - u) * c
    return new_h, new_h


def np_unroll(step, xs, state, lengths=None, zero_output_size=None):
    """xs: [batch, time, depth]. Entries past their length: zero output, state kept."""
    batch, steps = xs.shape[:2]
    outputs = []
    for t in range(steps):
        out, new_state = step(xs[:, t], state)
        if lengths is not None:
            done = (t >= np.asarray(lengths))[:, None]
            out = np.where(done, 0.0, out)
            new_state = tuple(np.where(done, s, n) for s, n in zip(state, new_state)) \
                if isinstance(state, tuple) else np.where(done, state, new_state)
        outputs.append(out)
        state = new_state
    return np.stack(outputs, 1), state


def np_reverse_seq(xs, lengths):
    """[batch, time, ...]: each row reversed up to its length."""
    out = xs.copy()
    for b, n in enumerate(lengths):
        out[b, :n] = xs[b, :n][::-1]
    return out


def rand(*shape, scale=0.5):
    return (RNG.uniform(-1, 1, size=shape) * scale).astype(np.float32)


def variables_by_name():
    return {v.name: v for v in tf.global_variables()}


def load(sess, values):
    """values: variable name -> array (every variable of the graph)."""
    by_name = variables_by_name()
    assert sorted(by_name) == sorted(values), (sorted(by_name), sorted(values))
    for name, value in values.items():
        by_name[name].load(value, sess)


def shapes():
    return {v.name: v.shape.as_list() for v in tf.global_variables()}


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


# ---- dynamic_rnn ---------------------------------------------------------------------
def lstm_values(depth, units, scale=1.0, prefix="rnn/basic_lstm_cell/"):
    return {prefix + "kernel:0": rand(depth + units, 4 * units, scale=scale), prefix + "bias:0": rand(4 * units)}


@pytest.mark.parametrize("time_major", [False, True])
@pytest.mark.parametrize("with_lengths", [False, True])
def test_dynamic_rnn_lstm_matches_numpy_loop(time_major, with_lengths):
    batch, steps, depth, units = 4, 5, 3, 6
    xs = rand(batch, steps, depth, scale=1.0)
    lengths = [5, 2, 0, 3] if with_lengths else None
    cell = tf.nn.rnn_cell.BasicLSTMCell(units)
    x = tf.placeholder(tf.float32, [steps, None, depth] if time_major else [None, steps, depth])
    feed_x = xs.transpose(1, 0, 2) if time_major else xs
    outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32, time_major=time_major)
    # (The batch dim becomes known with lengths: Select against them gives it.)
    assert outputs.shape.is_compatible_with([steps, batch, units] if time_major else [batch, steps, units])
    assert outputs.shape.as_list()[1 if time_major else 0] == (batch if with_lengths else None)
    assert outputs.shape.as_list()[0 if time_major else 1] == steps and outputs.shape.as_list()[2] == units
    assert shapes() == {"rnn/basic_lstm_cell/kernel:0": [depth + units, 4 * units],
                        "rnn/basic_lstm_cell/bias:0": [4 * units]}
    # TF's graph: TensorArrays and a while loop.
    types = {op.type for op in tf.get_default_graph().get_operations()}
    assert {"TensorArrayV3", "TensorArrayScatterV3", "TensorArrayReadV3", "TensorArrayWriteV3",
            "TensorArrayGatherV3", "Enter", "Exit", "NextIteration", "LoopCond"} <= types, types
    values = lstm_values(depth, units)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        load(sess, values)
        got_out, got_state = sess.run([outputs, state], {x: feed_x})
    kernel, bias = values["rnn/basic_lstm_cell/kernel:0"], values["rnn/basic_lstm_cell/bias:0"]
    zeros = np.zeros((batch, units), np.float32)
    want_out, want_state = np_unroll(lambda xt, s: np_basic_lstm(xt, s[0], s[1], kernel, bias), xs, (zeros, zeros),
                                     lengths)
    if time_major:
        got_out = got_out.transpose(1, 0, 2)
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_state.c, want_state[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_state.h, want_state[1], rtol=1e-5, atol=1e-5)
    if with_lengths:
        assert np.all(got_out[1, 2:] == 0) and np.all(got_out[2] == 0)  # zeros past each length
        np.testing.assert_allclose(got_state.h[1], want_out[1, 1], rtol=1e-5, atol=1e-6)  # the state at length 2
        assert np.all(got_state.c[2] == 0)  # length 0: the initial state


def test_dynamic_rnn_all_lengths_short_leaves_zeros_in_the_tail():
    # The loop runs max(sequence_length) = 2 of 4 steps; the unwritten
    # outputs are zeros of the element shape learnt from the first write.
    xs = rand(3, 4, 2)
    cell = tf.nn.rnn_cell.GRUCell(3)
    x = tf.placeholder(tf.float32, [None, None, 2])
    lengths = tf.placeholder(tf.int32, [None])
    outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32)
    values = {n: rand(*s) for n, s in shapes().items()}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        load(sess, values)
        got_out, got_state = sess.run([outputs, state], {x: xs, lengths: [2, 1, 2]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Expected shape for Tensor"):
            sess.run(outputs, {x: xs, lengths: [2, 1]})
    p = "rnn/gru_cell/"
    step = lambda xt, h: np_gru(xt, h, *(values[p + n + ":0"] for n in  # noqa: E731
                                         ("gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias")))
    want_out, want_state = np_unroll(step, xs, np.zeros((3, 3), np.float32), [2, 1, 2])
    assert got_out.shape == (3, 4, 3) and np.all(got_out[:, 2:] == 0)
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_state, want_state, rtol=1e-5, atol=1e-5)


def test_dynamic_rnn_multi_cell_initial_state_and_scope():
    batch, steps, depth = 2, 3, 2
    xs = rand(batch, steps, depth)
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicRNNCell(3), tf.nn.rnn_cell.BasicRNNCell(4)])
    init = (tf.constant(rand(batch, 3)), tf.constant(rand(batch, 4)))
    outputs, state = tf.nn.dynamic_rnn(cell, tf.constant(xs), initial_state=init, scope="encoder")
    assert sorted(shapes()) == ["encoder/multi_rnn_cell/cell_0/basic_rnn_cell/bias:0",
                                "encoder/multi_rnn_cell/cell_0/basic_rnn_cell/kernel:0",
                                "encoder/multi_rnn_cell/cell_1/basic_rnn_cell/bias:0",
                                "encoder/multi_rnn_cell/cell_1/basic_rnn_cell/kernel:0"]
    values = {n: rand(*s) for n, s in shapes().items()}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        load(sess, values)
        got_out, got_state, init_v = sess.run([outputs, state, init])
    p = "encoder/multi_rnn_cell/cell_%d/basic_rnn_cell/%s:0"

    def step(xt, s):
        h0, _ = np_basic_rnn(xt, s[0], values[p % (0, "kernel")], values[p % (0, "bias")])
        h1, _ = np_basic_rnn(h0, s[1], values[p % (1, "kernel")], values[p % (1, "bias")])
        return h1, (h0, h1)
    want_out, want_state = np_unroll(step, xs, tuple(init_v))
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5, atol=1e-5)
    for g, w in zip(got_state, want_state):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_bidirectional_dynamic_rnn_matches_numpy():
    batch, steps, depth, units = 3, 4, 2, 3
    xs = rand(batch, steps, depth, scale=1.0)
    lengths = [4, 2, 3]
    x = tf.placeholder(tf.float32, [None, steps, depth])
    (out_fw, out_bw), (st_fw, st_bw) = tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.BasicLSTMCell(units), tf.nn.rnn_cell.GRUCell(units), x, sequence_length=lengths,
        dtype=tf.float32)
    got_shapes = shapes()
    assert got_shapes["bidirectional_rnn/fw/basic_lstm_cell/kernel:0"] == [depth + units, 4 * units]
    assert got_shapes["bidirectional_rnn/bw/gru_cell/gates/kernel:0"] == [depth + units, 2 * units]
    values = {n: rand(*s) for n, s in got_shapes.items()}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        load(sess, values)
        g_fw, g_bw, g_sfw, g_sbw = sess.run([out_fw, out_bw, st_fw, st_bw], {x: xs})
    f = "bidirectional_rnn/fw/basic_lstm_cell/%s:0"
    b = "bidirectional_rnn/bw/gru_cell/%s:0"
    zeros = np.zeros((batch, units), np.float32)
    w_fw, w_sfw = np_unroll(lambda xt, s: np_basic_lstm(xt, s[0], s[1], values[f % "kernel"], values[f % "bias"]),
                            xs, (zeros, zeros), lengths)
    gru = lambda xt, h: np_gru(xt, h, *(values[b % n] for n in  # noqa: E731
                                        ("gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias")))
    w_bw_rev, w_sbw = np_unroll(gru, np_reverse_seq(xs, lengths), zeros, lengths)
    np.testing.assert_allclose(g_fw, w_fw, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(g_bw, np_reverse_seq(w_bw_rev, lengths), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(g_sfw.h, w_sfw[1], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(g_sbw, w_sbw, rtol=1e-5, atol=1e-5)
    # Without lengths the backward pass reverses whole sequences, time-major too.
    tf.reset_default_graph()
    xt = tf.constant(xs.transpose(1, 0, 2))
    (o_fw, o_bw), _ = tf.nn.bidirectional_dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(units),
                                                      tf.nn.rnn_cell.BasicRNNCell(units), xt, dtype=tf.float32,
                                                      time_major=True, scope="bi")
    values = {n: rand(*s) for n, s in shapes().items()}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        load(sess, values)
        g_bw = sess.run(o_bw)
    k, bb = values["bi/bw/basic_rnn_cell/kernel:0"], values["bi/bw/basic_rnn_cell/bias:0"]
    w_rev, _ = np_unroll(lambda xt_, h: np_basic_rnn(xt_, h, k, bb), xs[:, ::-1], zeros)
    np.testing.assert_allclose(g_bw, w_rev[:, ::-1].transpose(1, 0, 2), rtol=1e-5, atol=1e-5)


def test_reverse_sequence():
    x = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    y = tf.reverse_sequence(x, [3, 1], seq_axis=1, batch_axis=0)
    z = tf.reverse_sequence(x.transpose(1, 0, 2), tf.constant([3, 1], tf.int64), seq_dim=0, batch_dim=1)
    with tf.Session() as sess:
        gy, gz = sess.run([y, z])
    np.testing.assert_array_equal(gy, np_reverse_seq(x, [3, 1]))
    np.testing.assert_array_equal(gz, np_reverse_seq(x, [3, 1]).transpose(1, 0, 2))
    assert y.op.type == "ReverseSequence" and y.shape.as_list() == [2, 4, 3]
    with pytest.raises(ValueError, match="Cannot specify both"):
        tf.reverse_sequence(x, [3, 1], seq_axis=1, seq_dim=1)


# ---- static_rnn ----------------------------------------------------------------------
@pytest.mark.parametrize("with_lengths", [False, True])
def test_static_rnn_matches_numpy_loop(with_lengths):
    batch, steps, depth, units = 3, 4, 2, 5
    xs = rand(batch, steps, depth, scale=1.0)
    lengths = [4, 1, 2] if with_lengths else None
    cell = tf.nn.rnn_cell.LSTMCell(units, use_peepholes=True)
    inputs = [tf.constant(xs[:, t]) for t in range(steps)]
    outputs, state = tf.nn.static_rnn(cell, inputs, dtype=tf.float32, sequence_length=lengths)
    assert len(outputs) == steps
    got_shapes = shapes()
    assert sorted(got_shapes) == ["rnn/lstm_cell/bias:0", "rnn/lstm_cell/kernel:0", "rnn/lstm_cell/w_f_diag:0",
                                  "rnn/lstm_cell/w_i_diag:0", "rnn/lstm_cell/w_o_diag:0"]
    values = {n: rand(*s) for n, s in got_shapes.items()}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        load(sess, values)
        got_out, got_state = sess.run([outputs, state])
    p = "rnn/lstm_cell/%s:0"
    peep = (values[p % "w_f_diag"], values[p % "w_i_diag"], values[p % "w_o_diag"])
    zeros = np.zeros((batch, units), np.float32)
    want_out, want_state = np_unroll(
        lambda xt, s: np_lstm(xt, s[0], s[1], values[p % "kernel"], values[p % "bias"], peep=peep), xs,
        (zeros, zeros), lengths)
    np.testing.assert_allclose(np.stack(got_out, 1), want_out, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_state.c, want_state[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_state.h, want_state[1], rtol=1e-5, atol=1e-5)


def test_static_bidirectional_rnn_and_contrib_names():
    batch, steps, depth, units = 2, 3, 2, 2
    xs = rand(batch, steps, depth)
    lengths = [3, 2]
    inputs = [tf.constant(xs[:, t]) for t in range(steps)]
    outputs, s_fw, s_bw = tf.contrib.rnn.static_bidirectional_rnn(
        tf.contrib.rnn.BasicRNNCell(units), tf.contrib.rnn.BasicRNNCell(units), inputs, dtype=tf.float32,
        sequence_length=lengths)
    assert len(outputs) == steps and outputs[0].shape.as_list() == [batch, 2 * units]
    values = {n: rand(*s) for n, s in shapes().items()}
    assert sorted(values) == ["bidirectional_rnn/%s/basic_rnn_cell/%s:0" % (d, n) for d in ("bw", "fw")
                              for n in ("bias", "kernel")]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        load(sess, values)
        got = np.stack(sess.run(outputs), 1)
    zeros = np.zeros((batch, units), np.float32)
    p = "bidirectional_rnn/%s/basic_rnn_cell/%s:0"
    fw, _ = np_unroll(lambda xt, h: np_basic_rnn(xt, h, values[p % ("fw", "kernel")], values[p % ("fw", "bias")]),
                      xs, zeros, lengths)
    bw, _ = np_unroll(lambda xt, h: np_basic_rnn(xt, h, values[p % ("bw", "kernel")], values[p % ("bw", "bias")]),
                      np_reverse_seq(xs, lengths), zeros, lengths)
    np.testing.assert_allclose(got, np.concatenate([fw, np_reverse_seq(bw, lengths)], 2), rtol=1e-5, atol=1e-5)


def test_contrib_rnn_namespace():
    assert tf.contrib.rnn.BasicLSTMCell is tf.nn.rnn_cell.BasicLSTMCell
    assert tf.contrib.rnn.LSTMStateTuple is tf.nn.rnn_cell.LSTMStateTuple
    assert tf.contrib.rnn.static_rnn is tf.nn.static_rnn
    # LSTMBlockCell: LSTMCell's equations and variable names.
    cell = tf.contrib.rnn.LSTMBlockCell(3, use_peephole=True)
    cell(tf.zeros([1, 2]), cell.zero_state(1, tf.float32))
    assert sorted(shapes()) == ["lstm_cell/bias:0", "lstm_cell/kernel:0", "lstm_cell/w_f_diag:0",
                                "lstm_cell/w_i_diag:0", "lstm_cell/w_o_diag:0"]
    out, _, _ = tf.contrib.rnn.stack_bidirectional_dynamic_rnn(
        [tf.nn.rnn_cell.GRUCell(2), tf.nn.rnn_cell.GRUCell(2)], [tf.nn.rnn_cell.GRUCell(2), tf.nn.rnn_cell.GRUCell(2)],
        tf.zeros([1, 3, 4]), dtype=tf.float32)
    assert out.shape.as_list() == [1, 3, 4]
    assert "stack_bidirectional_rnn/cell_1/bidirectional_rnn/bw/gru_cell/gates/kernel:0" in shapes()


# ---- gradients -----------------------------------------------------------------------
def _weights_from(placeholders):
    """A custom getter that hands the cell `placeholders` (by short name) as
    its weights, so that check_gradients differentiates with respect to them."""
    def getter(getter, name, *args, **kwargs):
        return placeholders[name.split("/")[-1]]
    return getter


@pytest.mark.parametrize("with_lengths", [False, True])
def test_dynamic_rnn_gradients_numerically(with_lengths):
    batch, steps, depth, units = 2, 3, 2, 2
    xs = RNG.uniform(-1, 1, size=(batch, steps, depth))
    kernel = RNG.uniform(-1, 1, size=(depth + units, 4 * units))
    bias = RNG.uniform(-0.5, 0.5, size=(4 * units,))

    def fn(x, k, b):
        with tf.variable_scope("rnn", custom_getter=_weights_from({"kernel": k, "bias": b})):
            outputs, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(units), x,
                                               sequence_length=[3, 2] if with_lengths else None, dtype=tf.float64,
                                               scope="rnn")
        return tf.concat([tf.reshape(outputs, [-1]), tf.reshape(state.c, [-1])], 0)
    check_gradients(fn, xs, kernel, bias, rtol=1e-5, atol=1e-7)


def test_static_rnn_gradients_numerically():
    batch, steps, depth, units = 2, 3, 2, 3
    xs = RNG.uniform(-1, 1, size=(batch, steps, depth))
    gk = RNG.uniform(-1, 1, size=(depth + units, 2 * units))
    gb = RNG.uniform(-0.5, 0.5, size=(2 * units,))
    ck = RNG.uniform(-1, 1, size=(depth + units, units))
    cb = RNG.uniform(-0.5, 0.5, size=(units,))

    def fn(x, gk_, gb_, ck_, cb_):
        ws = {"gates/kernel": gk_, "gates/bias": gb_, "candidate/kernel": ck_, "candidate/bias": cb_}

        def getter(getter, name, *args, **kwargs):
            return ws["/".join(name.split("/")[-2:])]
        with tf.variable_scope("rnn", custom_getter=getter):
            outputs, state = tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(units), tf.unstack(x, axis=1),
                                              sequence_length=[3, 1], dtype=tf.float64)
        return tf.concat([tf.stack(outputs), tf.expand_dims(state, 0)], 0)
    check_gradients(fn, xs, gk, gb, ck, cb, rtol=1e-5, atol=1e-7)


def test_training_through_dynamic_rnn_lowers_the_loss():
    tf.set_random_seed(0)
    xs = rand(8, 5, 3, scale=1.0)
    target = np.cumsum(xs.sum(2), 1)[:, -1:]  # the sum of the sequence
    x = tf.constant(xs)
    outputs, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(8), x, dtype=tf.float32)
    pred = tf.layers.dense(state.h, 1)
    loss = tf.reduce_mean(tf.square(pred - target))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(60):
            sess.run(train)
        assert sess.run(loss) < 0.2 * first


# ---- errors --------------------------------------------------------------------------
def test_rnn_errors():
    cell = tf.nn.rnn_cell.BasicRNNCell(2)
    with pytest.raises(ValueError, match="to have rank at least 2"):
        tf.nn.dynamic_rnn(cell, tf.zeros([5]), dtype=tf.float32)
    with pytest.raises(ValueError, match="must have rank at least 3"):
        tf.nn.dynamic_rnn(cell, tf.zeros([5, 4]), dtype=tf.float32)
    with pytest.raises(ValueError, match="If there is no initial_state, you must give a dtype."):
        tf.nn.dynamic_rnn(cell, tf.zeros([2, 3, 4]))
    with pytest.raises(ValueError, match="Input size \\(depth of inputs\\) must be accessible via shape inference"):
        tf.nn.dynamic_rnn(cell, tf.placeholder(tf.float32, [2, 3, None]), dtype=tf.float32)
    with pytest.raises(ValueError, match="sequence_length must be a vector of length batch_size"):
        tf.nn.dynamic_rnn(cell, tf.zeros([2, 3, 4]), sequence_length=[[1, 2]], dtype=tf.float32)
    with pytest.raises(TypeError, match="is not an RNNCell"):
        tf.nn.dynamic_rnn(lambda x, s: (x, s), tf.zeros([2, 3, 4]), dtype=tf.float32)
    with pytest.raises(ValueError, match="If no initial_state is provided, dtype must be specified"):
        tf.nn.static_rnn(cell, [tf.zeros([2, 4])])
    with pytest.raises(TypeError, match="inputs must be a sequence"):
        tf.nn.static_rnn(cell, tf.zeros([2, 4]), dtype=tf.float32)
    with pytest.raises(ValueError, match="inputs must not be empty"):
        tf.nn.static_rnn(cell, [], dtype=tf.float32)
    with pytest.raises(ValueError, match="Input size \\(dimension 0 of inputs\\) must be accessible"):
        tf.nn.static_rnn(cell, [tf.placeholder(tf.float32, [2, None])], dtype=tf.float32)


def test_state_tuples_feed_and_fetch():
    # A language model's loop: the final state fetched, then fed back as
    # the next initial state (a tuple of LSTMStateTuples as the key).
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(2) for _ in range(2)])
    x = tf.constant(rand(1, 3, 2))
    init = cell.zero_state(1, tf.float32)
    _, final = tf.nn.dynamic_rnn(cell, x, initial_state=init)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        s1 = sess.run(final)
        assert isinstance(s1[0], tf.nn.rnn_cell.LSTMStateTuple)
        s2 = sess.run(final, {init: s1})
        s2_by_part = sess.run(final, {init[0].c: s1[0].c, init[0].h: s1[0].h, init[1]: s1[1]})
    np.testing.assert_allclose(s2[1].h, s2_by_part[1].h)
    assert not np.allclose(s2[1].h, s1[1].h)


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


def test_dynamic_rnn_with_the_cell_on_a_second_device():
    # The loop's cell on /cpu:1 (DeviceWrapper), the rest where the placer
    # puts it: the same outputs and gradients as on one device.
    xs = rand(3, 5, 4)
    results = []
    for device in (None, "/cpu:1"):
        with tf.Graph().as_default():
            tf.set_random_seed(1)
            cell = tf.nn.rnn_cell.BasicLSTMCell(6)
            if device:
                cell = tf.nn.rnn_cell.DeviceWrapper(cell, device)
            outputs, state = tf.nn.dynamic_rnn(cell, tf.constant(xs), sequence_length=[5, 2, 3], dtype=tf.float32)
            grads = tf.gradients(tf.reduce_sum(outputs * outputs), tf.trainable_variables())
            if device:
                assert any(op.device.upper().endswith("CPU:1") for op in tf.get_default_graph().get_operations()
                           if "basic_lstm_cell" in op.name)
            with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
                sess.run(tf.global_variables_initializer())
                results.append(sess.run([outputs, state.h] + grads))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
