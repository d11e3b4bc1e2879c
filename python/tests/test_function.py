"""Functions in the graph: `from tensorflow.python.framework import function`,
@function.Defun with nested calls, captured tensors, variables, gradients
(through the body, a grad_func, a python_grad_func), overloading, Declare
for recursion, tf.RegisterGradient with gradient_override_map, and the
library in GraphDefs. Expected values are NumPy's or hand-computed."""
import numpy as np
import pytest

import flowvm.compat.v1 as tf
from flowvm.compat.v1.python.framework import function
from gradcheck_util import check_gradients


def run(fetches, feed=None, config=None):
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def test_defun_call_values_shapes_and_name():
    @function.Defun(tf.float32, tf.float32)
    def MulAdd(x, y):
        return x * y + 1.0

    a = tf.placeholder(tf.float32, [2, 3])
    b = tf.constant(np.full((2, 3), 2.0, np.float32))
    z = MulAdd(a, b, name="mycall")
    assert z.op.name == "mycall"
    assert z.op.type == MulAdd.name and MulAdd.name.startswith("MulAdd_")
    assert z.shape.as_list() == [2, 3]  # inferred through the body
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(run(z, {a: x}), x * 2 + 1)
    # The library travels with the GraphDef.
    gd = tf.get_default_graph().as_graph_def()
    assert [f.signature.name for f in gd.library.function] == [MulAdd.name]


def test_multiple_outputs_fixed_name_and_out_names():
    @function.Defun(tf.float32, tf.float32, func_name="SumDiff", out_names=["s", "d"])
    def f(x, y):
        return x + y, x - y

    s, d = f(tf.constant([5.0]), tf.constant([3.0]))
    assert f.name == "SumDiff"
    assert [a.name for a in f.definition.signature.output_arg] == ["s", "d"]
    np.testing.assert_allclose(run([s, d]), [[8.0], [2.0]])


def test_nested_calls_and_captured_tensors():
    scale = tf.constant(10.0)

    @function.Defun(tf.float32)
    def Inner(x):
        return x * scale  # captured from the calling graph

    @function.Defun(tf.float32)
    def Outer(x):
        return Inner(x) + Inner(2.0 * x)

    y = Outer(tf.constant([1.0, 2.0]))
    np.testing.assert_allclose(run(y), [30.0, 60.0])
    names = [f.signature.name for f in tf.get_default_graph().as_graph_def().library.function]
    assert sorted(names) == sorted([Inner.name, Outer.name])
    assert len(Outer.captured_inputs) == 1


def test_gradients_through_the_body_match_finite_differences():
    @function.Defun(tf.float64, tf.float64)
    def Poly(x, w):
        return tf.tanh(x * w) + x * x * w

    check_gradients(lambda x, w: Poly(x, w), np.array([0.3, -1.2, 0.7]), np.array([1.5, 0.2, -0.4]))


def test_grad_func_and_python_grad_func():
    @function.Defun(tf.float32, tf.float32)
    def DoubleGrad(x, dy):
        return 2.0 * dy

    @function.Defun(tf.float32, grad_func=DoubleGrad)
    def Ident(x):
        return tf.identity(x)

    def clipped(op, grad):
        return tf.clip_by_value(grad, -1.0, 1.0) * op.inputs[0]

    @function.Defun(tf.float32, python_grad_func=clipped)
    def Ident2(x):
        return tf.identity(x)

    x = tf.constant([3.0, 4.0])
    g1, = tf.gradients(tf.reduce_sum(Ident(x) * 5.0), [x])
    g2, = tf.gradients(tf.reduce_sum(Ident2(x) * 5.0), [x])
    np.testing.assert_allclose(run([g1, g2]), [[10.0, 10.0], [3.0, 4.0]])
    gd = tf.get_default_graph().as_graph_def()
    assert [(g.function_name, g.gradient_func) for g in gd.library.gradient] == [(Ident.name, DoubleGrad.name)]


def test_variables_created_in_a_body_live_in_the_calling_graph_and_train():
    @function.Defun(tf.float32)
    def Linear(x):
        w = tf.get_variable("w", [], initializer=tf.constant_initializer(0.5))
        return x * w

    x = tf.constant([1.0, 2.0, 3.0])
    with tf.variable_scope("model"):
        y = Linear(x)
    assert [v.name for v in tf.trainable_variables()] == ["model/w:0"]
    loss = tf.reduce_sum(tf.square(y - 2.0 * x))
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(50):
            sess.run(train)
        np.testing.assert_allclose(sess.run(tf.trainable_variables()[0]), 2.0, rtol=1e-3)


def test_overloaded_function_is_instantiated_per_type():
    @function.Defun()
    def Twice(x):
        return x + x

    a = Twice(tf.constant([1.0, 2.0]))
    b = Twice(tf.constant([3, 4]))
    assert a.dtype == tf.float32 and b.dtype == tf.int32
    assert a.op.type != b.op.type
    np.testing.assert_allclose(run(a), [2.0, 4.0])
    np.testing.assert_array_equal(run(b), [6, 8])


def test_shape_func():
    @function.Defun(tf.float32, shape_func=lambda op: [tf.TensorShape([None, 4])])
    def Reshape4(x):
        return tf.reshape(x, [-1, 4])

    y = Reshape4(tf.placeholder(tf.float32))
    assert y.shape.as_list() == [None, 4]


