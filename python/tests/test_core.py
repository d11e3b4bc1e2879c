"""Graphs, tensors, sessions, feeds, fetches and errors of flowvm.compat.v1."""
import collections

import numpy as np
import pytest

import flowvm.compat.v1 as tf
from flowvm.tf.ops import gen_ops


def test_constant_types_and_shapes():
    a = tf.constant(1.5)
    assert a.dtype == tf.float32 and a.shape.as_list() == []
    b = tf.constant([1, 2, 3])
    assert b.dtype == tf.int32 and b.shape.as_list() == [3]
    c = tf.constant(np.zeros((2, 3), np.float64))
    assert c.dtype == tf.float64 and c.get_shape().as_list() == [2, 3]
    d = tf.constant(7, dtype=tf.float32, shape=[2, 2])
    assert d.shape.as_list() == [2, 2]
    s = tf.constant(["a", b"bc"])
    assert s.dtype == tf.string
    with pytest.raises(TypeError):
        tf.constant(1.5, dtype=tf.int32)
    assert a.name == "Const:0" and b.name == "Const_1:0"
    assert a.op.type == "Const" and a.graph is tf.get_default_graph()


def test_session_runs_and_returns_numpy():
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    b = gen_ops.mat_mul(a, a, transpose_b=True)
    with tf.Session() as sess:
        out = sess.run(b)
        assert isinstance(out, np.ndarray) and out.dtype == np.float32
        np.testing.assert_allclose(out, np.array([[5.0, 11.0], [11.0, 25.0]]))
        scalar = sess.run(tf.constant(3.0))
        assert isinstance(scalar, np.float32) and scalar == 3.0
        assert sess.run(tf.constant(b"hi")) == b"hi"
        assert list(sess.run(tf.constant(["x", "yz"]))) == [b"x", b"yz"]


def test_nested_fetch_structures():
    a = tf.constant(1.0)
    b = tf.constant(2.0)
    noop = gen_ops.no_op()
    Pair = collections.namedtuple("Pair", ["x", "y"])
    with tf.Session() as sess:
        out = sess.run({"a": a, "nested": [b, (a, noop)], "pair": Pair(a, b), "name": "Const_1:0"})
        assert out["a"] == 1.0 and out["nested"][0] == 2.0
        assert out["nested"][1] == (1.0, None)
        assert isinstance(out["pair"], Pair) and out["pair"].y == 2.0
        assert out["name"] == 2.0
        assert sess.run(noop) is None
        assert sess.run([a, a]) == [1.0, 1.0]


def test_feeds_numpy_scalars_and_lists():
    x = gen_ops.placeholder(tf.float32, shape=[None, 2], name="x")
    y = gen_ops.sum(x, [0, 1])
    with tf.Session() as sess:
        assert sess.run(y, {x: [[1, 2], [3, 4]]}) == 10.0
        assert sess.run(y, feed_dict={"x:0": np.ones((3, 2), np.float64)}) == 6.0
        arr = np.arange(6, dtype=np.float32).reshape(3, 2)
        assert sess.run(y, {x: arr}) == 15.0
        # Feeding replaces any tensor's value.
        c = tf.constant(5.0)
        d = gen_ops.mul(c, 2.0)
        assert sess.run(d, {c: 7.0}) == 14.0


def test_wrong_feed_dtype_and_shape_raise_invalid_argument_naming_the_node():
    x = gen_ops.placeholder(tf.int32, shape=[2], name="ints")
    y = gen_ops.identity(x)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(y, {x: np.array([1.5, 2.5])})
        assert "ints" in str(e.value)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(y, {x: [1, 2, 3]})
        assert "ints" in str(e.value) and "shape" in str(e.value)
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(y, {x: ["a", "b"]})


def test_unfed_placeholder_is_invalid_argument_naming_it():
    x = gen_ops.placeholder(tf.float32, shape=[], name="needed")
    y = gen_ops.identity(x, name="y")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(y)
        assert "needed" in str(e.value)


