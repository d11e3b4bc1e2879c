"""tf.Variable, initializers, variable scopes and get_variable."""
import numpy as np
import pytest

import flowvm.compat.v1 as tf
from flowvm.tf.ops import gen_ops


def test_variable_nodes_names_and_types():
    w = tf.Variable([[1.0, 2.0]], name="w")
    assert w.name == "w:0" and w.op.name == "w" and w.op.type == "VariableV2"
    assert w.dtype == tf.float32_ref and w.dtype.base_dtype == tf.float32
    assert w.shape.as_list() == [1, 2] and w.get_shape().as_list() == [1, 2]
    assert w.initializer.name == "w/Assign" and w.value().name == "w/read:0"
    assert w.initial_value.name == "w/initial_value:0"
    assert w._ref().dtype == tf.float32_ref and w.graph is tf.get_default_graph()
    w2 = tf.Variable(1, name="w")
    assert w2.name == "w_1:0" and w2.dtype.base_dtype == tf.int32
    anon = tf.Variable(0.5)
    assert anon.name == "Variable:0"
    assert [v.name for v in tf.global_variables()] == ["w:0", "w_1:0", "Variable:0"]
    assert [v.name for v in tf.trainable_variables()] == ["w:0", "w_1:0", "Variable:0"]
    local = tf.Variable(0, trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES], name="local")
    assert tf.local_variables() == [local] and local not in tf.trainable_variables()
    assert local not in tf.global_variables()


def test_variable_converts_to_its_value_and_ref():
    w = tf.Variable([1.0, 2.0], name="w")
    t = tf.convert_to_tensor(w)
    assert t.name == "w/read:0" and t.dtype == tf.float32
    r = tf.convert_to_tensor(w, as_ref=True)
    assert r.name == "w:0"
    y = gen_ops.mul(w, 3.0)  # the op takes the value
    a = gen_ops.assign(w, [5.0, 6.0])  # the op takes the ref
    with pytest.raises(ValueError):
        tf.convert_to_tensor(w, dtype=tf.int32)
    with tf.Session() as sess:
        sess.run(w.initializer)
        np.testing.assert_allclose(sess.run(y), [3.0, 6.0])
        np.testing.assert_allclose(sess.run(a), [5.0, 6.0])
        np.testing.assert_allclose(sess.run(w), [5.0, 6.0])


def test_variable_operators_use_the_value():
    if not hasattr(tf.Tensor, "__add__"):
        pytest.skip("Tensor operators come with math_ops")
    w = tf.Variable(2.0, name="w")
    y = w + 1.0
    z = 3.0 * w
    with tf.Session() as sess:
        sess.run(w.initializer)
        assert sess.run([y, z]) == [3.0, 6.0]


def test_assign_methods_eval_load_and_initializers():
    w = tf.Variable([[1.0, 2.0]], name="w")
    b = tf.Variable(lambda: tf.zeros_initializer()([3]), name="b")
    assert b.initial_value.name.startswith("b/Initializer/")
    a = w.assign([[3.0, 4.0]])
    add = w.assign_add([[1.0, 1.0]])
    sub_op = w.assign_sub([[0.5, 0.5]], read_value=False)
    assert isinstance(sub_op, tf.Operation)
    init = tf.global_variables_initializer()
    assert init.name == "init" and init.type == "NoOp"
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError) as e:
            sess.run(w.value())
        assert "w" in str(e.value)
        assert not sess.run(tf.is_variable_initialized(w))
        sess.run(init)
        assert sess.run(tf.is_variable_initialized(w))
        np.testing.assert_allclose(sess.run(b), [0.0, 0.0, 0.0])
        np.testing.assert_allclose(sess.run(a), [[3.0, 4.0]])
        np.testing.assert_allclose(sess.run(add), [[4.0, 5.0]])
        assert sess.run(sub_op) is None
        np.testing.assert_allclose(w.eval(session=sess), [[3.5, 4.5]])
        w.load([[7.0, 8.0]], sess)
        with sess.as_default():
            np.testing.assert_allclose(w.eval(), [[7.0, 8.0]])
        np.testing.assert_allclose(sess.run(tf.assign(w, [[0.0, 1.0]])), [[0.0, 1.0]])
        np.testing.assert_allclose(sess.run(tf.assign_sub(w, [[1.0, 1.0]])), [[-1.0, 0.0]])


def test_initialized_value_and_dependent_initial_values():
    w = tf.Variable([1.0, 2.0], name="w")
    w2 = tf.Variable(w.initialized_value(), name="w2")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(w2), [1.0, 2.0])


def test_report_and_assert_uninitialized():
    w = tf.Variable(1.0, name="w")
    v = tf.Variable(2.0, name="v")
    report = tf.report_uninitialized_variables()
    check = tf.assert_variables_initialized()
    with tf.Session() as sess:
        assert list(sess.run(report)) == [b"w", b"v"]
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(check)
        sess.run(v.initializer)
        assert list(sess.run(report)) == [b"w"]
        sess.run(tf.variables_initializer([w]))
        assert list(sess.run(report)) == []
        sess.run(check)