def test_declare_and_recursion():
    fact = function.Declare("Fact", [("n", tf.float32)], [("f", tf.float32)])

    @function.Defun(tf.float32, func_name="Fact", out_names=["f"])
    def Fact(n):
        return tf.cond(n <= 1.0, lambda: tf.ones_like(n), lambda: n * fact(n - 1.0))

    n = tf.placeholder(tf.float32, [])
    y = Fact(n)
    with tf.Session() as sess:
        assert sess.run(y, {n: 5.0}) == 120.0
        assert sess.run(y, {n: 1.0}) == 1.0


def test_defun_inside_a_while_loop():
    @function.Defun(tf.float32, tf.float32)
    def Step(acc, i):
        return acc + i * i

    _, total = tf.while_loop(lambda i, acc: i < 5.0, lambda i, acc: (i + 1.0, Step(acc, i)),
                             [tf.constant(0.0), tf.constant(0.0)])
    assert run(total) == 30.0  # 0 + 1 + 4 + 9 + 16


def test_body_spans_devices():
    @function.Defun(tf.float32)
    def TwoDevices(x):
        with tf.device("/cpu:1"):
            y = x * 3.0
        return y + 1.0

    z = TwoDevices(tf.constant([1.0, 2.0]))
    config = tf.ConfigProto(device_count={"CPU": 2})
    np.testing.assert_allclose(run(z, config=config), [4.0, 7.0])


def test_register_gradient_and_gradient_override_map():
    @tf.RegisterGradient("FlowvmTestSquareTimesTen")
    def _grad(op, grad):
        return grad * 10.0 * op.inputs[0]

    x = tf.constant([1.0, 2.0])
    g = tf.get_default_graph()
    with g.gradient_override_map({"Square": "FlowvmTestSquareTimesTen"}):
        y = tf.square(x)
    plain = tf.square(x)
    assert y.op.get_attr("_gradient_op_type") in (b"FlowvmTestSquareTimesTen", "FlowvmTestSquareTimesTen")
    gy, = tf.gradients(tf.reduce_sum(y), [x])
    gp, = tf.gradients(tf.reduce_sum(plain), [x])
    np.testing.assert_allclose(run([gy, gp]), [[10.0, 20.0], [2.0, 4.0]])
    with pytest.raises(KeyError):
        tf.RegisterGradient("FlowvmTestSquareTimesTen")(_grad)


def test_import_a_graph_def_with_a_library():
    @function.Defun(tf.float32)
    def Cube(x):
        return x * x * x

    with tf.Graph().as_default() as g1:
        y = Cube(tf.placeholder(tf.float32, [], name="x"))
        tf.identity(y, name="y")
    gd = g1.as_graph_def()
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [], name="in")
        y2, = tf.import_graph_def(gd, input_map={"x:0": x}, return_elements=["y:0"])
        with tf.Session() as sess:
            assert sess.run(y2, {x: 3.0}) == 27.0


def test_errors():
    @function.Defun(tf.float32)
    def ReturnsNone(x):
        return x, None

    @function.Defun(tf.float32, tf.float32)
    def TwoArgs(x, y):
        return x + y

    with pytest.raises(ValueError, match="can not return None"):
        ReturnsNone(tf.constant(1.0))
    with pytest.raises(ValueError, match="Expected number of arguments: 2, received: 1"):
        TwoArgs(tf.constant(1.0))
    with pytest.raises(ValueError, match="defaults"):
        function.Defun(tf.float32)(lambda x=1.0: x)
    # A declaration and a definition that disagree; a declared function
    # never defined cannot run.
    with tf.Graph().as_default():
        declared = function.Declare("Declared", [("x", tf.float32)], [("y", tf.float32)])
        call = declared(tf.constant(1.0))

        @function.Defun(tf.float32, func_name="Declared", out_names=["other"])
        def Declared(x):
            return x

        with pytest.raises(ValueError, match="declared as 'y'"):
            Declared(tf.constant(1.0))
        with tf.Session() as sess:
            with pytest.raises(tf.errors.NotFoundError, match="Declared"):
                sess.run(call)
    # A failure inside the body names the function and its node.
    @function.Defun(tf.float32)
    def Pairs(x):
        return tf.reshape(x, [-1, 2])

    v = tf.Variable([1.0, 2.0, 3.0], validate_shape=False)
    y = Pairs(tf.identity(v))
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match="in function '%s'" % Pairs.name):
            sess.run(y)


def test_internal_import_path_under_the_runner():
    import subprocess
    import sys
    import textwrap
    import os
    script = textwrap.dedent("""
        import tensorflow as tf
        from tensorflow.python.framework import function

        @function.Defun(tf.float32)
        def Plus1(x):
            return x + 1.0

        with tf.Session() as sess:
            print(sess.run(Plus1(tf.constant(41.0))))
        """)
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-c", "import runpy, sys; sys.argv = ['-', '-c']; "
                        "from flowvm import tf1; tf1.install(); exec(sys.stdin.read())"],
                       input=script, capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "42.0"


def test_a_defun_on_a_three_task_cluster():
    from flowvm import _flowvm
    ports = [_flowvm.pick_unused_port() for _ in range(3)]
    spec = {"worker": ["127.0.0.1:%d" % p for p in ports]}
    servers = [tf.train.Server(spec, job_name="worker", task_index=i) for i in range(3)]
    try:
        @function.Defun(tf.float32)
        def Spread(x):
            with tf.device("/job:worker/task:2"):
                y = x * x
            return y + x

        with tf.device("/job:worker/task:1"):
            x = tf.placeholder(tf.float32, [3])
            z = Spread(x)
        with tf.Session(servers[0].target) as sess:
            np.testing.assert_allclose(sess.run(z, {x: [1.0, 2.0, 3.0]}), [2.0, 6.0, 12.0])
    finally:
        for s in servers:
            s.stop()