def test_fetching_from_another_graph_is_an_error():
    g = tf.Graph()
    with g.as_default():
        other = tf.constant(1.0)
    tf.constant(2.0)
    with tf.Session() as sess:
        with pytest.raises(ValueError) as e:
            sess.run(other)
        assert "Const" in str(e.value)


def test_unknown_device_is_invalid_argument_naming_the_node():
    with tf.device("/job:nowhere/task:3"):
        c = tf.constant(1.0, name="far_away")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(c)
        assert "far_away" in str(e.value)
        assert e.value.op is not None and e.value.op.name == "far_away"


def test_soft_placement_places_unknown_devices():
    with tf.device("/device:GPU:0"):
        c = tf.constant(3.0, name="wants_gpu")
    config = tf.ConfigProto(allow_soft_placement=True)
    with tf.Session(config=config) as sess:
        assert sess.run(c) == 3.0


def test_graph_construction_errors():
    a = tf.constant(np.zeros((2, 3), np.float32))
    b = tf.constant(np.zeros((4, 5), np.float32))
    with pytest.raises(ValueError) as e:
        gen_ops.mat_mul(a, b, name="bad_mm")
    assert "bad_mm" in str(e.value)
    with pytest.raises(TypeError):
        gen_ops.add(a, tf.constant(1, dtype=tf.int32))
    # The failed node is not in the graph; the name is still usable state-wise.
    assert tf.get_default_graph()._get_operation_by_name_or_none("bad_mm") is None


def test_name_scopes_and_unique_names():
    with tf.name_scope("layer"):
        a = tf.constant(1.0, name="w")
        with tf.name_scope("inner") as scope:
            b = tf.constant(1.0, name="w")
            assert scope == "layer/inner/"
    with tf.name_scope("layer"):
        c = tf.constant(1.0, name="w")
    assert a.op.name == "layer/w" and b.op.name == "layer/inner/w" and c.op.name == "layer_1/w"
    d = tf.constant(1.0, name="w")
    e = tf.constant(1.0, name="w")
    assert d.op.name == "w" and e.op.name == "w_1"
    with tf.name_scope("abs/"):
        f = tf.constant(1.0, name="z")
    assert f.op.name == "abs/z"


def test_control_dependencies_and_devices():
    a = tf.constant(1.0, name="a")
    with tf.control_dependencies([a]):
        b = tf.constant(2.0, name="b")
        with tf.control_dependencies(None):
            c = tf.constant(3.0, name="c")
    assert [op.name for op in b.op.control_inputs] == ["a"]
    assert c.op.control_inputs == []
    with tf.device("/job:worker/task:1"):
        with tf.device("/device:CPU:0"):
            d = tf.constant(1.0)
        with tf.device(lambda op: "/job:ps/task:0" if op.type == "Const" else ""):
            e = tf.constant(1.0)
    assert d.device == "/job:worker/task:1/device:CPU:0"
    assert e.device == "/job:ps/task:0"


def test_collections():
    tf.add_to_collection("things", 1)
    tf.add_to_collections(["things", "more"], 2)
    assert tf.get_collection("things") == [1, 2]
    assert tf.get_collection("more") == [2]
    assert tf.get_collection("none") == []
    ref = tf.get_collection_ref("things")
    ref.append(3)
    assert tf.get_collection("things") == [1, 2, 3]


def test_graph_lookup_and_graph_def_round_trip(tmp_path):
    x = gen_ops.placeholder(tf.float32, shape=[None], name="x")
    y = gen_ops.mul(x, 3.0, name="y")
    g = tf.get_default_graph()
    assert g.get_tensor_by_name("y:0") is y
    assert g.get_operation_by_name("x") is x.op
    with pytest.raises(KeyError):
        g.get_tensor_by_name("nope:0")
    gd = g.as_graph_def()
    assert [n.name for n in gd.node] == ["x", "y/y", "y"]
    path = tf.train.write_graph(g, str(tmp_path), "g.pbtxt") if hasattr(tf, "train") else None
    g2 = tf.Graph()
    with g2.as_default():
        feed = tf.constant([1.0, 2.0], name="in")
        (out,) = tf.import_graph_def(gd, input_map={"x:0": feed}, return_elements=["y:0"], name="imp")
        assert out.name == "imp/y:0"
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(out), [3.0, 6.0])
    del path


