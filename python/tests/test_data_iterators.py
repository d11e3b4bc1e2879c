"""tf.data iterators (one-shot, initializable, reinitializable, feedable),
the file datasets against TFRecord, text and binary files written here
independently, the errors users meet, and pipelines that cross devices and
tasks."""
import gzip
import os
import subprocess
import sys
import textwrap
import zlib

import numpy as np
import pytest

import flowvm.compat.v1 as tf
from data_test_util import drain, write_tfrecords


# ---- iterators ----------------------------------------------------------------
def test_initializable_iterator_takes_placeholders_at_initialization():
    n = tf.placeholder(tf.int64, [])
    data = tf.placeholder(tf.float32, [None])
    it = tf.data.Dataset.zip((tf.data.Dataset.range(n), tf.data.Dataset.from_tensor_slices(data))) \
        .make_initializable_iterator()
    i, v = it.get_next()
    with tf.Session() as sess:
        sess.run(it.initializer, {n: 3, data: [1.5, 2.5, 3.5, 4.5]})
        assert [(int(a), float(b)) for a, b in drain(sess, (i, v))] == [(0, 1.5), (1, 2.5), (2, 3.5)]
        sess.run(it.initializer, {n: 10, data: [7.0]})  # re-initialized, new values
        assert [(int(a), float(b)) for a, b in drain(sess, (i, v))] == [(0, 7.0)]


def test_get_next_before_initialization_is_failed_precondition():
    it = tf.data.Dataset.range(3).make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(nxt)


def test_reinitializable_iterator_switches_datasets():
    train = tf.data.Dataset.range(100).map(lambda x: x * 2).batch(4)
    val = tf.data.Dataset.range(3).batch(4)
    it = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
    assert it.output_shapes.as_list() == [None]
    nxt = it.get_next()
    train_init, val_init = it.make_initializer(train), it.make_initializer(val)
    with tf.Session() as sess:
        sess.run(train_init)
        np.testing.assert_array_equal(sess.run(nxt), [0, 2, 4, 6])
        sess.run(val_init)
        np.testing.assert_array_equal(sess.run(nxt), [0, 1, 2])
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(nxt)
        sess.run(train_init)
        np.testing.assert_array_equal(sess.run(nxt), [0, 2, 4, 6])
    with pytest.raises(TypeError):
        it.make_initializer(tf.data.Dataset.from_tensors(np.zeros([2], np.float32)))
    with pytest.raises(ValueError):
        it.initializer  # noqa: B018 - a reinitializable iterator has none


def test_feedable_iterator_by_string_handle():
    a = tf.data.Dataset.range(10).make_one_shot_iterator()
    b = tf.data.Dataset.range(100, 110).make_initializable_iterator()
    handle = tf.placeholder(tf.string, [])
    it = tf.data.Iterator.from_string_handle(handle, a.output_types, a.output_shapes)
    nxt = it.get_next()
    with tf.Session() as sess:
        ha, hb = sess.run([a.string_handle(), b.string_handle()])
        sess.run(b.initializer)
        assert sess.run(nxt, {handle: ha}) == 0
        assert sess.run(nxt, {handle: hb}) == 100
        assert sess.run(nxt, {handle: ha}) == 1
        assert sess.run(nxt, {handle: hb}) == 101


def test_module_functions_and_compat_path():
    ds = tf.compat.v1.data.Dataset.range(2)
    it = tf.data.make_one_shot_iterator(ds)
    assert tf.data.get_output_types(it) == tf.int64
    assert tf.data.get_output_shapes(ds).as_list() == []
    assert tf.data.get_output_classes(ds) is tf.Tensor
    it2 = tf.compat.v1.data.make_initializable_iterator(ds)
    with tf.Session() as sess:
        sess.run(it2.initializer)
        assert drain(sess, it.get_next()) == [0, 1]
        assert drain(sess, it2.get_next()) == [0, 1]


def test_one_shot_iterator_cannot_capture_a_placeholder():
    x = tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError, match="placeholder"):
        tf.data.Dataset.from_tensor_slices(x).make_one_shot_iterator()


def test_one_shot_iterator_of_a_pipeline_with_functions_and_captured_constants():
    offset = tf.constant(100, tf.int64)
    ds = tf.data.Dataset.range(10).map(lambda x: x + offset).filter(lambda x: x % 2 > 0).batch(2)
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        got = drain(sess, nxt)
    assert [list(map(int, g)) for g in got] == [[101, 103], [105, 107], [109]]


def test_one_shot_iterator_keeps_its_place_across_runs_and_sessions_share_nothing():
    nxt = tf.data.Dataset.range(5).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert [sess.run(nxt) for _ in range(3)] == [0, 1, 2]
    with tf.Session() as sess:
        assert sess.run(nxt) == 0


