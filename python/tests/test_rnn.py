"""tf.nn.dynamic_rnn, static_rnn, the bidirectional RNNs and tf.contrib.rnn:
the unrolled RNNs against NumPy loops (rnn_reference.py; with sequence
lengths: zeros past a length, the final state at it; time-major), TF's
graph (TensorArrays in a while loop) and variable names, gradients against
finite differences, feeding and fetching state tuples, two devices, and
TF's errors."""
import numpy as np
import pytest

import flowvm.compat.v1 as tf
from gradcheck_util import check_gradients
from rnn_reference import (RNG, load, np_basic_lstm, np_basic_rnn, np_gru, np_lstm, np_reverse_seq,
                           np_unroll, rand, shapes)


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


def test_dynamic_rnn_on_a_three_task_cluster():
    # The variables on worker 2, the unrolled loop on worker 1, the master
    # on worker 0: the outputs and final state of NumPy's LSTM equations.
    from flowvm import _flowvm
    ports = [_flowvm.pick_unused_port() for _ in range(3)]
    spec = {"worker": ["127.0.0.1:%d" % p for p in ports]}
    servers = [tf.train.Server(spec, job_name="worker", task_index=i) for i in range(3)]
    try:
        xs = rand(2, 4, 3)
        kernel, bias = rand(3 + 5, 4 * 5), rand(4 * 5)
        cell = tf.nn.rnn_cell.BasicLSTMCell(5)
        def placement(op):
            return "/job:worker/task:2" if op.type.startswith("Variable") else "/job:worker/task:1"

        with tf.device(placement):
            outputs, state = tf.nn.dynamic_rnn(cell, tf.constant(xs), sequence_length=[4, 2], dtype=tf.float32)
        assert tf.trainable_variables()[0].device.endswith("task:2")
        with tf.Session(servers[0].target) as sess:
            load(sess, {"rnn/basic_lstm_cell/kernel:0": kernel, "rnn/basic_lstm_cell/bias:0": bias})
            out, c, h = sess.run([outputs, state.c, state.h])
        zero = np.zeros([2, 5], np.float32)
        want, (wc, wh) = np_unroll(lambda x, s: np_basic_lstm(x, s[0], s[1], kernel, bias), xs, (zero, zero),
                                   lengths=[4, 2])
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(c, wc, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(h, wh, rtol=1e-5, atol=1e-6)
    finally:
        for s in servers:
            s.stop()
