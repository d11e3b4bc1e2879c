"""MetaGraphDef: tf.train.export_meta_graph / import_meta_graph, the .meta
file Saver.save writes, and the Saver and Variables rebuilt from it."""
import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import flowvm.compat.v1 as tf
from flowvm.tf.ops import gen_ops

X = [[1.0, 1.0], [2.0, -1.0]]


def _model(optimizer=None):
    """y = x w + b, a squared loss against 3, a train op (minimize lists it
    in the "train_op" collection); "pred" as TF 1.x tutorials add it."""
    x = gen_ops.placeholder(tf.float32, shape=[None, 2], name="x")
    w = tf.Variable([[1.0], [2.0]], name="w")
    b = tf.Variable(0.5, name="b")
    y = gen_ops.add(gen_ops.mat_mul(x, w), b, name="y")
    loss = gen_ops.mean(gen_ops.square(gen_ops.sub(y, 3.0)), [0, 1], name="loss")
    step = tf.train.get_or_create_global_step()
    train = (optimizer or tf.train.GradientDescentOptimizer(0.05)).minimize(loss, global_step=step)
    tf.add_to_collection("pred", y)
    tf.add_to_collection(tf.GraphKeys.LOSSES, loss)
    return x, y, loss, train, step


def _train_and_save(prefix, steps=3, optimizer=None):
    """Trains a fresh _model in a new graph, saves it; returns (checkpoint path, y at X, loss at X)."""
    with tf.Graph().as_default():
        x, y, loss, train, step = _model(optimizer)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(train, {x: X})
            path = saver.save(sess, prefix, global_step=step)
            y_val, loss_val = sess.run([y, loss], {x: X})
    return path, y_val, loss_val


# ---- the messages ---------------------------------------------------------------------
# TensorFlow's field numbers (tensorflow/core/protobuf/meta_graph.proto,
# saver.proto, framework/variable.proto): files either side writes parse on the other.
_TF_FIELDS = {
    "MetaGraphDef": {"meta_info_def": 1, "graph_def": 2, "saver_def": 3, "collection_def": 4, "signature_def": 5,
                     "asset_file_def": 6},
    "MetaGraphDef.MetaInfoDef": {"meta_graph_version": 1, "stripped_op_list": 2, "any_info": 3, "tags": 4,
                                 "tensorflow_version": 5, "tensorflow_git_version": 6,
                                 "stripped_default_attrs": 7, "function_aliases": 8},
    "CollectionDef": {"node_list": 1, "bytes_list": 2, "int64_list": 3, "float_list": 4, "any_list": 5},
    "TensorInfo": {"name": 1, "dtype": 2, "tensor_shape": 3, "coo_sparse": 4},
    "SignatureDef": {"inputs": 1, "outputs": 2, "method_name": 3},
    "AssetFileDef": {"tensor_info": 1, "filename": 2},
    "SaverDef": {"filename_tensor_name": 1, "save_tensor_name": 2, "restore_op_name": 3, "max_to_keep": 4,
                 "sharded": 5, "keep_checkpoint_every_n_hours": 6, "version": 7},
    "VariableDef": {"variable_name": 1, "initializer_name": 2, "snapshot_name": 3, "save_slice_info_def": 4,
                    "is_resource": 5, "initial_value_name": 6, "trainable": 7, "synchronization": 8,
                    "aggregation": 9},
}


def test_messages_use_tensorflows_field_numbers():
    from flowvm import meta_graph_pb2, saver_pb2, variable_pb2
    classes = {"MetaGraphDef": meta_graph_pb2.MetaGraphDef,
               "MetaGraphDef.MetaInfoDef": meta_graph_pb2.MetaGraphDef.MetaInfoDef,
               "CollectionDef": meta_graph_pb2.CollectionDef, "TensorInfo": meta_graph_pb2.TensorInfo,
               "SignatureDef": meta_graph_pb2.SignatureDef, "AssetFileDef": meta_graph_pb2.AssetFileDef,
               "SaverDef": saver_pb2.SaverDef, "VariableDef": variable_pb2.VariableDef}
    for name, fields in _TF_FIELDS.items():
        desc = classes[name].DESCRIPTOR
        assert {f.name: f.number for f in desc.fields} == fields, name
    assert saver_pb2.SaverDef.V2 == 2 and saver_pb2.SaverDef.V1 == 1 and saver_pb2.SaverDef.LEGACY == 0
    assert tf.train.SaverDef is saver_pb2.SaverDef and tf.MetaGraphDef is meta_graph_pb2.MetaGraphDef
    # A VariableDef as TensorFlow serializes one into a bytes_list (its documented example).
    d = variable_pb2.VariableDef()
    d.ParseFromString(b"\n\x0fconv1/weights:0\x12\x14conv1/weights/Assign\x1a\x14conv1/weights/read:0")
    assert (d.variable_name, d.initializer_name, d.snapshot_name) == \
        ("conv1/weights:0", "conv1/weights/Assign", "conv1/weights/read:0")