def test_shapes_are_inferred_and_set_shape_merges():
    x = gen_ops.placeholder(tf.float32, shape=[None, 784])
    w = tf.constant(np.zeros((784, 10), np.float32))
    y = gen_ops.mat_mul(x, w)
    assert y.shape.as_list() == [None, 10]
    z = gen_ops.placeholder(tf.float32)
    assert z.shape.ndims is None
    z.set_shape([3, None])
    assert z.shape.as_list() == [3, None]
    with pytest.raises(ValueError):
        z.set_shape([4, 2])


def test_gradients():
    x = tf.constant([1.0, 2.0, 3.0])
    y = gen_ops.sum(gen_ops.mul(x, x), [0])
    (dx,) = tf.gradients(y, [x])
    unrelated = tf.constant(1.0)
    assert tf.gradients(y, unrelated) == [None]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(dx), [2.0, 4.0, 6.0])


def test_runtime_errors_are_tf_error_classes():
    q = gen_ops.fifo_queue_v2(component_types=[tf.float32], capacity=1)
    close = gen_ops.queue_close_v2(q)
    deq = gen_ops.queue_dequeue_v2(q, component_types=[tf.float32])
    with tf.Session() as sess:
        sess.run(close)
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(deq)
        opts = tf.RunOptions(timeout_in_ms=50)
    q2 = gen_ops.fifo_queue_v2(component_types=[tf.float32], capacity=1)
    deq2 = gen_ops.queue_dequeue_v2(q2, component_types=[tf.float32], name="waits")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(deq2, options=opts)


def test_run_metadata_is_filled_when_tracing():
    a = gen_ops.add(tf.constant(1.0), tf.constant(2.0))
    md = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(a, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=md)
    assert len(md.step_stats.dev_stats) >= 1


def test_make_callable_and_interactive_session():
    x = gen_ops.placeholder(tf.float32, shape=[])
    y = gen_ops.mul(x, 2.0)
    sess = tf.InteractiveSession()
    try:
        f = sess.make_callable([y], feed_list=[x])
        assert f(3.0) == [6.0]
        assert y.eval(feed_dict={x: 1.5}) == 3.0
    finally:
        sess.close()


def test_closed_session_and_extension_after_run():
    a = tf.constant(1.0)
    sess = tf.Session()
    assert sess.run(a) == 1.0
    b = gen_ops.add(a, 1.0)  # added after the first run
    assert sess.run(b) == 2.0
    sess.close()
    with pytest.raises(RuntimeError):
        sess.run(a)


def test_fed_arrays_are_not_copied_and_fetched_arrays_are_safe():
    x = gen_ops.placeholder(tf.float32, shape=[4])
    y = gen_ops.identity(x)
    arr = np.arange(4, dtype=np.float32)
    with tf.Session() as sess:
        out = sess.run(y, {x: arr})
        np.testing.assert_array_equal(out, arr)
        out[0] = 100.0  # the fetched array is the caller's
        out2 = sess.run(y, {x: arr})
        assert out2[0] == 0.0


# ---- regressions found in review ---------------------------------------------
import collections as _collections  # noqa: E402
import pickle  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402


def _run_python(code, timeout=120):
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def test_fed_arrays_are_never_written_by_the_runtime():
    p = gen_ops.placeholder(tf.float32, shape=[1000])
    q = tf.FIFOQueue(10, tf.float32, shapes=[[1000]])
    enq = q.enqueue(p)
    deq = q.dequeue()
    y = gen_ops.add(q.dequeue(), tf.constant(1.0))
    raw = bytes(4000)
    x = np.frombuffer(raw, np.float32)  # read-only memory
    with tf.Session() as sess:
        sess.run(enq, {p: x})
        assert sess.run(y)[0] == 1.0
        assert raw == bytes(4000)
        w = np.zeros(1000, np.float32)
        sess.run(enq, {p: w})
        out = sess.run(deq)
        assert not np.shares_memory(out, w)
        out[:] = 5.0
        assert not w.any()


