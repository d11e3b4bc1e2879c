"""tf.cond, tf.case, tf.while_loop, tf.group, tf.tuple, tf.Assert: values,
nesting, routing of outside tensors, gradients and construction errors."""
import collections

import numpy as np
import pytest

import flowvm.compat.v1 as tf
from flowvm.tf.ops import gen_ops as g


def _ph(dtype, shape, name=None):
    return g.placeholder(dtype, shape=shape, name=name)


def test_cond_takes_one_branch_and_routes_outside_tensors():
    x = tf.constant(3.0)
    p = _ph(tf.bool, [], "p")
    r = tf.cond(p, lambda: g.mul(x, 2.0), lambda: g.neg(x))
    # A constant in a branch (no inputs) and an outside tensor returned as is.
    r2 = tf.cond(p, lambda: tf.constant(7.0), lambda: x)
    assert r.shape.as_list() == []
    with tf.Session() as sess:
        assert sess.run(r, {p: True}) == 6.0 and sess.run(r, {p: False}) == -3.0
        assert sess.run(r2, {p: True}) == 7.0 and sess.run(r2, {p: False}) == 3.0
    switches = [op for op in tf.get_default_graph().get_operations() if op.type == "Switch"]
    assert switches  # x entered each branch through a Switch


def test_cond_only_runs_taken_branch_side_effects():
    v = g.variable_v2(shape=[], dtype=tf.float32, name="v")
    init = g.assign(v, tf.constant(0.0))
    p = _ph(tf.bool, [], "p")
    r = tf.cond(p, lambda: g.assign_add(v, tf.constant(1.0)), lambda: g.assign_add(v, tf.constant(10.0)))
    with tf.Session() as sess:
        sess.run(init)
        sess.run(r, {p: True})
        sess.run(r, {p: True})
        assert sess.run(v) == 2.0
        sess.run(r, {p: False})
        assert sess.run(v) == 12.0


def test_cond_nested_structures_and_strict():
    p = _ph(tf.bool, [], "p")
    Pair = collections.namedtuple("Pair", ["a", "b"])
    out = tf.cond(p, lambda: Pair(tf.constant(1), [tf.constant(2.0)]),
                  lambda: Pair(tf.constant(3), [tf.constant(4.0)]))
    assert isinstance(out, Pair) and isinstance(out.b, list)
    single = tf.cond(p, lambda: [tf.constant(1)], lambda: [tf.constant(2)])
    strict = tf.cond(p, lambda: [tf.constant(1)], lambda: [tf.constant(2)], strict=True)
    assert isinstance(single, tf.Tensor) and isinstance(strict, list)
    old = tf.cond(p, fn1=lambda: tf.constant(1), fn2=lambda: tf.constant(2))
    op_result = tf.cond(p, lambda: g.no_op(), lambda: g.no_op())
    with tf.Session() as sess:
        assert sess.run(out, {p: False}) == Pair(3, [4.0])
        assert sess.run([single, strict, old], {p: True}) == [1, [1], 1]
        sess.run(op_result, {p: True})


def test_cond_errors():
    p = _ph(tf.bool, [], "p")
    with pytest.raises(TypeError):
        tf.cond(True, lambda: tf.constant(1), lambda: tf.constant(2))
    with pytest.raises(TypeError):
        tf.cond(p, tf.constant(1), lambda: tf.constant(2))
    with pytest.raises(TypeError):
        tf.cond(tf.constant(1), lambda: tf.constant(1), lambda: tf.constant(2))
    with pytest.raises(ValueError):
        tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(2.0))
    with pytest.raises(ValueError):
        tf.cond(p, lambda: [tf.constant(1)], lambda: [tf.constant(1), tf.constant(2)])
    with pytest.raises(TypeError):
        tf.cond(p, lambda: (tf.constant(1), tf.constant(2)), lambda: [tf.constant(1), tf.constant(2)])
    with pytest.raises(ValueError):
        tf.cond(p, lambda: None, lambda: tf.constant(1))
    with pytest.raises(TypeError):
        tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(2), fn1=lambda: tf.constant(3))


