"""Gradients through tf.gradients against central finite differences."""
import numpy as np

import flowvm.compat.v1 as tf


def check_gradients(fn, *inputs, delta=1e-6, rtol=1e-4, atol=1e-6, seed=0):
    """fn: float64 tensors -> one tensor. Compares d(sum(w * fn(x)))/dx for a
    fixed random w with central differences, for every input."""
    rng = np.random.RandomState(seed)
    with tf.Graph().as_default():
        xs = [tf.placeholder(tf.float64, shape=np.shape(v)) for v in inputs]
        y = fn(*xs)
        w = rng.uniform(0.5, 1.5, size=y.shape.as_list())
        loss = tf.reduce_sum(y * w)
        grads = tf.gradients(loss, xs)
        assert all(g is not None for g in grads), grads
        with tf.Session() as sess:
            values = [np.array(v, dtype=np.float64) for v in inputs]
            feed = dict(zip(xs, values))
            analytic = sess.run(grads, feed)
            for i, v in enumerate(values):
                numeric = np.zeros_like(v)
                flat = numeric.reshape(-1)
                for j in range(v.size):
                    plus = v.copy().reshape(-1)
                    plus[j] += delta
                    minus = v.copy().reshape(-1)
                    minus[j] -= delta
                    f_plus = sess.run(loss, {**feed, xs[i]: plus.reshape(v.shape)})
                    f_minus = sess.run(loss, {**feed, xs[i]: minus.reshape(v.shape)})
                    flat[j] = (f_plus - f_minus) / (2 * delta)
                np.testing.assert_allclose(analytic[i], numeric, rtol=rtol, atol=atol,
                                           err_msg="gradient of input %d" % i)
