"""The layout of flowvm.tf, TensorFlow's tensorflow/python module for module:
the internal import paths real TF 1.x code uses (tensorflow.python.X) are the
implementation modules flowvm.tf.X, under flowvm.compat.v1.python.X and under
the runner, and the package imports without import cycles."""
import ast
import importlib
import os
import subprocess
import sys
import textwrap

import pytest

import flowvm.compat.v1 as tf
import flowvm.tf

# tensorflow.python.<path>: paths TF 1.x programs and libraries import.
PATHS = [
    "framework.ops", "framework.dtypes", "framework.tensor_shape", "framework.constant_op",
    "framework.tensor_util", "framework.importer", "framework.errors", "framework.errors_impl",
    "framework.device", "framework.device_spec", "framework.meta_graph", "framework.graph_io",
    "framework.random_seed", "framework.op_def_library", "framework.smart_cond",
    "ops.array_ops", "ops.math_ops", "ops.nn_ops", "ops.nn", "ops.random_ops", "ops.control_flow_ops",
    "ops.control_flow_util", "ops.data_flow_ops", "ops.state_ops", "ops.variables", "ops.variable_scope",
    "ops.init_ops", "ops.image_ops", "ops.metrics", "ops.gradients_impl", "ops.gen_ops", "ops.losses.losses",
    "ops.tensor_array_ops", "ops.tensor_array_grad", "ops.functional_ops", "ops.rnn", "ops.rnn_cell",
    "ops.rnn_cell_impl",
    "training.optimizer", "training.gradient_descent", "training.adam", "training.adagrad", "training.momentum",
    "training.rmsprop", "training.saver", "training.monitored_session", "training.basic_session_run_hooks",
    "training.session_run_hook", "training.queue_runner", "training.coordinator", "training.input",
    "training.server_lib", "training.device_setter", "training.checkpoint_management",
    "training.learning_rate_decay", "training.training_util",
    "layers.base", "layers.core", "layers.convolutional", "layers.pooling", "layers.normalization",
    "layers.layers", "layers.utils",
    "summary.summary", "summary.writer.writer", "summary.writer.writer_cache",
    "client.session",
    "platform.app", "platform.flags", "platform.gfile", "platform.tf_logging",
    "util.nest",
    "ops.parsing_ops", "ops.script_ops",
    "data", "data.ops.dataset_ops", "data.ops.iterator_ops", "data.ops.readers", "data.util.nest",
    "data.experimental.ops.batching", "data.experimental.ops.shuffle_ops", "data.experimental.ops.interleave_ops",
    "framework.function",
]


@pytest.mark.parametrize("path", PATHS)
def test_internal_path_is_the_implementation_module(path):
    impl = importlib.import_module("flowvm.tf." + path)
    alias = importlib.import_module("flowvm.compat.v1.python." + path)
    assert alias is impl
    assert sys.modules["flowvm.compat.v1.python." + path] is impl
    # The module keeps its own name and spec whichever name imported it.
    assert impl.__name__ == "flowvm.tf." + path
    assert impl.__spec__.name == "flowvm.tf." + path


def test_from_import_through_the_alias():
    from flowvm.compat.v1.python.framework import ops
    from flowvm.compat.v1.python.ops import array_ops
    from flowvm.compat.v1.python.util import nest
    from flowvm.tf.framework import ops as ops_impl
    from flowvm.tf.ops import array_ops as array_ops_impl
    from flowvm.tf.util import nest as nest_impl
    assert ops is ops_impl and array_ops is array_ops_impl and nest is nest_impl
    assert importlib.import_module("flowvm.compat.v1.python") is flowvm.tf
    # The objects the public namespace offers are the implementation's.
    assert tf.Tensor is ops.Tensor and tf.Graph is ops.Graph


def test_unknown_internal_path_is_a_plain_module_not_found_error():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("flowvm.compat.v1.python.framework.no_such_module")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("flowvm.compat.v1.python.no_such_package.x")


@pytest.mark.parametrize("old", ["flowvm.tf.array_ops", "flowvm.tf.session", "flowvm.tf.nest", "flowvm.tf.layers.dense",
                                 "flowvm.tf.input_producer", "flowvm.tf.summary_writer", "flowvm.tf.gen_ops"])
def test_the_flat_modules_are_gone(old):
    # Only the folders by concept remain (and the build tree's copy has no
    # stale module left at an old path).
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)