def test_element_of_the_wrong_shape_names_the_dataset():
    ph = tf.placeholder(tf.float32, [None])
    ds = tf.data.Dataset.from_tensors(ph)
    it = tf.data.Iterator.from_structure(tf.float32, [2])
    init = it.make_initializer(ds)
    nxt = it.get_next()
    with tf.Session() as sess:
        sess.run(init, {ph: [1.0, 2.0, 3.0]})
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(nxt)
    assert "shape" in e.value.message and "TensorDataset" in e.value.message


def test_error_in_a_map_function_names_the_function_and_node():
    def bad_reshape(n):
        return tf.reshape(tf.range(n), [2], name="the_reshape")  # n = 1 has one element

    nxt = tf.data.Dataset.range(1, 4).map(bad_reshape).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(nxt)
    assert "the_reshape" in e.value.message and "bad_reshape" in e.value.message


def test_python_errors_of_user_functions_show_at_build_time():
    with pytest.raises(ZeroDivisionError):
        tf.data.Dataset.range(3).map(lambda x: 1 / 0)
    with pytest.raises(TypeError, match="None"):
        tf.data.Dataset.range(3).map(lambda x: None)
    with pytest.raises(TypeError):
        tf.data.Dataset.range(3).apply(lambda ds: 3)


# ---- files -----------------------------------------------------------------------
@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_tfrecord_dataset_reads_independently_written_files(tmp_path, compression):
    recs = [b"record-%d-" % i + b"x" * (i * 37 % 300) for i in range(50)]
    f1 = write_tfrecords(str(tmp_path / "a.tfrecord"), recs[:30], compression)
    f2 = write_tfrecords(str(tmp_path / "b.tfrecord"), recs[30:], compression)
    ds = tf.data.TFRecordDataset([f1, f2], compression_type=compression, buffer_size=64)
    assert ds.output_types == tf.string and ds.output_shapes.as_list() == []
    with tf.Session() as sess:
        assert drain(sess, ds.make_one_shot_iterator().get_next()) == recs


def test_tfrecord_dataset_of_a_dataset_of_names_and_parallel_reads(tmp_path):
    files = [write_tfrecords(str(tmp_path / ("f%d" % k)), [b"%d:%d" % (k, i) for i in range(3)]) for k in range(3)]
    names = tf.data.Dataset.from_tensor_slices(files)
    with tf.Session() as sess:
        seq = drain(sess, tf.data.TFRecordDataset(names).make_one_shot_iterator().get_next())
        par = drain(sess, tf.data.TFRecordDataset(files, num_parallel_reads=2).make_one_shot_iterator().get_next())
    assert seq == [b"%d:%d" % (k, i) for k in range(3) for i in range(3)]
    # Two files at a time, one record from each in turn, then the third.
    assert par == [b"0:0", b"1:0", b"0:1", b"1:1", b"0:2", b"1:2", b"2:0", b"2:1", b"2:2"]


def test_corrupt_tfrecord_is_data_loss_naming_file_and_offset(tmp_path):
    recs = [b"a" * 10, b"b" * 20, b"c" * 30]
    path = write_tfrecords(str(tmp_path / "bad.tfrecord"), recs)
    data = bytearray(open(path, "rb").read())
    second = 8 + 4 + 10 + 4  # the second record starts here
    data[second + 12 + 5] ^= 0xFF  # a byte of its data
    open(path, "wb").write(bytes(data))
    nxt = tf.data.TFRecordDataset(path).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert sess.run(nxt) == recs[0]
        with pytest.raises(tf.errors.DataLossError) as e:
            sess.run(nxt)
    assert path in e.value.message and str(second) in e.value.message


def test_missing_file_is_not_found(tmp_path):
    nxt = tf.data.TFRecordDataset(str(tmp_path / "nope.tfrecord")).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.NotFoundError, match="nope.tfrecord"):
            sess.run(nxt)


@pytest.mark.parametrize("compression", ["", "GZIP"])
def test_text_line_dataset(tmp_path, compression):
    lines = ["first", "", "third line", "last without newline"]
    data = ("\n".join(lines[:3]) + "\r\n" + lines[3]).encode()
    path = str(tmp_path / "t.txt")
    open(path, "wb").write(gzip.compress(data) if compression else data)
    with tf.Session() as sess:
        got = drain(sess, tf.data.TextLineDataset(path, compression_type=compression).make_one_shot_iterator()
                    .get_next())
    assert [g.decode() for g in got] == lines