def test_closing_a_session_while_other_threads_run_it_does_not_crash():
    rc, out = _run_python("""
        import threading
        import flowvm.compat.v1 as tf
        x = tf.constant(1.0)
        for _ in range(100):
            s = tf.Session()
            s.run(x)
            def loop():
                try:
                    for _ in range(50):
                        s.run(x)
                except (RuntimeError, tf.errors.OpError):
                    pass
            ts = [threading.Thread(target=loop) for _ in range(3)]
            [t.start() for t in ts]
            s.close()
            [t.join(30) for t in ts]
        print("ok")
    """)
    assert rc == 0 and "ok" in out, out


def test_exiting_with_daemon_threads_inside_run_is_clean():
    rc, out = _run_python("""
        import threading
        import numpy as np
        import flowvm.compat.v1 as tf
        from flowvm.tf.ops import gen_ops
        p = gen_ops.placeholder(tf.float32, shape=[1000])
        q = tf.FIFOQueue(4, tf.float32, shapes=[[1000]])
        enq = q.enqueue(p)
        deq = q.dequeue()
        sess = tf.Session()
        def feed():
            while True:
                sess.run(enq, {p: np.ones(1000, np.float32)})
        t = threading.Thread(target=feed, daemon=True)
        t.start()
        for _ in range(5):
            sess.run(deq)
        print("exiting")
    """)
    assert rc == 0 and "exiting" in out, out


def test_editing_a_node_after_it_ran_is_refused():
    a = tf.constant(1.0, name="a")
    b = gen_ops.identity(a, name="b")
    c = tf.constant(2.0, name="c")
    with tf.Session() as sess:
        sess.run(b)
        b.op._add_control_input(c.op)
        with pytest.raises(tf.errors.FailedPreconditionError) as e:
            sess.run(b)
        assert "'b'" in str(e.value)
    with tf.Session() as fresh:  # a new session sees the edited graph
        assert fresh.run(b) == 1.0


def test_empty_fetch_structures_run_nothing():
    tf.constant(1.0)
    with tf.Session() as sess:
        assert sess.run([]) == []
        assert sess.run({}) == {}
        assert sess.run(()) == ()


def test_attrs_accept_type_names_and_numpy_types_and_bad_values_name_the_node():
    x = gen_ops.placeholder("float", shape=[None, 2], name="fx")
    assert x.dtype == tf.float32
    y = gen_ops.cast(x, DstT="int32")
    assert y.dtype == tf.int32
    q = gen_ops.fifo_queue_v2(component_types=[np.float32])
    assert q.op.get_attr("component_types") == [tf.float32]
    with pytest.raises(ValueError) as e:
        gen_ops.placeholder(tf.float32, shape=[2.5], name="bad_shape")
    assert "bad_shape" in str(e.value)


def test_integral_float_feeds_convert_to_integer_tensors():
    x = gen_ops.placeholder(tf.int64, shape=[3], name="labels")
    with tf.Session() as sess:
        assert list(sess.run(gen_ops.identity(x), {x: np.array([1.0, 2.0, 3.0])})) == [1, 2, 3]
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(gen_ops.identity(x), {x: np.array([1.0, 2.5, 3.0])})


def test_defaultdict_fetches_names_and_pickled_errors():
    a = tf.constant(1.0)
    fetch = _collections.defaultdict(list, {"a": a})
    with tf.Session() as sess:
        out = sess.run(fetch)
    assert isinstance(out, _collections.defaultdict) and out.default_factory is list and out["a"] == 1.0
    with pytest.raises(ValueError):
        tf.constant(1.0, name="a b")
    with pytest.raises(ValueError):
        with tf.name_scope("a b"):
            pass
    sess.close()
    with pytest.raises(RuntimeError):
        sess.list_devices()
    e = pickle.loads(pickle.dumps(tf.errors.NotFoundError(None, None, "gone")))
    assert isinstance(e, tf.errors.NotFoundError) and e.error_code == tf.errors.NOT_FOUND and str(e) == "gone"