# ---- round trips -------------------------------------------------------------------------
def test_saver_writes_meta_and_a_fresh_graph_continues_training(tmp_path):
    path, y_saved, loss_saved = _train_and_save(str(tmp_path / "model.ckpt"))
    assert os.path.exists(path + ".meta")
    with tf.Graph().as_default() as g:
        saver = tf.train.import_meta_graph(path + ".meta")
        assert saver.saver_def.restore_op_name == "save/restore_all"
        y = tf.get_collection("pred")[0]
        assert y is g.get_tensor_by_name("y:0")
        train = tf.get_collection("train_op")[0]
        assert isinstance(train, tf.Operation)
        loss = tf.get_collection(tf.GraphKeys.LOSSES)[0]
        assert [v.op.name for v in tf.trainable_variables()] == ["w", "b"]
        assert [v.op.name for v in tf.global_variables()] == ["w", "b", "global_step"]
        # One Variable object per variable, whichever collection lists it.
        assert tf.trainable_variables()[0] is tf.global_variables()[0]
        assert tf.train.get_global_step() is tf.global_variables()[2]
        w = tf.trainable_variables()[0]
        assert isinstance(w, tf.Variable) and w.initializer.name == "w/Assign" and w.value().name == "w/read:0"
        with tf.Session() as sess:
            saver.restore(sess, path)
            np.testing.assert_allclose(sess.run(y, {"x:0": X}), y_saved, rtol=1e-6)
            assert sess.run(tf.train.get_global_step()) == 3
            for _ in range(20):
                sess.run(train, {"x:0": X})
            assert sess.run(tf.train.get_global_step()) == 23
            assert sess.run(loss, {"x:0": X}) < loss_saved
            # The imported Variables behave as built ones do.
            sess.run(w.assign([[0.0], [0.0]]))
            np.testing.assert_allclose(sess.run(w), [[0.0], [0.0]])
            sess.run(tf.variables_initializer([w]))
            np.testing.assert_allclose(sess.run(w), [[1.0], [2.0]])


