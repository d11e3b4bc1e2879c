"""tf.TensorArray: every method against NumPy, dynamic size, the runtime's
errors (clear_after_read, out of range, closed, wrong dtype), static element
shapes, colocation, TensorArrays as tf.while_loop variables (one iteration
at a time and 10 in flight, in nested structures, with shape invariants),
tf.cond over them, and gradients through them against finite differences."""
import collections

import numpy as np
import pytest

import flowvm.compat.v1 as tf
from flowvm.tf.ops import tensor_array_ops

from gradcheck_util import check_gradients

TWO_CPUS = tf.ConfigProto(device_count={"CPU": 2})


def _run(fetches, feed=None, config=None):
    with tf.Session(config=config) as sess:
        return sess.run(fetches, feed)


# ---- values ------------------------------------------------------------------------
def test_write_read_and_stack():
    rng = np.random.RandomState(0)
    xs = rng.randn(3, 2, 4).astype(np.float32)
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False)
    for i in (2, 0, 1):  # any order
        ta = ta.write(i, xs[i])
    r1 = ta.read(1)
    stacked = ta.stack()
    assert r1.shape.as_list() == [2, 4]
    assert stacked.shape.as_list() == [3, 2, 4]
    v1, vs = _run([r1, stacked])
    np.testing.assert_array_equal(v1, xs[1])
    np.testing.assert_array_equal(vs, xs)


def test_write_returns_a_new_array_on_the_same_handle():
    ta = tf.TensorArray(tf.float32, size=2)
    ta2 = ta.write(0, 1.0)
    assert isinstance(ta2, tf.TensorArray) and ta2 is not ta
    assert ta2.handle is ta.handle and ta2.flow is not ta.flow
    assert ta2.flow.op.type == "TensorArrayWriteV3" and ta.flow.op.type == "TensorArrayV3"
    assert ta.handle.op.type == "TensorArrayV3" and ta.handle.op.name == "TensorArray"
    assert ta2.dtype == tf.float32 and not ta2.dynamic_size
    ident = ta2.identity()
    assert ident.flow.op.type == "Identity" and ident.handle is ta.handle
    ta3 = ident.write(1, 2.0)
    np.testing.assert_array_equal(_run(ta3.stack()), [1.0, 2.0])


def test_unstack_gather_scatter():
    rng = np.random.RandomState(1)
    x = rng.randn(5, 3)
    ta = tf.TensorArray(tf.float64, size=5, clear_after_read=False).unstack(x)
    g = ta.gather([4, 0, 2])
    assert g.shape.as_list() == [3, 3]
    r = ta.read(3)
    vg, vr = _run([g, r])
    np.testing.assert_array_equal(vg, x[[4, 0, 2]])
    np.testing.assert_array_equal(vr, x[3])
    # scatter into a larger array, out of order
    ta = tf.TensorArray(tf.float64, size=6).scatter([5, 1, 3], x[:3])
    assert ta.element_shape.as_list() == [3]
    np.testing.assert_array_equal(_run(ta.gather([1, 3, 5])), x[[1, 2, 0]])


def test_unstack_of_a_placeholder_with_unknown_length():
    x = tf.placeholder(tf.float32, [None, 2])
    ta = tf.TensorArray(tf.float32, size=tf.shape(x)[0]).unstack(x)
    s = ta.stack()
    assert s.shape.as_list() == [None, 2]
    v = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_array_equal(_run(s, {x: v}), v)
    np.testing.assert_array_equal(_run(ta.size(), {x: v}), 4)


