"""tf.train.Saver: checkpoints in flowvm's format, the state file, and errors."""
import os
import subprocess

import numpy as np
import pytest

import flowvm.compat.v1 as tf


def _model():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    b = tf.Variable([0.5], name="b")
    step = tf.train.get_or_create_global_step()
    return w, b, step


def test_graph_part_has_tensorflows_names():
    _model()
    saver = tf.train.Saver()
    d = saver.saver_def
    assert d.filename_tensor_name == "save/Const:0"
    assert d.save_tensor_name == "save/control_dependency:0"
    assert d.restore_op_name == "save/restore_all"
    g = tf.get_default_graph()
    assert g.get_operation_by_name("save/SaveV2").type == "SaveV2"
    assert g.get_operation_by_name("save/RestoreV2").type == "RestoreV2"
    assert g.get_operation_by_name("save/Assign_2").type == "Assign"
    second = tf.train.Saver(name="other")
    assert second.saver_def.restore_op_name == "other/restore_all"


def test_save_and_restore_into_a_fresh_session(tmp_path):
    w, b, step = _model()
    saver = tf.train.Saver()
    prefix = str(tmp_path / "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([tf.assign(w, [[5.0, 6.0], [7.0, 8.0]]), tf.assign(step, 42)])
        path = saver.save(sess, prefix, global_step=step)
    assert path == prefix + "-42"
    assert os.path.exists(path + ".index") and os.path.exists(path + ".data-00000-of-00001")
    assert not os.path.exists(path + ".meta")  # no MetaGraphDef in flowvm
    with tf.Session() as sess:
        saver.restore(sess, path)
        np.testing.assert_allclose(sess.run(w), [[5.0, 6.0], [7.0, 8.0]])
        assert sess.run(step) == 42 and sess.run(b) == 0.5
    # A new graph with the same variable names restores too.
    with tf.Graph().as_default():
        w2 = tf.Variable(tf.zeros_initializer()([2, 2]), name="w")
        only = tf.train.Saver([w2])
        with tf.Session() as sess:
            only.restore(sess, path)
            np.testing.assert_allclose(sess.run(w2), [[5.0, 6.0], [7.0, 8.0]])


def test_var_list_as_dict_renames(tmp_path):
    w, b, _ = _model()
    saver = tf.train.Saver({"weights": w})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "renamed"))
    with tf.Graph().as_default():
        v = tf.Variable([[0.0, 0.0], [0.0, 0.0]], name="anything")
        saver = tf.train.Saver({"weights": v})
        with tf.Session() as sess:
            saver.restore(sess, path)
            np.testing.assert_allclose(sess.run(v), [[1.0, 2.0], [3.0, 4.0]])
        missing = tf.train.Saver({"nope": v})
        with tf.Session() as sess:
            with pytest.raises(tf.errors.NotFoundError):
                missing.restore(sess, path)


def test_max_to_keep_latest_checkpoint_and_state_file(tmp_path):
    _, _, step = _model()
    saver = tf.train.Saver(max_to_keep=2)
    d = str(tmp_path)
    assert tf.train.latest_checkpoint(d) is None and tf.train.get_checkpoint_state(d) is None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for s in range(4):
            saver.save(sess, os.path.join(d, "model.ckpt"), global_step=s)
    files = sorted(os.listdir(d))
    assert files == ["checkpoint", "model.ckpt-2.data-00000-of-00001", "model.ckpt-2.index",
                     "model.ckpt-3.data-00000-of-00001", "model.ckpt-3.index"]
    assert saver.last_checkpoints == [os.path.join(d, "model.ckpt-2"), os.path.join(d, "model.ckpt-3")]
    with open(os.path.join(d, "checkpoint")) as f:
        assert f.read() == ('model_checkpoint_path: "model.ckpt-3"\n'
                            'all_model_checkpoint_paths: "model.ckpt-2"\n'
                            'all_model_checkpoint_paths: "model.ckpt-3"\n')
    assert tf.train.latest_checkpoint(d) == os.path.join(d, "model.ckpt-3")
    state = tf.train.get_checkpoint_state(d)
    assert state.all_model_checkpoint_paths == [os.path.join(d, "model.ckpt-2"), os.path.join(d, "model.ckpt-3")]
    assert tf.train.checkpoint_exists(os.path.join(d, "model.ckpt-2"))
    assert not tf.train.checkpoint_exists(os.path.join(d, "model.ckpt-1"))
    # A listed checkpoint whose files are gone is not the latest.
    os.remove(os.path.join(d, "model.ckpt-3.index"))
    assert tf.train.latest_checkpoint(d) is None


def test_max_to_keep_none_keeps_all(tmp_path):
    _model()
    saver = tf.train.Saver(max_to_keep=None)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for s in range(3):
            saver.save(sess, str(tmp_path / "m"), global_step=s)
    assert len([f for f in os.listdir(tmp_path) if f.endswith(".index")]) == 3


def test_missing_checkpoint_raises_not_found_naming_the_path(tmp_path):
    _model()
    saver = tf.train.Saver()
    missing = str(tmp_path / "nothing-here")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.NotFoundError) as e:
            saver.restore(sess, missing)
        assert missing in str(e.value)
        with pytest.raises(ValueError):  # TF 1.15 raises ValueError here; the error is both
            saver.restore(sess, missing)
        with pytest.raises(ValueError):
            saver.restore(sess, None)


def test_corrupt_checkpoint_raises_data_loss(tmp_path):
    w, _, _ = _model()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "model"))
    data = path + ".data-00000-of-00001"
    raw = bytearray(open(data, "rb").read())
    raw[len(raw) // 2] ^= 0xFF
    open(data, "wb").write(bytes(raw))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.DataLossError):
            saver.restore(sess, path)
    index = path + ".index"
    raw = open(index, "rb").read()
    open(index, "wb").write(raw[:len(raw) // 2])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.DataLossError):
            saver.restore(sess, path)


def test_save_errors(tmp_path):
    _model()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(ValueError, match="doesn't exist"):
            saver.save(sess, str(tmp_path / "no" / "such" / "dir" / "model"))
        with pytest.raises(ValueError, match="collides"):
            saver.save(sess, str(tmp_path / "checkpoint"))
        with pytest.raises(TypeError):
            saver.save("not a session", str(tmp_path / "m"))
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="No variables to save"):
            tf.train.Saver()
        with tf.Session() as sess:
            assert tf.train.Saver(allow_empty=True).save(sess, str(tmp_path / "e")) is None
        a = tf.Variable(1.0, name="a")
        with pytest.raises(ValueError, match="same name"):
            tf.train.Saver([a, a])
    with pytest.raises(NotImplementedError):
        tf.train.export_meta_graph(str(tmp_path / "x.meta"))


def test_flowvm_cli_reads_the_checkpoint(tmp_path):
    cli = os.environ.get("FLOWVM_CLI")
    if not cli or not os.path.exists(cli):
        pytest.skip("FLOWVM_CLI (the flowvm tool) is set by ctest")
    _model()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=7)
    out = subprocess.run([cli, "checkpoint", path], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "w float [2,2]" in out.stdout.replace(", ", ",") or "w float [2, 2]" in out.stdout
    assert "global_step int64 []" in out.stdout and "checksums verified" in out.stdout