def test_case():
    x = _ph(tf.int32, [], "x")
    r = tf.case([(g.less(x, 0), lambda: tf.constant(-1)), (g.equal(x, 0), lambda: tf.constant(0))],
                default=lambda: tf.constant(1))
    last_is_default = tf.case([(g.less(x, 0), lambda: tf.constant(-1)), (g.greater_equal(x, 0),
                                                                         lambda: tf.constant(5))])
    exclusive = tf.case([(g.less(x, 5), lambda: tf.constant(1)), (g.less(x, 3), lambda: tf.constant(2))],
                        default=lambda: tf.constant(0), exclusive=True)
    with tf.Session() as sess:
        assert [sess.run(r, {x: v}) for v in (-3, 0, 4)] == [-1, 0, 1]
        assert sess.run(last_is_default, {x: 2}) == 5 and sess.run(last_is_default, {x: -2}) == -1
        assert sess.run(exclusive, {x: 4}) == 1 and sess.run(exclusive, {x: 9}) == 0
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(exclusive, {x: 1})
        assert "exclusive" in str(e.value)
    with pytest.raises(TypeError):
        tf.case([(True, lambda: tf.constant(1))])
    with pytest.raises(TypeError):
        tf.case([g.less(x, 0)])
    with pytest.raises(TypeError):
        tf.case(g.less(x, 0))


def test_while_loop_values_and_structures():
    i0 = tf.constant(0)
    r = tf.while_loop(lambda i, a: g.less(i, 10), lambda i, a: [g.add(i, 1), g.mul(a, 2.0)], [i0, tf.constant(1.0)])
    assert isinstance(r, list) and len(r) == 2
    single = tf.while_loop(lambda i: g.less(i, 7), lambda i: g.add(i, 2), [i0])
    assert isinstance(single, tf.Tensor)
    State = collections.namedtuple("State", ["step", "acc"])
    s = tf.while_loop(lambda st: g.less(st.step, 4),
                      lambda st: (State(g.add(st.step, 1), [g.add(st.acc[0], g.cast(st.step, DstT=tf.float32))]),),
                      (State(i0, [tf.constant(0.0)]),))
    assert isinstance(s, tuple) and isinstance(s[0], State)
    # Python numbers returned by the body become tensors of the loop var's type.
    k = tf.while_loop(lambda k: g.less(k, 3.0), lambda k: g.add(k, 1.0), [tf.constant(0.0)])
    with tf.Session() as sess:
        assert sess.run(r) == [10, 1024.0]
        assert sess.run(single) == 8
        out = sess.run(s)
        assert out[0].step == 4 and out[0].acc == [6.0]
        assert sess.run(k) == 3.0


def test_while_loop_routes_outside_values_and_placeholders():
    n = _ph(tf.int32, [], "n")
    scale = tf.constant(3.0)
    r = tf.while_loop(lambda i, a: g.less(i, n), lambda i, a: [g.add(i, 1), g.add(a, scale)],
                      [tf.constant(0), tf.constant(0.0)])
    with tf.Session() as sess:
        assert sess.run(r, {n: 5}) == [5, 15.0]
        assert sess.run(r, {n: 0}) == [0, 0.0]
    enters = [op for op in tf.get_default_graph().get_operations() if op.type == "Enter"]
    assert any(op.get_attr("is_constant") for op in enters)


def test_nested_loops_and_cond_in_loop():
    # sum_{i<4} sum_{j<i} j, with an outside value used in the inner body
    one = tf.constant(1)

    def outer_body(i, total):
        def inner_body(j, t):
            return [g.add(j, one), g.add(t, j)]
        _, inner_total = tf.while_loop(lambda j, t: g.less(j, i), inner_body, [tf.constant(0), total])
        return [g.add(i, 1), inner_total]
    _, total = tf.while_loop(lambda i, t: g.less(i, 4), outer_body, [tf.constant(0), tf.constant(0)])

    # Collatz steps from 27 (111): a cond inside a loop body.
    def collatz_body(n, steps):
        even = g.equal(g.floor_mod(n, 2), 0)
        nxt = tf.cond(even, lambda: g.floor_div(n, 2), lambda: g.add(g.mul(n, 3), 1))
        return [nxt, g.add(steps, 1)]
    _, steps = tf.while_loop(lambda n, s: g.greater(n, 1), collatz_body, [tf.constant(27), tf.constant(0)])
    with tf.Session() as sess:
        assert sess.run(total) == 0 + 0 + 1 + 3
        assert sess.run(steps) == 111