def test_fixed_length_record_dataset(tmp_path):
    header, footer = b"HDR", b"FOOT!"
    body = np.arange(24, dtype=np.uint8).tobytes()
    path = str(tmp_path / "r.bin")
    open(path, "wb").write(header + body + footer)
    zpath = str(tmp_path / "r.z")
    open(zpath, "wb").write(zlib.compress(header + body + footer))
    for p, c in [(path, None), (zpath, "ZLIB")]:
        ds = tf.data.FixedLengthRecordDataset(p, record_bytes=6, header_bytes=3, footer_bytes=5, compression_type=c)
        recs = ds.map(lambda s: tf.decode_raw(s, tf.uint8))
        with tf.Session() as sess:
            got = drain(sess, recs.make_one_shot_iterator().get_next())
        np.testing.assert_array_equal(np.stack(got), np.arange(24).reshape(4, 6))


# ---- devices and tasks ------------------------------------------------------------
def test_pipeline_on_a_second_cpu_feeds_a_model_on_the_first():
    x = np.random.RandomState(0).randn(40, 3).astype(np.float32)
    with tf.device("/cpu:1"):
        ds = tf.data.Dataset.from_tensor_slices(x).map(lambda v: v * 2.0).batch(10)
        it = ds.make_initializable_iterator()
        batch = it.get_next()
    with tf.device("/cpu:0"):
        total = tf.reduce_sum(batch, axis=0)
    config = tf.ConfigProto(device_count={"CPU": 2})
    with tf.Session(config=config) as sess:
        sess.run(it.initializer)
        got = np.stack(drain(sess, total))
    np.testing.assert_allclose(got, (2 * x).reshape(4, 10, 3).sum(axis=1), rtol=1e-5)


def test_an_iterator_on_worker_1_of_a_three_task_cluster_feeds_a_model_there():
    from flowvm import _flowvm
    ports = [_flowvm.pick_unused_port() for _ in range(3)]
    spec = {"worker": ["127.0.0.1:%d" % p for p in ports]}
    servers = [tf.train.Server(spec, job_name="worker", task_index=i) for i in range(3)]
    try:
        xs = np.linspace(-1, 1, 64).astype(np.float32).reshape(64, 1)
        ys = 3.0 * xs - 0.5
        with tf.device("/job:worker/task:1"):
            ds = tf.data.Dataset.from_tensor_slices((xs, ys)).shuffle(64, seed=1).repeat().batch(16)
            it = ds.make_initializable_iterator()
            bx, by = it.get_next()
            w = tf.Variable(0.0)
            b = tf.Variable(0.0)
            loss = tf.reduce_mean(tf.square(w * bx + b - by))
            train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.device("/job:worker/task:2"):
            scaled = tf.identity(loss) * 2.0  # a consumer on another task
        with tf.Session(servers[0].target) as sess:
            sess.run([tf.global_variables_initializer(), it.initializer])
            for _ in range(200):
                sess.run(train)
            wv, bv, s = sess.run([w, b, scaled])
        assert abs(wv - 3.0) < 1e-2 and abs(bv + 0.5) < 1e-2
        assert s < 1e-3
    finally:
        for s in servers:
            s.stop()


def test_internal_import_paths_under_the_runner():
    script = textwrap.dedent("""
        import tensorflow as tf
        from tensorflow.python.data.ops import dataset_ops, iterator_ops, readers
        assert dataset_ops.DatasetV1 is tf.data.Dataset
        assert iterator_ops.Iterator is tf.data.Iterator
        assert readers.TFRecordDataset is tf.data.TFRecordDataset
        ds = tf.compat.v1.data.Dataset.from_tensor_slices(([1, 2, 3], [4, 5, 6])).map(lambda a, b: a * b)
        nxt = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()
        with tf.Session() as sess:
            print([int(sess.run(nxt)) for _ in range(3)])
        """)
    r = subprocess.run([sys.executable, "-c", "from flowvm import tf1; tf1.install(); exec(open(0).read())"],
                       input=script, capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[4, 10, 18]"


def test_a_graph_def_with_an_iterator_imports_and_runs():
    ds = tf.data.Dataset.range(6).map(lambda x: x * x).batch(4)
    nxt = ds.make_one_shot_iterator().get_next(name="next_batch")
    gd = tf.get_default_graph().as_graph_def()
    assert len(gd.library.function) >= 2  # the factory and the map function
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        t = tf.get_default_graph().get_tensor_by_name("next_batch:0")
        with tf.Session() as sess:
            got = drain(sess, t)
    assert [list(map(int, g)) for g in got] == [[0, 1, 4, 9], [16, 25]]
    del nxt