def test_import_into_a_graph_of_another_process(tmp_path):
    """A .meta written by a child interpreter imports here: nothing but the file crosses."""
    import flowvm
    root = os.path.dirname(os.path.dirname(os.path.abspath(flowvm.__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    script = tmp_path / "save.py"
    script.write_text(textwrap.dedent("""
        import sys
        import flowvm.compat.v1 as tf
        from flowvm.tf.ops import gen_ops
        x = gen_ops.placeholder(tf.float32, shape=[None], name="x")
        v = tf.Variable([10.0, 20.0], name="v")
        y = gen_ops.mul(x, v, name="y")
        tf.add_to_collection("pred", y)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(v.assign([3.0, 4.0]))
            print(saver.save(sess, sys.argv[1]))
    """))
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / "child")], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=120, env=env, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr.decode()
    path = proc.stdout.decode().strip().splitlines()[-1]
    saver = tf.train.import_meta_graph(path + ".meta")
    with tf.Session() as sess:
        saver.restore(sess, path)
        np.testing.assert_allclose(sess.run(tf.get_collection("pred")[0], {"x:0": [1.0, 2.0]}), [3.0, 8.0])


def test_text_and_binary_files(tmp_path):
    _model()
    tf.train.Saver()
    text = str(tmp_path / "g.meta.txt")
    binary = str(tmp_path / "sub" / "g.meta")  # the directory is created
    m = tf.train.export_meta_graph(text, as_text=True)
    tf.train.export_meta_graph(binary)
    assert isinstance(m, tf.MetaGraphDef)
    with open(text) as f:
        assert f.read().startswith("meta_info_def {")
    with open(binary, "rb") as f:
        assert tf.MetaGraphDef.FromString(f.read()) == m
    for path in (text, binary):
        with tf.Graph().as_default() as g:
            # No saver_def: export_meta_graph was given none, so a new Saver
            # over the imported variables comes back.
            saver = tf.train.import_meta_graph(path)
            assert isinstance(saver, tf.train.Saver)
            assert saver.saver_def.restore_op_name == "save_1/restore_all"
            assert g.get_operation_by_name("save/SaveV2").type == "SaveV2"
            assert sorted(n.name for n in g.as_graph_def().node) != []
            assert [v.op.name for v in tf.global_variables()] == ["w", "b", "global_step"]


def test_export_contents(tmp_path):
    _model()
    saver = tf.train.Saver(max_to_keep=3)
    tf.add_to_collection("ints", 7)
    tf.add_to_collection("floats", 0.25)
    tf.add_to_collection("strings", "hello")
    tf.add_to_collection("strings", b"bytes")
    info = tf.MetaGraphDef.MetaInfoDef(meta_graph_version="v7", tags=["train"])
    m = saver.export_meta_graph(collection_list=None)
    assert m.saver_def.max_to_keep == 3 and m.saver_def.version == tf.train.SaverDef.V2
    assert m.meta_info_def.tensorflow_version == tf.__version__
    ops_used = {op.name for op in m.meta_info_def.stripped_op_list.op}
    assert {"VariableV2", "Assign", "MatMul", "SaveV2", "RestoreV2"} <= ops_used
    assert all(not op.description and not op.summary for op in m.meta_info_def.stripped_op_list.op)
    cd = m.collection_def
    assert list(cd["ints"].int64_list.value) == [7]
    assert list(cd["floats"].float_list.value) == [0.25]
    assert list(cd["strings"].bytes_list.value) == [b"hello", b"bytes"]
    assert list(cd["pred"].node_list.value) == ["y:0"]
    assert list(cd["train_op"].node_list.value) == ["GradientDescent"]
    assert len(cd["variables"].bytes_list.value) == 3 and len(cd["trainable_variables"].bytes_list.value) == 2
    from flowvm import variable_pb2
    d = variable_pb2.VariableDef.FromString(cd["trainable_variables"].bytes_list.value[0])
    assert (d.variable_name, d.initializer_name, d.snapshot_name, d.initial_value_name, d.trainable) == \
        ("w:0", "w/Assign", "w/read:0", "w/initial_value:0", True)
    # The shapes ride along on each node, as TensorFlow's add_shapes writes them.
    y_node = [n for n in m.graph_def.node if n.name == "y"][0]
    assert "_output_shapes" in y_node.attr
    # meta_info_def, collection_list, strip_default_attrs
    m2 = tf.train.export_meta_graph(meta_info_def=info, collection_list=["ints", "pred"], strip_default_attrs=True)
    assert m2.meta_info_def.meta_graph_version == "v7" and list(m2.meta_info_def.tags) == ["train"]
    assert sorted(m2.collection_def) == ["ints", "pred"] and not m2.HasField("saver_def")
    assert m2.meta_info_def.stripped_default_attrs
    mm = [n for n in m2.graph_def.node if n.name == "MatMul"][0]
    assert "transpose_a" not in mm.attr and "T" in mm.attr
    # The stripped graph imports and runs (the defaults come back from the OpDefs).
    with tf.Graph().as_default():
        tf.train.import_meta_graph(m2)
        y = tf.get_collection("pred")[0]
        assert tf.global_variables() == []  # their collections were not exported
        with tf.Session() as sess:
            sess.run(["w/Assign", "b/Assign"])
            np.testing.assert_allclose(sess.run(y, {"x:0": [[1.0, 1.0]]}), [[3.5]])


def test_collections_and_summaries_after_import(tmp_path, caplog):
    _, _, loss, _, _ = _model()
    tf.summary.scalar("cost", loss)
    tf.add_to_collection("odd", object())  # no way to write it: left out with a warning
    tf.add_to_collection("ints", 1)
    tf.add_to_collection("ints", 2)
    with caplog.at_level(logging.WARNING):
        m = tf.train.export_meta_graph()
    assert "odd" not in m.collection_def
    assert any("odd" in r.getMessage() for r in caplog.records)
    with tf.Graph().as_default():
        tf.train.import_meta_graph(m)
        assert tf.get_collection("ints") == [1, 2]
        assert [t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)] == ["cost:0"]
        merged = tf.summary.merge_all()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            summary = tf.Summary.FromString(sess.run(merged, {"x:0": X}))
            assert summary.value[0].tag == "cost"
        # restore_collections_predicate keeps collections out.
    with tf.Graph().as_default():
        tf.train.import_meta_graph(m, restore_collections_predicate=lambda key: key != "ints")
        assert tf.get_collection("ints") == [] and len(tf.get_collection("pred")) == 1