def test_while_loop_in_cond():
    p = _ph(tf.bool, [], "p")
    x = tf.constant(2.0)
    r = tf.cond(p, lambda: tf.while_loop(lambda a: g.less(a, 50.0), lambda a: g.mul(a, x), [x]),
                lambda: g.neg(x))
    with tf.Session() as sess:
        assert sess.run(r, {p: True}) == 64.0 and sess.run(r, {p: False}) == -2.0


def test_while_loop_maximum_iterations():
    r = tf.while_loop(lambda i: g.less(i, 100), lambda i: g.add(i, 1), [tf.constant(0)], maximum_iterations=7)
    both = tf.while_loop(lambda i, a: tf.constant(True), lambda i, a: [g.add(i, 1), g.add(a, 2.0)],
                         [tf.constant(0), tf.constant(0.0)], maximum_iterations=tf.constant(3))
    early = tf.while_loop(lambda i: g.less(i, 2), lambda i: g.add(i, 1), [tf.constant(0)], maximum_iterations=7)
    with tf.Session() as sess:
        assert sess.run(r) == 7
        assert sess.run(both) == [3, 6.0]
        assert sess.run(early) == 2
    with pytest.raises(ValueError):
        tf.while_loop(lambda i: g.less(i, 2), lambda i: g.add(i, 1), [tf.constant(0)],
                      maximum_iterations=tf.constant([1, 2]))


def test_while_loop_updates_variable_and_control_dependencies():
    v = g.variable_v2(shape=[], dtype=tf.float32, name="counter")
    init = g.assign(v, tf.constant(0.0))
    outside = g.no_op(name="outside")

    def body(i):
        with tf.control_dependencies([g.assign_add(v, tf.constant(1.5)), outside]):
            return g.add(i, 1)
    r = tf.while_loop(lambda i: g.less(i, 4), body, [tf.constant(0)])
    with tf.Session() as sess:
        sess.run(init)
        assert sess.run(r) == 4
        assert sess.run(v) == 6.0