def test_variable_errors():
    with pytest.raises(ValueError):
        tf.Variable(None)
    with pytest.raises(NotImplementedError):
        tf.Variable(1.0, use_resource=True)
    p = gen_ops.placeholder(tf.float32, shape=[None])
    with pytest.raises(ValueError):
        tf.Variable(p)  # the shape is not fully defined
    v = tf.Variable(p, validate_shape=False, name="free")
    assert v.shape.ndims is None
    with pytest.raises(TypeError):
        bool(v)


def test_variable_ignores_surrounding_control_dependencies():
    c = tf.constant(1.0)
    with tf.control_dependencies([c]):
        w = tf.Variable(1.0, name="w")
    assert w.op.control_inputs == [] and w.initializer.control_inputs == []


def test_initializers_values_and_seeds():
    tf.get_default_graph().seed = 5
    shape = [200, 100]
    inits = {
        "zeros": tf.zeros_initializer()(shape),
        "ones": tf.ones_initializer()(shape),
        "const": tf.constant_initializer(3.0)(shape),
        "const_list": tf.constant_initializer([1, 2, 3, 4])([2, 2], dtype=tf.int32),
        "uniform": tf.random_uniform_initializer(-2.0, 2.0)(shape),
        "uniform_int": tf.random_uniform_initializer(0, 5, dtype=tf.int32)(shape),
        "normal": tf.random_normal_initializer(1.0, 2.0)(shape),
        "trunc": tf.truncated_normal_initializer(0.0, 1.0)(shape),
        "glorot_u": tf.glorot_uniform_initializer()(shape),
        "glorot_n": tf.glorot_normal_initializer()(shape),
        "vs_untrunc": tf.variance_scaling_initializer(2.0, "fan_in", "untruncated_normal")(shape),
        "vs_trunc": tf.variance_scaling_initializer(2.0, "fan_out", "truncated_normal")(shape),
        "he": tf.initializers.he_normal()(shape),
        "orth": tf.orthogonal_initializer()([50, 30]),
        "identity": tf.initializers.identity()([3, 3]),
    }
    with tf.Session() as sess:
        out = sess.run(inits)
    with tf.Session() as sess:
        again = sess.run(inits)
    assert (out["zeros"] == 0).all() and (out["ones"] == 1).all() and (out["const"] == 3).all()
    np.testing.assert_array_equal(out["const_list"], [[1, 2], [3, 4]])
    u = out["uniform"]
    assert u.shape == (200, 100) and u.min() >= -2.0 and u.max() < 2.0 and abs(u.mean()) < 0.1
    ui = out["uniform_int"]
    assert ui.dtype == np.int32 and ui.min() == 0 and ui.max() == 4
    assert abs(out["normal"].mean() - 1.0) < 0.1 and abs(out["normal"].std() - 2.0) < 0.1
    assert np.abs(out["trunc"]).max() <= 2.0 and abs(out["trunc"].std() - 0.88) < 0.05
    limit = np.sqrt(6.0 / 300)
    assert np.abs(out["glorot_u"]).max() <= limit and out["glorot_u"].std() > limit / 2
    assert abs(out["glorot_n"].std() - np.sqrt(2.0 / 300)) < 0.01
    assert abs(out["vs_untrunc"].std() - np.sqrt(2.0 / 200)) < 0.01
    assert abs(out["vs_trunc"].std() - np.sqrt(2.0 / 100)) < 0.01
    assert abs(out["he"].std() - np.sqrt(2.0 / 200)) < 0.01
    q = out["orth"]
    np.testing.assert_allclose(q.T @ q, np.eye(30), atol=1e-5)
    np.testing.assert_array_equal(out["identity"], np.eye(3))
    # A graph seed makes the random ops reproducible session to session.
    np.testing.assert_array_equal(out["uniform"], again["uniform"])
    np.testing.assert_array_equal(out["normal"], again["normal"])


def test_op_seed_reproducible_across_graphs():
    def draw():
        with tf.Graph().as_default():
            t = tf.random_normal_initializer(seed=7)([5])
            with tf.Session() as sess:
                return sess.run(t)
    np.testing.assert_array_equal(draw(), draw())


def test_initializer_argument_errors():
    with pytest.raises(ValueError):
        tf.variance_scaling_initializer(mode="fan_sideways")
    with pytest.raises(ValueError):
        tf.variance_scaling_initializer(distribution="cauchy")
    with pytest.raises(ValueError):
        tf.variance_scaling_initializer(scale=0.0)
    with pytest.raises(ValueError):
        tf.random_uniform_initializer(0, None, dtype=tf.int32)([2])
    with pytest.raises(ValueError):
        tf.random_normal_initializer(dtype=tf.int32)