def test_input_map_graph_argument_and_plain_variable_collections():
    _model()
    w = tf.global_variables()[0]
    tf.add_to_collection("my_vars", w)  # no proto function: stored by name
    m = tf.train.export_meta_graph()
    assert list(m.collection_def["my_vars"].node_list.value) == ["w:0"]
    target = tf.Graph()
    with tf.Graph().as_default() as other:
        feed = tf.constant([[1.0, 1.0]], name="feed")
        with target.as_default():
            fixed = tf.constant([[2.0, 0.0]], name="fixed")
        # graph= imports into `target` although `other` is the default.
        saver = tf.train.import_meta_graph(m, graph=target, input_map={"x:0": fixed})
        assert other.get_operations() == [feed.op]
    with target.as_default():
        assert saver.saver_def.restore_op_name == "save/restore_all"
        (ref,) = tf.get_collection("my_vars")
        assert isinstance(ref, tf.Tensor) and ref.name == "w:0"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(tf.get_collection("pred")[0]), [[2.5]])


def test_clear_devices(tmp_path):
    with tf.device("/job:nowhere/task:3/device:CPU:0"):
        _model()
    saver = tf.train.Saver()
    path = str(tmp_path / "placed.meta")
    m = saver.export_meta_graph(path)
    assert any(n.device for n in m.graph_def.node)
    cleared = saver.export_meta_graph(clear_devices=True)
    assert all(not n.device for n in cleared.graph_def.node)
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(path)
        assert g.get_operation_by_name("w").device
    with tf.Graph().as_default() as g:
        saver = tf.train.import_meta_graph(path, clear_devices=True)
        assert all(not op.device for op in g.get_operations())
        # Placed on a job that does not exist it could not run; cleared, it does.
        y = tf.get_collection("pred")[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(y, {"x:0": [[1.0, 1.0]]}), [[3.5]])


def test_import_scope_prefixes_names_collections_and_the_saver(tmp_path):
    path, y_saved, _ = _train_and_save(str(tmp_path / "model.ckpt"))
    with tf.Graph().as_default() as g:
        a = tf.train.import_meta_graph(path + ".meta", import_scope="a")
        b = tf.train.import_meta_graph(path + ".meta", import_scope="b")
        again = tf.train.import_meta_graph(path + ".meta", import_scope="a")  # made unique: a_1
        assert a.saver_def.filename_tensor_name == "a/save/Const:0"
        assert b.saver_def.restore_op_name == "b/save/restore_all"
        assert again.saver_def.restore_op_name == "a_1/save/restore_all"
        assert [t.name for t in tf.get_collection("pred")] == ["a/y:0", "b/y:0", "a_1/y:0"]
        assert [v.op.name for v in tf.trainable_variables("b")] == ["b/w", "b/b"]
        assert g.get_operation_by_name("a/w/Assign").type == "Assign"
        with tf.Session() as sess:
            # The checkpoint's keys are the unscoped names: every copy restores from it.
            for saver in (a, b, again):
                saver.restore(sess, path)
            for scope in ("a", "b", "a_1"):
                np.testing.assert_allclose(sess.run(scope + "/y:0", {scope + "/x:0": X}), y_saved, rtol=1e-6)
            # Training one copy leaves the others alone.
            sess.run(tf.get_collection("train_op")[1], {"b/x:0": X})
            assert sess.run("b/global_step:0") == 4 and sess.run("a/global_step:0") == 3