def test_while_loop_shape_invariants():
    x0 = tf.constant([1.0])

    def body(i, x):
        return [g.add(i, 1), g.concat_v2([x, x], 0)]
    with pytest.raises(ValueError) as e:
        tf.while_loop(lambda i, x: g.less(i, 3), body, [tf.constant(0), x0])
    assert "shape_invariants" in str(e.value)
    i, x = tf.while_loop(lambda i, x: g.less(i, 3), body, [tf.constant(0), x0],
                         shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
    assert x.shape.as_list() == [None]
    with tf.Session() as sess:
        assert sess.run(x).tolist() == [1.0] * 8
    with pytest.raises(ValueError):
        tf.while_loop(lambda i, x: g.less(i, 3), body, [tf.constant(0), x0],
                      shape_invariants=[tf.TensorShape([]), tf.TensorShape([2, 2])])


def test_while_loop_errors():
    i0 = tf.constant(0)
    with pytest.raises(TypeError):
        tf.while_loop(lambda i: g.less(i, 2), "not callable", [i0])
    with pytest.raises(TypeError):
        tf.while_loop(lambda i: g.less(i, 2), lambda i: g.add(i, 1), [i0], parallel_iterations=0)
    with pytest.raises(ValueError):
        tf.while_loop(lambda i: g.less(i, 2), lambda i: g.add(i, 1), [])
    with pytest.raises(ValueError):  # body returns more values than there are loop vars
        tf.while_loop(lambda i, a: g.less(i, 2), lambda i, a: [i, a, a], [i0, tf.constant(1.0)])
    with pytest.raises(TypeError):  # list vs tuple inside the structure
        tf.while_loop(lambda i, a: g.less(i, 2), lambda i, a: [i, (a,)], [i0, [tf.constant(1.0)]])
    with pytest.raises(TypeError):  # a loop var changes type
        tf.while_loop(lambda i: g.less(i, 2), lambda i: g.cast(i, DstT=tf.float32), [i0])
    with pytest.raises(TypeError):  # cond is not boolean
        tf.while_loop(lambda i: i, lambda i: g.add(i, 1), [i0])
    inside = []

    def body(i):
        inside.append(g.add(i, 10))
        return g.add(i, 1)
    tf.while_loop(lambda i: g.less(i, 2), body, [i0])
    with pytest.raises(ValueError) as e:
        g.neg(inside[0])  # a value from inside the loop used outside
    assert "while loop" in str(e.value)


def _finite_difference(sess, y, x, feed, x0, eps=1e-3):
    fp = sess.run(y, {**feed, x: x0 + eps})
    fm = sess.run(y, {**feed, x: x0 - eps})
    return (fp - fm) / (2 * eps)


def test_gradients_through_cond_and_while_match_finite_differences():
    x = _ph(tf.float64, [], "x")
    p = _ph(tf.bool, [], "p")
    c = tf.cond(p, lambda: g.mul(g.mul(x, x), x), lambda: g.sin(x))
    # y = x * 1.5^k, multiplied until it passes 20 (iteration count fixed by x)
    w = tf.while_loop(lambda i, a: g.less(i, 4), lambda i, a: [g.add(i, 1), g.mul(a, g.add(x, 0.5))],
                      [tf.constant(0), x])[1]
    # a cond inside the loop body
    wc = tf.while_loop(lambda i, a: g.less(i, 3),
                       lambda i, a: [g.add(i, 1), tf.cond(g.equal(g.floor_mod(i, 2), 0),
                                                          lambda: g.mul(a, x), lambda: g.add(a, g.mul(x, x)))],
                       [tf.constant(0), tf.constant(1.0, tf.float64)])[1]
    gc, = tf.gradients(c, [x])
    gw, = tf.gradients(w, [x])
    gwc, = tf.gradients(wc, [x])
    with tf.Session() as sess:
        for x0 in (0.7, 1.3):
            for pv in (True, False):
                np.testing.assert_allclose(sess.run(gc, {x: x0, p: pv}),
                                           _finite_difference(sess, c, x, {p: pv}, x0), rtol=1e-5)
            np.testing.assert_allclose(sess.run(gw, {x: x0}), _finite_difference(sess, w, x, {}, x0), rtol=1e-5)
            np.testing.assert_allclose(sess.run(gwc, {x: x0}), _finite_difference(sess, wc, x, {}, x0), rtol=1e-5)


def test_gradient_through_nested_loops():
    x = _ph(tf.float64, [], "x")

    def outer(i, a):
        inner = tf.while_loop(lambda j, b: g.less(j, 2), lambda j, b: [g.add(j, 1), g.mul(b, x)], [0, a])[1]
        return [g.add(i, 1), inner]
    y = tf.while_loop(lambda i, a: g.less(i, 3), outer, [tf.constant(0), tf.constant(1.0, tf.float64)])[1]
    gy, = tf.gradients(y, [x])
    with tf.Session() as sess:
        assert abs(sess.run(y, {x: 1.1}) - 1.1 ** 6) < 1e-9
        np.testing.assert_allclose(sess.run(gy, {x: 1.1}), 6 * 1.1 ** 5, rtol=1e-9)


def test_back_prop_false_stops_gradients():
    x = tf.constant(2.0)
    y = tf.while_loop(lambda a: g.less(a, 10.0), lambda a: g.mul(a, x), [x], back_prop=False)
    assert tf.gradients(y, [x]) == [None]


def test_group_tuple_no_op_assert():
    v = g.variable_v2(shape=[], dtype=tf.float32, name="v")
    init = g.assign(v, tf.constant(1.0))
    a = g.assign_add(v, tf.constant(1.0))
    b = g.no_op(name="b")
    grp = tf.group(a, [b], name="both")
    assert grp.type == "NoOp" and grp.name == "both"
    assert {op.name for op in grp.control_inputs} == {a.op.name, "b"}
    with pytest.raises(TypeError):
        tf.group(a, bogus=1)
    with pytest.raises(TypeError):
        tf.group(3)
    t1, t2 = tf.tuple([tf.constant(1.0), tf.constant(2.0)])
    noop = tf.no_op(name="nothing")
    assert noop.type == "NoOp"
    x = _ph(tf.float32, [], "x")
    check = tf.Assert(g.greater(x, 0.0), ["x must be positive, got", x])
    with tf.control_dependencies([check]):
        y = g.identity(x)
    with tf.Session() as sess:
        sess.run(init)
        sess.run(grp)
        assert sess.run(v) == 2.0
        assert sess.run([t1, t2]) == [1.0, 2.0]
        assert sess.run(y, {x: 2.0}) == 2.0
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(y, {x: -1.0})
        assert "x must be positive" in str(e.value)


# ---- static shapes of cond / case outputs (Merge's shape function) ---------------
# TensorFlow gives a cond's output the shape its branches have in common:
# their shape when equal; with the same rank, the dims both know and agree
# on (unknown elsewhere); with different ranks, an unknown rank.
def _shape(t):
    return t.shape.as_list() if t.shape.ndims is not None else None


@pytest.mark.parametrize("true_shape,false_shape,expected", [
    ([2, 3], [2, 3], [2, 3]),
    ([None, 3], [None, 3], [None, 3]),
    ([], [], []),
    ([2, 3], [2, 4], [2, None]),
    ([2, 3], [5, 4], [None, None]),
    ([None, 3], [2, 3], [None, 3]),
    ([2, 3, 4], [2, 5, 4], [2, None, 4]),
    ([2, 3], [3], None),
    ([], [1], None),
    (None, [2, 3], None),
])
def test_cond_output_has_the_branches_common_static_shape(true_shape, false_shape, expected):
    p = _ph(tf.bool, None, "p")  # a predicate of unknown shape, as tf.placeholder(tf.bool, None)
    a = _ph(tf.float32, true_shape, "a")
    b = _ph(tf.float32, false_shape, "b")
    r = tf.cond(p, lambda: a * 2.0, lambda: b - 1.0)
    assert _shape(r) == expected
    # Nested structures: each output is merged on its own.
    r1, (r2, r3) = tf.cond(p, lambda: (a, (tf.zeros([4, 1]), tf.zeros([2]))),
                           lambda: (b, (tf.ones([4, 1]), tf.ones([2, 2]))))
    assert _shape(r1) == expected and _shape(r2) == [4, 1] and _shape(r3) is None
    def fully_defined(shape):
        return shape is not None and None not in shape
    if fully_defined(true_shape) and fully_defined(false_shape):
        va = np.arange(np.prod(true_shape), dtype=np.float32).reshape(true_shape)
        vb = np.ones(false_shape, np.float32)
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(r, {p: True, a: va, b: vb}), va * 2.0)
            np.testing.assert_allclose(sess.run(r, {p: False, a: va, b: vb}), vb - 1.0)