def test_get_variable_and_reuse():
    with tf.variable_scope("layer"):
        v = tf.get_variable("v", [2, 3])
        i = tf.get_variable("i", [2], dtype=tf.int32)
        c = tf.get_variable("c", initializer=tf.constant([1.0, 2.0]))
    assert v.name == "layer/v:0" and i.name == "layer/i:0" and c.shape.as_list() == [2]
    with tf.variable_scope("layer", reuse=True):
        assert tf.get_variable("v") is v
        assert tf.get_variable("v", [2, 3]) is v
        with pytest.raises(ValueError, match="Trying to share variable layer/v, but specified shape"):
            tf.get_variable("v", [3, 3])
        with pytest.raises(ValueError, match="does not exist, or was not created with tf.get_variable"):
            tf.get_variable("missing", [1])
    with tf.variable_scope("layer"):
        with pytest.raises(ValueError, match="Variable layer/v already exists, disallowed. Did you mean to set "
                                             "reuse=True"):
            tf.get_variable("v", [2, 3])
    with tf.variable_scope("layer", reuse=tf.AUTO_REUSE):
        assert tf.get_variable("v", [2, 3]) is v
        new = tf.get_variable("new", [1])
    assert new.name == "layer/new:0"
    with tf.variable_scope("layer") as scope:
        scope.reuse_variables()
        assert tf.get_variable_scope().reuse is True
        assert tf.get_variable("v") is v
        with tf.variable_scope("inner"):
            assert tf.get_variable_scope().reuse is True  # inherited
    with pytest.raises(ValueError, match="If initializer is a constant, do not specify shape"):
        tf.get_variable("bad", [2], initializer=tf.constant([1.0, 2.0]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vv, ii, cc = sess.run([v, i, c])
    assert vv.shape == (2, 3) and np.abs(vv).max() <= np.sqrt(6.0 / 5)  # glorot_uniform by default
    np.testing.assert_array_equal(ii, [0, 0])  # integers start at zero
    np.testing.assert_array_equal(cc, [1.0, 2.0])


def test_scopes_open_unique_name_scopes_but_keep_variable_names():
    with tf.variable_scope("a"):
        w = tf.get_variable("w", [1])
        op1 = gen_ops.identity(w, name="op")
    with tf.variable_scope("a", reuse=True):
        w2 = tf.get_variable("w", [1])
        op2 = gen_ops.identity(w2, name="op")
    assert w2 is w and op1.name == "a/op:0" and op2.name == "a_1/op:0"
    with tf.name_scope("ns"):
        with tf.variable_scope("vs"):
            x = tf.get_variable("x", [1])
            y = gen_ops.identity(x, name="y")
    assert x.name == "vs/x:0" and y.name == "ns/vs/y:0"
    with tf.variable_scope(None, default_name="dense"):
        d1 = tf.get_variable("k", [1])
    with tf.variable_scope(None, default_name="dense"):
        d2 = tf.get_variable("k", [1])
    assert d1.name == "dense/k:0" and d2.name == "dense_1/k:0"
    with tf.variable_scope("outer") as outer:
        pass
    with tf.variable_scope(outer):
        z = tf.get_variable("z", [1])
        assert tf.get_variable_scope().name == "outer"
        assert tf.get_variable_scope().original_name_scope == "outer/"
    assert z.name == "outer/z:0"
    with pytest.raises(ValueError):
        with tf.variable_scope(None, default_name="x", reuse=True):
            pass
    with pytest.raises(TypeError):
        with tf.variable_scope(None):
            pass


def test_scope_defaults_regularizer_and_custom_getter():
    seen = []

    def getter(getter, name, *args, **kwargs):
        seen.append(name)
        kwargs["trainable"] = False
        return getter(name, *args, **kwargs)

    with tf.variable_scope("s", initializer=tf.constant_initializer(4.0), dtype=tf.float64,
                           regularizer=lambda v: gen_ops.l2_loss(v), custom_getter=getter):
        v = tf.get_variable("v", [2])
        u = tf.get_variable("u", [2], regularizer=tf.no_regularizer)
    assert seen == ["s/v", "s/u"]
    assert v.dtype.base_dtype == tf.float64 and v not in tf.trainable_variables() and u.trainable is False
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert len(losses) == 1 and losses[0].op.name == "s/v/Regularizer/L2Loss"
    loc = tf.get_local_variable("loc", [1], initializer=tf.zeros_initializer())
    assert loc in tf.local_variables() and loc not in tf.global_variables()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(v), [4.0, 4.0])
        assert sess.run(losses[0]) == 16.0


def test_get_variable_uses_graph_of_values_and_ignores_name_scope():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)
    with tf.variable_scope("inside", values=[c]):
        v = tf.get_variable("v", [1])
    assert v.graph is g
    assert tf.get_default_graph() is not g


def test_auxiliary_name_scope_false_keeps_the_current_name_scope():
    with tf.name_scope("outer"):
        with tf.variable_scope("vs", auxiliary_name_scope=False) as vs:
            v = tf.get_variable("v", [1])
            op = gen_ops.identity(v, name="op")
    assert v.name == "vs/v:0" and op.name == "outer/op:0"
    assert vs.original_name_scope == "outer/"
    with tf.variable_scope(vs, auxiliary_name_scope=False):
        op2 = gen_ops.identity(v, name="op2")
    assert op2.name == "op2:0"