def test_export_scope(tmp_path):
    with tf.name_scope("tower"):
        x = gen_ops.placeholder(tf.float32, shape=[None, 2], name="x")
        w = tf.Variable([[1.0], [2.0]], name="w")
        b = tf.Variable(0.5, name="b")
        tf.add_to_collection("pred", gen_ops.add(gen_ops.mat_mul(x, w), b, name="y"))
    tf.Variable(1.0, name="outside")
    m = tf.train.export_meta_graph(export_scope="tower")
    names = {n.name for n in m.graph_def.node}
    assert "y" in names and "w" in names and "outside" not in names
    assert list(m.collection_def["pred"].node_list.value) == ["y:0"]
    with tf.Graph().as_default() as g:
        tf.train.import_meta_graph(m, import_scope="copy")
        assert g.get_tensor_by_name("copy/y:0") is tf.get_collection("pred")[0]
        assert [v.op.name for v in tf.global_variables()] == ["copy/w", "copy/b"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run("copy/y:0", {"copy/x:0": [[1.0, 1.0]]}), [[3.5]])
    # A node reading from outside the scope cannot be exported without it.
    with tf.Graph().as_default():
        c = tf.constant(1.0, name="c")
        with tf.name_scope("inner"):
            gen_ops.neg(c, name="n")
        with pytest.raises(ValueError, match="outside export_scope"):
            tf.train.export_meta_graph(export_scope="inner")


def test_continue_training_with_adam_and_save_again(tmp_path):
    path, _, loss_saved = _train_and_save(str(tmp_path / "adam"), optimizer=tf.train.AdamOptimizer(0.05))
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(path + ".meta")
        names = [v.op.name for v in tf.global_variables()]
        assert "w/Adam" in names and "w/Adam_1" in names and "beta1_power" in names
        train = tf.get_collection("train_op")[0]
        loss = tf.get_collection(tf.GraphKeys.LOSSES)[0]
        with tf.Session() as sess:
            saver.restore(sess, path)
            for _ in range(10):
                sess.run(train, {"x:0": X})
            trained = sess.run(loss, {"x:0": X})
            assert trained < loss_saved
            again = saver.save(sess, str(tmp_path / "adam"), global_step=tf.train.get_global_step())
        assert again.endswith("adam-13") and os.path.exists(again + ".meta")
        assert tf.train.latest_checkpoint(str(tmp_path)) == again
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(again + ".meta")
        with tf.Session() as sess:
            saver.restore(sess, again)
            assert abs(sess.run(tf.get_collection(tf.GraphKeys.LOSSES)[0], {"x:0": X}) - trained) < 1e-6