def test_case_output_has_the_branches_common_static_shape():
    x = _ph(tf.int32, [], "x")
    same = tf.case([(g.less(x, 0), lambda: tf.zeros([2, 3])), (g.equal(x, 0), lambda: tf.ones([2, 3]))],
                   default=lambda: tf.fill([2, 3], 2.0))
    partial = tf.case([(g.less(x, 0), lambda: tf.zeros([2, 3])), (g.equal(x, 0), lambda: tf.ones([2, 5]))],
                      default=lambda: tf.fill([2, 3], 2.0))
    ranks = tf.case([(g.less(x, 0), lambda: tf.zeros([2, 3]))], default=lambda: tf.zeros([6]))
    assert _shape(same) == [2, 3]
    assert _shape(partial) == [2, None]
    assert _shape(ranks) is None
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(partial, {x: 0}), np.ones([2, 5]))
        np.testing.assert_allclose(sess.run(partial, {x: 4}), np.full([2, 3], 2.0))
        assert sess.run(ranks, {x: 1}).shape == (6,)


def test_smart_cond_picks_a_known_branch_when_the_graph_is_built():
    from flowvm.compat.v1.python.framework import smart_cond as sc
    a = tf.zeros([2, 3])
    for pred, want in ((True, 1.0), (False, 0.0), (1, 1.0), (0, 0.0), (np.bool_(True), 1.0),
                       (tf.constant(True), 1.0), (tf.identity(tf.constant(False)), 0.0)):
        r = sc.smart_cond(pred, lambda: a + 1.0, lambda: a)
        assert _shape(r) == [2, 3]
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(r), np.full([2, 3], want))
    assert not [op for op in tf.get_default_graph().get_operations() if op.type in ("Switch", "Merge")]
    assert sc.smart_constant_value(tf.constant(False)) is False and sc.smart_constant_value(1) is True
    p = _ph(tf.bool, None, "p")
    assert sc.smart_constant_value(p) is None
    r = sc.smart_cond(p, lambda: a + 1.0, lambda: a)
    assert r.op.type == "Merge" and _shape(r) == [2, 3]
    with tf.Session() as sess:
        assert sess.run(r, {p: True})[0, 0] == 1.0 and sess.run(r, {p: False})[0, 0] == 0.0
    with pytest.raises(TypeError):
        sc.smart_constant_value("yes")
    with pytest.raises(TypeError):
        sc.smart_constant_value(2)
    with pytest.raises(TypeError):
        sc.smart_cond(True, a, lambda: a)