def test_split_and_concat():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False, infer_shape=False).split(x, [1, 3, 2])
    pieces = [ta.read(i) for i in range(3)]
    c = ta.concat()
    assert c.shape.ndims is None or c.shape.as_list()[1:] in ([2], [None])
    out = _run(pieces + [c])
    np.testing.assert_array_equal(out[0], x[:1])
    np.testing.assert_array_equal(out[1], x[1:4])
    np.testing.assert_array_equal(out[2], x[4:])
    np.testing.assert_array_equal(out[3], x)
    # Equal lengths known statically: the element shape is known.
    ta = tf.TensorArray(tf.float32, size=3).split(x, np.array([2, 2, 2]))
    assert ta.element_shape.as_list() == [2, 2]
    # Elements of different lengths, written one by one, concatenated.
    ta = tf.TensorArray(tf.float32, size=2, infer_shape=False)
    ta = ta.write(0, [[1.0, 2.0]]).write(1, [[3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_array_equal(_run(ta.concat()), [[1, 2], [3, 4], [5, 6]])


def test_size_and_dynamic_size_growth():
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    assert ta.dynamic_size
    for i in range(4):
        ta = ta.write(i, [i, i * i])
    ta = ta.write(6, [6, 36])  # a gap: growing past it
    size = ta.size()
    stacked = ta.gather([0, 1, 2, 3, 6])
    vsize, vs = _run([size, stacked])
    assert vsize == 7
    np.testing.assert_array_equal(vs, [[0, 0], [1, 1], [2, 4], [3, 9], [6, 36]])
    fixed = tf.TensorArray(tf.float32, size=3)
    assert _run(fixed.size()) == 3


def test_dynamic_size_in_a_loop_of_unknown_length():
    n = tf.placeholder(tf.int32, [])
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

    def body(i, ta):
        return i + 1, ta.write(i, tf.cast(i, tf.float32) * 0.5)
    _, ta = tf.while_loop(lambda i, ta: i < n, body, [0, ta])
    out = ta.stack()
    assert out.shape.as_list() == [None]
    np.testing.assert_array_equal(_run(out, {n: 5}), np.arange(5) * 0.5)


def test_python_values_take_the_array_dtype():
    ta = tf.TensorArray(tf.float64, size=2).write(0, 1).write(1, 2)  # ints written as float64
    assert _run(ta.stack()).dtype == np.float64


# ---- static element shapes -----------------------------------------------------
def test_element_shape_inferred_from_writes_and_shared():
    ta = tf.TensorArray(tf.float32, size=3)
    assert ta.element_shape.ndims is None
    ta1 = ta.write(0, tf.zeros([2, 3]))
    assert ta1.element_shape.as_list() == [2, 3]
    assert ta.element_shape.as_list() == [2, 3]  # shared with the array it came from
    with pytest.raises(ValueError) as e:
        ta1.write(1, tf.zeros([3]))
    assert "Inconsistent shapes: saw (3,) but expected (2, 3)" in str(e.value)
    assert ta1.read(1).shape.as_list() == [2, 3]
    assert ta1.stack().shape.as_list() == [3, 2, 3]
    # A declared partial shape is refined by a write.
    ta = tf.TensorArray(tf.float32, size=2, element_shape=tf.TensorShape([None, 4]))
    assert ta.element_shape.as_list() == [None, 4]
    with pytest.raises(ValueError):
        ta.write(0, tf.zeros([2, 5]))
    ta = ta.write(0, tf.placeholder(tf.float32, [7, None]))
    assert ta.element_shape.as_list() == [7, 4]
    # Without infer_shape, nothing is learned and any shape may be written.
    ta = tf.TensorArray(tf.float32, size=2, infer_shape=False)
    ta = ta.write(0, tf.zeros([2])).write(1, tf.zeros([3]))
    assert ta.element_shape.ndims is None
    np.testing.assert_array_equal(_run(ta.concat()), np.zeros(5))


def test_element_shape_from_unstack_and_declared_shape_reaches_the_op():
    ta = tf.TensorArray(tf.float32, size=4, element_shape=[3]).unstack(tf.zeros([4, 3]))
    assert ta.handle.op.get_attr("element_shape").as_list() == [3]
    assert ta.handle.op.get_attr("identical_element_shapes") is True
    assert ta.read(0).shape.as_list() == [3]
    assert ta.gather([0, 1]).shape.as_list() == [2, 3]
    with pytest.raises(ValueError):
        tf.TensorArray(tf.float32, size=4, element_shape=[2]).unstack(tf.zeros([4, 3]))


# ---- errors --------------------------------------------------------------------------
def test_constructor_errors():
    ta = tf.TensorArray(tf.float32, size=1)
    with pytest.raises(ValueError, match="Size must be provided"):
        tf.TensorArray(tf.float32)
    with pytest.raises(ValueError, match="both a handle and size"):
        tf.TensorArray(tf.float32, size=1, handle=ta.handle, flow=ta.flow)
    with pytest.raises(ValueError, match="both handle and tensor_array_name"):
        tf.TensorArray(tf.float32, handle=ta.handle, flow=ta.flow, tensor_array_name="x")
    with pytest.raises(TypeError, match="Handle must be a Tensor"):
        tf.TensorArray(tf.float32, handle="not a tensor", flow=ta.flow)
    with pytest.raises(ValueError, match="flow must not be None"):
        tf.TensorArray(tf.float32, handle=ta.handle)
    with pytest.raises(ValueError, match="dynamic_size"):
        tf.TensorArray(tf.float32, handle=ta.handle, flow=ta.flow, dynamic_size=True)
    with pytest.raises(ValueError, match="clear_after_read"):
        tf.TensorArray(tf.float32, handle=ta.handle, flow=ta.flow, clear_after_read=False)
    with pytest.raises(ValueError, match="element_shape"):
        tf.TensorArray(tf.float32, handle=ta.handle, flow=ta.flow, element_shape=[2])
    wrapped = tf.TensorArray(tf.float32, handle=ta.handle, flow=ta.flow)
    assert wrapped.handle is ta.handle and wrapped.flow is ta.flow


def test_clear_after_read_second_read_fails_naming_the_array():
    ta = tf.TensorArray(tf.float32, size=2, tensor_array_name="cleared").unstack([1.0, 2.0])
    r1 = ta.read(0)
    with tf.control_dependencies([r1]):
        r2 = ta.read(0, name="second_read")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        _run([r1, r2])
    msg = str(e.value)
    assert "Could not read index 0 twice because it was cleared after a previous read" in msg, msg
    assert "cleared" in msg and "second_read" in msg, msg
    # Without clear_after_read an element is read many times.
    ta = tf.TensorArray(tf.float32, size=2, clear_after_read=False).unstack([1.0, 2.0])
    r1 = ta.read(0)
    with tf.control_dependencies([r1]):
        r2 = ta.read(0)
    assert _run([r1, r2]) == [1.0, 1.0]


def test_out_of_range_read_and_write():
    ta = tf.TensorArray(tf.float32, size=3, tensor_array_name="three").unstack([1.0, 2.0, 3.0])
    r = ta.read(5, name="past_the_end")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        _run(r)
    msg = str(e.value)
    assert "Tried to read from index 5 but array size is: 3" in msg and "past_the_end" in msg, msg
    w = tf.TensorArray(tf.float32, size=2).write(2, 1.0, name="too_far")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        _run(w.flow)
    assert "Tried to write to index 2 but array is not resizeable and size is: 2" in str(e.value)
    assert "too_far" in str(e.value)
    # Writing one index twice.
    ta = tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(0, 2.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="already been written"):
        _run(ta.flow)


def test_wrong_dtype_write_and_closed_array():
    ta = tf.TensorArray(tf.float32, size=1).write(0, tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        _run(ta.flow)
    assert "TensorArray dtype is float but Op is trying to write dtype int32" in str(e.value)
    ta = tf.TensorArray(tf.float32, size=1, clear_after_read=False).write(0, 3.0)
    closed = ta.close()
    with tf.control_dependencies([closed]):
        late = ta.read(0, name="after_close")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        _run(late)
    assert "has already been closed" in str(e.value)


# ---- placement -----------------------------------------------------------------------
def test_colocated_with_the_first_write():
    with tf.device("/device:CPU:1"):
        ta = tf.TensorArray(tf.float32, size=2)
        with tf.device("/device:CPU:0"):
            v = tf.constant([1.0, 2.0], name="first_value")
        ta = ta.write(0, v)
        ta = ta.write(1, tf.constant([3.0, 4.0]))
    assert ta.handle.op.device == ""  # placed by its first write, not by the scope
    writes = [op for op in tf.get_default_graph().get_operations() if op.type == "TensorArrayWriteV3"]
    assert len(writes) == 2
    for op in writes:
        assert op.colocation_groups() == [b"loc:@first_value"]
        assert op.device.endswith("CPU:0")
    np.testing.assert_array_equal(_run(ta.stack(), config=TWO_CPUS), [[1, 2], [3, 4]])
    with tf.device("/device:CPU:1"):
        ta = tf.TensorArray(tf.float32, size=1, colocate_with_first_write_call=False)
    assert ta.handle.op.device.endswith("CPU:1")


def test_grad_array():
    ta = tf.TensorArray(tf.float32, size=2, element_shape=[2]).unstack([[1.0, 2.0], [3.0, 4.0]])
    g = ta.grad("gradients_custom")
    assert g.handle.op.type == "TensorArrayGradV3"
    assert g.handle.op.get_attr("source") in (b"gradients_custom", "gradients_custom")
    assert g.flow.op.name.endswith("gradient_flow")
    assert g.element_shape.as_list() == [2]
    # Writes to one index of a gradient array add up.
    g = g.write(0, [1.0, 1.0]).write(0, [0.5, 0.5]).write(1, [2.0, 2.0])
    np.testing.assert_allclose(_run(g.stack()), [[1.5, 1.5], [2.0, 2.0]])


# ---- in loops and conds ----------------------------------------------------------------------
@pytest.mark.parametrize("parallel_iterations", [1, 10])
def test_while_loop_over_tensor_arrays(parallel_iterations):
    rng = np.random.RandomState(2)
    x = rng.randn(6, 3).astype(np.float32)
    inp = tf.TensorArray(tf.float32, size=6).unstack(x)
    out = tf.TensorArray(tf.float32, size=6)

    def body(t, acc, out):
        acc = acc + inp.read(t)
        return t + 1, acc, out.write(t, acc * 2.0)
    _, final, out = tf.while_loop(lambda t, acc, out: t < 6, body, [0, tf.zeros([3]), out],
                                  parallel_iterations=parallel_iterations)
    assert isinstance(out, tf.TensorArray)
    enters = [op for op in tf.get_default_graph().get_operations() if op.type == "Enter"]
    assert enters and all(op.get_attr("parallel_iterations") == parallel_iterations for op in enters)
    stacked = out.stack()
    assert stacked.shape.as_list() == [6, 3]
    vs, vf = _run([stacked, final])
    np.testing.assert_allclose(vs, 2 * np.cumsum(x, axis=0), rtol=1e-6)
    np.testing.assert_allclose(vf, x.sum(axis=0), rtol=1e-6)
    vs2 = _run(stacked, config=TWO_CPUS)
    np.testing.assert_allclose(vs2, 2 * np.cumsum(x, axis=0), rtol=1e-6)


def test_tensor_arrays_in_nested_loop_vars_and_shape_invariants():
    State = collections.namedtuple("State", ["count", "arrays"])
    evens = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    odds = tf.TensorArray(tf.int32, size=0, dynamic_size=True)

    def body(i, state):
        return i + 1, State(state.count + 1, {"even": state.arrays["even"].write(i, 2 * i),
                                              "odd": state.arrays["odd"].write(i, 2 * i + 1)})
    start = State(tf.constant(0), {"even": evens, "odd": odds})
    i, state = tf.while_loop(lambda i, s: i < 4, body, [0, start],
                             shape_invariants=[tf.TensorShape([]),
                                               State(tf.TensorShape([]), {"even": tf.TensorShape(None),
                                                                          "odd": tf.TensorShape([])})])
    assert isinstance(state.arrays["even"], tf.TensorArray) and isinstance(state, State)
    ve, vo, vc = _run([state.arrays["even"].stack(), state.arrays["odd"].stack(), state.count])
    np.testing.assert_array_equal(ve, [0, 2, 4, 6])
    np.testing.assert_array_equal(vo, [1, 3, 5, 7])
    assert vc == 4
    # A single TensorArray as the loop variable comes back as one.
    single = tf.while_loop(lambda ta: ta.size() < 3, lambda ta: ta.write(ta.size(), 1.5),
                           tf.TensorArray(tf.float32, size=0, dynamic_size=True))
    assert isinstance(single, tf.TensorArray)
    np.testing.assert_array_equal(_run(single.stack()), [1.5, 1.5, 1.5])


def test_while_loop_tensor_array_errors():
    ta = tf.TensorArray(tf.float32, size=2)
    with pytest.raises(TypeError):  # a TensorArray returned for a Tensor loop variable
        tf.while_loop(lambda i, x: i < 2, lambda i, x: (i + 1, ta), [0, tf.constant(0.0)])
    with pytest.raises(TypeError):  # an int Tensor returned for a TensorArray
        tf.while_loop(lambda i, t: i < 2, lambda i, t: (i + 1, i), [0, ta])
    with pytest.raises(ValueError):  # a shape invariant the flow (a scalar) cannot have
        tf.while_loop(lambda i, t: i < 2, lambda i, t: (i + 1, t), [0, ta],
                      shape_invariants=[tf.TensorShape([]), tf.TensorShape([2, 2])])


def test_cond_returns_tensor_arrays():
    p = tf.placeholder(tf.bool, [])
    ta = tf.TensorArray(tf.float32, size=2).write(0, 1.0)
    ta = tf.cond(p, lambda: ta.write(1, 10.0), lambda: ta.write(1, -10.0))
    assert isinstance(ta, tf.TensorArray)
    s = ta.stack()
    assert s.shape.as_list() == [2]
    np.testing.assert_array_equal(_run(s, {p: True}), [1.0, 10.0])
    np.testing.assert_array_equal(_run(s, {p: False}), [1.0, -10.0])


def test_internal_paths():
    from flowvm.compat.v1.python.ops import tensor_array_ops as alias
    from flowvm.compat.v1.python.ops import tensor_array_grad  # noqa: F401 - imported for its effect in TF
    assert alias is tensor_array_ops and alias.TensorArray is tf.TensorArray


# ---- gradients ---------------------------------------------------------------------
def test_gradient_read_write_stack():
    def writes(x, w):
        ta = tf.TensorArray(tf.float64, size=3)
        ta = ta.write(0, x[0] * w).write(1, tf.tanh(x[1])).write(2, x[2] * x[0])
        return ta.stack()
    check_gradients(writes, np.random.RandomState(3).randn(3, 2), np.array([0.3, -1.2]))

    def reads(x):
        ta = tf.TensorArray(tf.float64, size=4, clear_after_read=False).unstack(x)
        return ta.read(0) * ta.read(2) + tf.sin(ta.read(1)) + ta.read(0)
    check_gradients(reads, np.random.RandomState(4).randn(4, 3))


def test_gradient_unstack_gather_scatter():
    def gather(x):
        ta = tf.TensorArray(tf.float64, size=4, clear_after_read=False).unstack(tf.tanh(x))
        return ta.gather([3, 0, 3])
    check_gradients(gather, np.random.RandomState(5).randn(4, 2))

    def scatter(x):
        ta = tf.TensorArray(tf.float64, size=5).scatter([4, 1, 0], x * x)
        return ta.gather([0, 1, 4])
    check_gradients(scatter, np.random.RandomState(6).randn(3, 2))


def test_gradient_split_concat():
    def split(x):
        ta = tf.TensorArray(tf.float64, size=3, infer_shape=False, clear_after_read=False).split(x, [2, 1, 3])
        first, last = ta.read(0), ta.read(2)
        first.set_shape([2, 2])
        last.set_shape([3, 2])
        return tf.concat([tf.reduce_sum(first * 2.0, 0), tf.exp(last)[1]], 0)
    check_gradients(split, np.random.RandomState(7).randn(6, 2))

    def concat(a, b):
        ta = tf.TensorArray(tf.float64, size=2, infer_shape=False)
        ta = ta.write(0, a).write(1, tf.sin(b))
        c = ta.concat()
        c.set_shape([3, 2])
        return c
    check_gradients(concat, np.random.RandomState(8).randn(1, 2), np.random.RandomState(9).randn(2, 2))


@pytest.mark.parametrize("parallel_iterations", [1, 10])
def test_gradient_through_while_loop_over_tensor_arrays(parallel_iterations):
    # h[t] = tanh(w * h[t-1] + x[t]); the outputs stacked.
    def rnn(x, w, h0):
        inp = tf.TensorArray(tf.float64, size=5).unstack(x)
        out = tf.TensorArray(tf.float64, size=5)

        def body(t, h, out):
            h = tf.tanh(w * h + inp.read(t))
            return t + 1, h, out.write(t, h)
        _, _, out = tf.while_loop(lambda t, h, out: t < 5, body, [0, h0, out],
                                  parallel_iterations=parallel_iterations)
        return out.stack()
    rng = np.random.RandomState(10)
    check_gradients(rnn, rng.randn(5, 3) * 0.5, rng.randn(3) * 0.5, rng.randn(3) * 0.5)


def test_gradient_through_a_dynamic_size_loop():
    def fn(x):
        out = tf.TensorArray(tf.float64, size=0, dynamic_size=True, element_shape=[2])

        def body(t, out):
            return t + 1, out.write(t, x * tf.cast(t + 1, tf.float64))
        _, out = tf.while_loop(lambda t, out: t < 3, body, [0, out])
        s = out.stack()
        s.set_shape([3, 2])
        return tf.sin(s)
    check_gradients(fn, np.array([0.4, -0.9]))


def test_stack_adds_no_stray_nodes_and_knows_a_fixed_size():
    g = tf.get_default_graph()
    ta = tf.TensorArray(tf.float32, size=3).unstack(tf.zeros([3, 2]))
    before = len(g.get_operations())
    s = ta.stack()
    assert s.shape.as_list() == [3, 2]
    added = sorted(op.type for op in g.get_operations()[before:])
    assert added == ["Const", "Const", "Range", "TensorArrayGatherV3", "TensorArraySizeV3"], added
    n = tf.placeholder(tf.int32, [])
    ta = tf.TensorArray(tf.float32, size=n, element_shape=[2])
    assert ta.stack().shape.as_list() == [None, 2]
    ta = tf.TensorArray(tf.float32, size=tf.constant(4), element_shape=[2])
    assert ta.stack().shape.as_list() == [4, 2]


def test_gradient_through_a_loop_on_two_cpus():
    # out[t] = w * x[t] with w on CPU:1 and the arrays beside x on CPU:0:
    # d sum(out * c) / dw = sum(c * x).
    x = np.arange(1.0, 5.0)
    c = np.array([1.0, -2.0, 0.5, 3.0])
    with tf.device("/device:CPU:1"):
        w = tf.placeholder(tf.float64, [])
    inp = tf.TensorArray(tf.float64, size=4).unstack(x)
    out = tf.TensorArray(tf.float64, size=4)
    _, out = tf.while_loop(lambda t, o: t < 4, lambda t, o: (t + 1, o.write(t, w * inp.read(t))), [0, out])
    loss = tf.reduce_sum(out.stack() * c)
    gw, = tf.gradients(loss, [w])
    vl, vg = _run([loss, gw], {w: 1.5}, config=TWO_CPUS)
    np.testing.assert_allclose(vl, 1.5 * (c * x).sum())
    np.testing.assert_allclose(vg, (c * x).sum())


def test_scan_and_its_gradient_on_a_three_task_cluster():
    # The input array and the loop on worker 1, the weight on worker 2, the
    # session's master on worker 0: out[t] = out[t-1] * w + x[t], so
    # d sum(out) / dw is the sum over t of the derivative of that recurrence.
    from flowvm import _flowvm
    ports = [_flowvm.pick_unused_port() for _ in range(3)]
    spec = {"worker": ["127.0.0.1:%d" % p for p in ports]}
    servers = [tf.train.Server(spec, job_name="worker", task_index=i) for i in range(3)]
    try:
        x = np.array([1.0, -2.0, 0.5, 3.0, 2.0])
        with tf.device("/job:worker/task:2"):
            w = tf.placeholder(tf.float64, [])
        with tf.device("/job:worker/task:1"):
            out = tf.scan(lambda acc, xt: acc * w + xt, tf.constant(x), initializer=tf.constant(0.0, tf.float64))
            loss = tf.reduce_sum(out)
            gw, = tf.gradients(loss, [w])
        with tf.Session(servers[0].target) as sess:
            vo, vg = sess.run([out, gw], {w: 0.5})
        expect, acc, dacc, grad = [], 0.0, 0.0, 0.0
        for xt in x:
            dacc = dacc * 0.5 + acc  # d(acc * w + xt)/dw before acc changes
            acc = acc * 0.5 + xt
            expect.append(acc)
            grad += dacc
        np.testing.assert_allclose(vo, expect)
        np.testing.assert_allclose(vg, grad)
    finally:
        for s in servers:
            s.stop()