@pytest.mark.parametrize("array", [
    np.arange(12, dtype=np.float32).reshape(3, 4),
    np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2],  # not contiguous
    np.arange(6, dtype=">i4"),  # big-endian
    np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)),
    np.zeros((0, 3), np.int64),
    np.array([1.5, -2.25], np.float16),
    np.array([1 + 2j, 3 - 4j], np.complex64),
    np.array([True, False]),
    np.array([b"a", b"", b"xyz"], dtype=object),
    np.array(["uni", "code"]),
    np.array([[b"x"]]),
    np.uint64(2 ** 63 + 5) * np.ones(2, np.uint64),
])
def test_numpy_arrays_cross_into_tensors_and_back(array):
    """Any layout and byte order goes in; strings come back as bytes."""
    from flowvm import _flowvm
    out = _flowvm.tensor_roundtrip(array)
    assert out.shape == array.shape
    if array.dtype.kind in ("O", "U", "S"):
        assert [x for x in out.ravel()] == [x if isinstance(x, bytes) else x.encode() for x in array.ravel()]
    else:
        assert out.dtype == array.dtype.newbyteorder("=")
        np.testing.assert_array_equal(out, array)


def test_unsupported_numpy_types_are_refused_clearly():
    from flowvm import _flowvm
    with pytest.raises(tf.errors.InvalidArgumentError):
        _flowvm.tensor_roundtrip(np.array(["2020-01-01"], dtype="datetime64[D]"))
    with pytest.raises(tf.errors.InvalidArgumentError):
        _flowvm.tensor_roundtrip(np.array([object()], dtype=object))


def test_config_proto_device_count_and_log_device_placement(capfd):
    x = gen_ops.placeholder(tf.float32, shape=[], name="x")
    with tf.device("/device:CPU:1"):
        a = gen_ops.mul(x, 2.0, name="on_cpu1")
    b = gen_ops.mul(a, 3.0, name="times3")
    config = tf.ConfigProto(device_count={"CPU": 2}, intra_op_parallelism_threads=2,
                            log_device_placement=True)
    with tf.Session(config=config) as sess:
        names = [d.name for d in sess.list_devices()]
        assert len(names) == 2 and names[1].endswith("device:CPU:1")
        assert sess.run(b, {x: 1.0}) == 6.0
    err = capfd.readouterr().err
    assert "on_cpu1 -> CPU:1" in err, err
    with tf.Session() as sess:  # one CPU device by default: CPU:1 does not exist
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(b, {x: 1.0})
        assert "on_cpu1" in str(e.value)


def test_operation_timeout_from_config():
    q = gen_ops.fifo_queue_v2(component_types=[tf.float32], capacity=1)
    deq = gen_ops.queue_dequeue_v2(q, component_types=[tf.float32], name="waits_forever")
    with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=100)) as sess:
        with pytest.raises(tf.errors.DeadlineExceededError) as e:
            sess.run(deq)
        assert "waits_forever" in str(e.value)


def test_create_op_with_tensor_and_list_attrs():
    # Graph.create_op takes AttrValue protos: the tensor attr is decoded by
    # the TensorProto decoder tensor_util registers with ops.
    g = tf.get_default_graph()
    value = tf.make_tensor_proto(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    c = g.create_op("Const", [], [tf.float32], attrs={"value": tf.AttrValue(tensor=value),
                                                     "dtype": tf.AttrValue(type=tf.float32.as_datatype_enum)},
                    name="c").outputs[0]
    assert c.shape.as_list() == [2, 2]
    s = g.create_op("AddN", [c, c, c], [tf.float32], name="s").outputs[0]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(s), 3 * np.array([[1, 2], [3, 4]], np.float32))
