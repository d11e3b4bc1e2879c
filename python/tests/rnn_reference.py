"""NumPy references for the RNN tests (TensorFlow 1.x's equations for each
cell, an unrolling loop with sequence lengths) and helpers to give a graph's
variables fixed values."""
import numpy as np

import flowvm.compat.v1 as tf

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


def np_unroll(step, xs, state, lengths=None):
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