def test_save_options_for_the_meta_file(tmp_path):
    _, _, _, _, step = _model()
    saver = tf.train.Saver(max_to_keep=1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = saver.save(sess, str(tmp_path / "m"), global_step=1)
        assert os.path.exists(first + ".meta")
        second = saver.save(sess, str(tmp_path / "m"), global_step=2, write_meta_graph=False)
        assert not os.path.exists(second + ".meta")
        assert not os.path.exists(first + ".meta")  # deleted with its checkpoint (max_to_keep=1)
        third = saver.save(sess, str(tmp_path / "m"), global_step=3, meta_graph_suffix="mg")
        assert os.path.exists(third + ".mg")
    # A graph finalized (as MonitoredSession leaves it) still exports.
    init = tf.global_variables_initializer()
    tf.get_default_graph().finalize()
    with tf.Session() as sess:
        sess.run(init)
        assert os.path.exists(saver.save(sess, str(tmp_path / "f")) + ".meta")


def test_saver_from_saver_def_and_proto_functions(tmp_path):
    _model()
    built = tf.train.Saver()
    proto = built.as_saver_def()
    assert built.to_proto() == proto and built.to_proto() is not proto
    rebuilt = tf.train.Saver(saver_def=proto)
    assert rebuilt.saver_def == proto
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = rebuilt.save(sess, str(tmp_path / "r"))
        built.restore(sess, path)
    assert tf.train.Saver.from_proto(proto).saver_def == proto
    w = tf.global_variables()[0]
    same = tf.Variable.from_proto(w.to_proto())
    assert same.op is w.op and same.initializer is w.initializer and same.value() is w.value()
    assert w.to_proto(export_scope="elsewhere") is None
    # The SAVERS collection round-trips through its SaverDef.
    tf.add_to_collection(tf.GraphKeys.SAVERS, built)
    m = tf.train.export_meta_graph()
    assert len(m.collection_def["savers"].bytes_list.value) == 1
    with tf.Graph().as_default():
        tf.train.import_meta_graph(m, import_scope="s")
        (saver,) = tf.get_collection(tf.GraphKeys.SAVERS)
        assert saver.saver_def.restore_op_name == "s/save/restore_all"


def test_add_meta_graph_writes_an_event(tmp_path):
    _model()
    m = tf.train.export_meta_graph()
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_meta_graph(m, global_step=5)
    with pytest.raises(TypeError):
        writer.add_meta_graph(m.graph_def)
    writer.close()
    from test_summary import read_events
    events = [e for e in read_events(tmp_path) if e.HasField("meta_graph_def")]
    assert len(events) == 1 and events[0].step == 5
    assert tf.MetaGraphDef.FromString(events[0].meta_graph_def) == m


# ---- errors ----------------------------------------------------------------------------------
def test_missing_and_corrupt_files(tmp_path):
    missing = str(tmp_path / "nope.meta")
    with pytest.raises(IOError, match="does not exist"):
        tf.train.import_meta_graph(missing)
    corrupt = tmp_path / "bad.meta"
    corrupt.write_bytes(b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01garbage")
    with pytest.raises(IOError, match="Cannot parse file"):
        tf.train.import_meta_graph(str(corrupt))
    text = tmp_path / "bad.txt"
    text.write_text("meta_info_def { no_such_field: 1 }\n")
    with pytest.raises(IOError, match="Cannot parse file"):
        tf.train.import_meta_graph(str(text))
    empty = tmp_path / "empty.meta"
    empty.write_bytes(b"")
    # Nothing to import: no graph, no saver, no variables.
    assert tf.train.import_meta_graph(str(empty)) is None
    assert tf.get_default_graph().get_operations() == []


def test_argument_errors(tmp_path):
    _model()
    with pytest.raises(TypeError):
        tf.train.import_meta_graph(42)
    with pytest.raises(TypeError, match="unexpected keyword"):
        tf.train.import_meta_graph(tf.train.export_meta_graph(), no_such_arg=1)
    with pytest.raises(TypeError, match="GraphDef"):
        tf.train.export_meta_graph(graph_def="not a graph")
    with pytest.raises(TypeError, match="SaverDef"):
        tf.train.export_meta_graph(saver_def="not a saver")
    with pytest.raises(NotImplementedError):
        tf.train.export_meta_graph(clear_extraneous_savers=True)
    with pytest.raises(NotImplementedError):
        tf.train.export_meta_graph(save_debug_info=True)
    with pytest.raises(ValueError, match="saver_def"):
        tf.train.Saver(saver_def=tf.train.SaverDef(filename_tensor_name="save/Const:0"))
    with pytest.raises(NotImplementedError, match="V2"):
        tf.train.Saver(saver_def=tf.train.SaverDef(filename_tensor_name="a:0", save_tensor_name="b:0",
                                                   restore_op_name="c", version=tf.train.SaverDef.V1))
    from flowvm import variable_pb2
    with pytest.raises(NotImplementedError, match="resource"):
        tf.Variable(variable_def=variable_pb2.VariableDef(variable_name="w:0", is_resource=True))
    with pytest.raises(ValueError, match="not in the graph"):
        tf.Variable(variable_def=variable_pb2.VariableDef(variable_name="nope:0", initializer_name="nope/Assign",
                                                          snapshot_name="nope/read:0"))
    # The same names imported twice without a scope collide: the import fails and says which.
    m = tf.train.export_meta_graph()
    with pytest.raises(tf.errors.InvalidArgumentError, match="already in the graph"):
        tf.train.import_meta_graph(m)