def _env():
    import flowvm
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(flowvm.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def test_tensorflow_python_paths_under_the_runner(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent("""
        import importlib
        import sys
        import tensorflow as tf
        from tensorflow.python.framework import ops
        from tensorflow.python.ops import array_ops
        from tensorflow.python.platform import tf_logging
        from tensorflow.python.util import nest
        from tensorflow.python.training import training_util
        import tensorflow.python.framework.dtypes as dtypes
        import flowvm.tf.framework.ops
        assert ops is flowvm.tf.framework.ops
        assert ops.Tensor is tf.Tensor and dtypes.float32 is tf.float32
        assert array_ops.zeros is not None and tf_logging.info is tf.logging.info
        assert nest.flatten([1, [2, 3]]) == [1, 2, 3]
        assert training_util.get_or_create_global_step is tf.train.get_or_create_global_step
        paths = sys.argv[1].split(",")
        for p in paths:
            m = importlib.import_module("tensorflow.python." + p)
            assert m is importlib.import_module("flowvm.tf." + p), p
            assert sys.modules["tensorflow.python." + p] is m, p
            assert m.__name__ == "flowvm.tf." + p, (p, m.__name__)
        # A graph built through the internal paths runs.
        x = array_ops.placeholder(dtypes.float32, [2])
        with tf.Session() as sess:
            print("sum", sess.run(tf.reduce_sum(x * 2.0), {x: [1.0, 2.0]}))
    """))
    proc = subprocess.run([sys.executable, "-m", "flowvm.tf1", str(script), ",".join(PATHS)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, cwd=str(tmp_path),
                          env=_env())
    assert proc.returncode == 0, proc.stderr.decode()
    assert "sum 6.0" in proc.stdout.decode()


# ---- the import graph ----------------------------------------------------------
def _modules(root):
    """flowvm.tf's modules under `root` (its folder): name -> path."""
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(d, f), os.path.dirname(root))[:-3].replace(os.sep, ".")
                name = "flowvm." + (rel[:-len(".__init__")] if rel.endswith(".__init__") else rel)
                out[name] = os.path.join(d, f)
    return out


def _imports(path, name, modules):
    """The flowvm.tf modules `path` imports, at its top level or inside
    functions (a lazy import is an edge too: it closes a cycle the same way)."""
    is_pkg = path.endswith("__init__.py")
    found = set()
    for node in ast.walk(ast.parse(open(path).read(), path)):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")
                parts = parts if is_pkg else parts[:-1]
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            targets = [base + "." + a.name if base + "." + a.name in modules else base for a in node.names]
        else:
            continue
        found.update(t for t in targets if t in modules and t != name)
    return found


def _cycle(graph):
    """One import cycle of `graph` as a list of names, or None."""
    state = {}
    stack = []

    def visit(v):
        state[v] = "open"
        stack.append(v)
        for w in sorted(graph[v]):
            if state.get(w) == "open":
                return stack[stack.index(w):] + [w]
            if w not in state:
                c = visit(w)
                if c:
                    return c
        stack.pop()
        state[v] = "done"
        return None

    for v in sorted(graph):
        if v not in state:
            c = visit(v)
            if c:
                return c
    return None


def test_no_import_cycle_among_flowvm_tf_modules():
    root = os.path.dirname(os.path.abspath(flowvm.tf.__file__))
    modules = _modules(root)
    assert "flowvm.tf.framework.ops" in modules and "flowvm.tf.ops.gen_ops" in modules
    graph = {m: _imports(p, m, modules) for m, p in modules.items()}
    assert _cycle(graph) is None, "import cycle: " + " -> ".join(_cycle(graph))
    # framework/ops.py, which everything builds on, imports nothing above
    # framework/ but control_flow_util (which imports nothing of flowvm.tf).
    assert graph["flowvm.tf.framework.ops"] <= {
        "flowvm.tf.framework.device", "flowvm.tf.framework.device_spec", "flowvm.tf.framework.dtypes",
        "flowvm.tf.framework.errors", "flowvm.tf.framework.tensor_shape", "flowvm.tf.ops.control_flow_util"}
    assert graph["flowvm.tf.ops.control_flow_util"] == set()


def test_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_importing_compat_v1_loads_each_module_once_in_dependency_order():
    # In a fresh interpreter: every flowvm.tf module finishes loading after
    # the flowvm.tf modules it imports (no module is used half-initialized),
    # and none is loaded twice under two names.
    probe = textwrap.dedent("""
        import importlib._bootstrap as bootstrap
        finished = []
        real_load = bootstrap._load_unlocked

        def load(spec):
            module = real_load(spec)
            if spec.name.startswith("flowvm.tf"):
                finished.append(spec.name)
            return module
        bootstrap._load_unlocked = load
        import flowvm.compat.v1
        print("\\n".join(finished))
    """)
    proc = subprocess.run([sys.executable, "-c", probe], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=120, env=_env())
    assert proc.returncode == 0, proc.stderr.decode()
    order = [line for line in proc.stdout.decode().split("\n") if line]
    assert len(order) == len(set(order)), "a module was loaded twice: %s" % order
    assert "flowvm.tf.framework.ops" in order and "flowvm.tf.layers.layers" in order
    root = os.path.dirname(os.path.abspath(flowvm.tf.__file__))
    modules = _modules(root)
    position = {m: i for i, m in enumerate(order)}
    for m in order:
        if m not in modules:
            continue
        for dep in _imports(modules[m], m, modules):
            if dep in position:
                assert position[dep] < position[m], "%s finished loading before %s, which it imports" % (m, dep)
