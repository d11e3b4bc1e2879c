"""tf.summary ops and FileWriter: the event files read back record by record."""
import glob
import os
import struct
import subprocess

import numpy as np
import pytest

import flowvm.compat.v1 as tf
from flowvm import event_pb2
from flowvm.tf.ops import gen_ops


def read_events(logdir):
    """Every Event of the directory's event files (TFRecord framing:
    length, its CRC, data, the data's CRC)."""
    events = []
    for path in sorted(glob.glob(os.path.join(str(logdir), "events.out.tfevents.*"))):
        with open(path, "rb") as f:
            raw = f.read()
        pos = 0
        while pos + 12 <= len(raw):
            (n,) = struct.unpack("<Q", raw[pos:pos + 8])
            data = raw[pos + 12:pos + 12 + n]
            pos += 12 + n + 4
            e = event_pb2.Event()
            e.ParseFromString(data)
            events.append(e)
    return events


def test_summary_ops_tags_and_collection():
    loss = tf.constant(0.25)
    s1 = tf.summary.scalar("loss", loss)
    with tf.name_scope("train"):
        s2 = tf.summary.scalar("loss", loss)
    s3 = tf.summary.scalar("loss", loss)
    s4 = tf.summary.histogram("weights", tf.constant([1.0, 2.0, 2.0, 3.0]), family="layer1")
    img = tf.summary.image("pics", np.zeros((5, 4, 4, 1), np.float32), max_outputs=2)
    txt = tf.summary.text("note", tf.constant("hello"))
    other = tf.summary.scalar("private", loss, collections=["mine"])
    assert s1.op.name == "loss" and s2.op.name == "train/loss" and s3.op.name == "loss_1"
    assert s4.op.name == "layer1/weights"
    assert tf.get_collection(tf.GraphKeys.SUMMARIES) == [s1, s2, s3, s4, img, txt]
    assert tf.get_collection("mine") == [other]
    merged = tf.summary.merge_all()
    assert tf.summary.merge_all(key="nothing-here") is None
    with tf.Session() as sess:
        raw = sess.run(merged)
    summary = tf.Summary()
    summary.ParseFromString(raw)
    tags = [v.tag for v in summary.value]
    assert tags[:4] == ["loss", "train/loss", "loss_1", "layer1/layer1/weights"]
    assert summary.value[0].simple_value == 0.25
    h = summary.value[3].histo
    assert h.num == 4 and h.min == 1.0 and h.max == 3.0 and h.sum == 8.0
    images = [v for v in summary.value if v.HasField("image")]
    assert [v.tag for v in images] == ["pics/image/0", "pics/image/1"]
    assert images[0].image.encoded_image_string[:4] == b"\x89PNG"
    text_values = [v for v in summary.value if v.tag == "note"]
    assert text_values and text_values[0].metadata.plugin_data.plugin_name == "text"


def test_file_writer_writes_readable_events(tmp_path):
    x = gen_ops.placeholder(tf.float32, shape=[], name="feed")
    s = tf.summary.scalar("x", x)
    merged = tf.summary.merge_all()
    writer = tf.summary.FileWriter(str(tmp_path), graph=tf.get_default_graph())
    assert writer.get_logdir() == str(tmp_path)
    with tf.Session() as sess:
        for step in range(3):
            writer.add_summary(sess.run(merged, {x: step * 1.5}), global_step=step)
        proto = tf.Summary()
        proto.ParseFromString(sess.run(s, {x: 9.0}))
        writer.add_summary(proto, 10)
    writer.add_session_log(tf.summary.SessionLog(status=tf.summary.SessionLog.START), 0)
    md = tf.RunMetadata()
    writer.add_run_metadata(md, "step3", 3)
    writer.flush()
    writer.close()
    writer.add_summary(proto, 11)  # dropped: the writer is closed
    events = read_events(tmp_path)
    assert events[0].file_version == "brain.Event:2"
    graphs = [e for e in events if e.graph_def]
    assert len(graphs) == 1
    gd = tf.GraphDef()
    gd.ParseFromString(graphs[0].graph_def)
    assert "feed" in [n.name for n in gd.node]
    scalars = [(e.step, v.tag, v.simple_value) for e in events if e.HasField("summary") for v in e.summary.value]
    assert scalars == [(0, "x", 0.0), (1, "x", 1.5), (2, "x", 3.0), (10, "x", 9.0)]
    assert all(e.wall_time > 0 for e in events)
    assert any(e.HasField("session_log") and e.session_log.status == tf.summary.SessionLog.START for e in events)
    assert any(e.HasField("tagged_run_metadata") and e.tagged_run_metadata.tag == "step3" for e in events)


def test_metadata_written_once_per_tag(tmp_path):
    t = tf.summary.text("note", tf.constant("hi"))
    with tf.Session() as sess:
        raw = sess.run(t)
    with tf.summary.FileWriter(str(tmp_path)) as w:
        w.add_summary(raw, 1)
        w.add_summary(raw, 2)
    values = [v for e in read_events(tmp_path) if e.HasField("summary") for v in e.summary.value]
    assert [v.HasField("metadata") for v in values] == [True, False]


def test_file_writer_cache_and_reopen(tmp_path):
    a = tf.summary.FileWriterCache.get(str(tmp_path / "a"))
    assert tf.summary.FileWriterCache.get(str(tmp_path / "a")) is a
    tf.summary.FileWriterCache.clear()
    assert tf.summary.FileWriterCache.get(str(tmp_path / "a")) is not a
    tf.summary.FileWriterCache.clear()
    w = tf.summary.FileWriter(str(tmp_path / "b"), filename_suffix=".mine")
    first = w.event_file_path
    assert first.endswith(".mine")
    w.close()
    w.reopen()
    w.close()
    assert len(glob.glob(str(tmp_path / "b" / "events.out.tfevents.*"))) == 2


def test_summary_errors():
    with pytest.raises(ValueError):
        tf.summary.scalar("v", tf.constant([1.0, 2.0]))  # not a scalar
    with pytest.raises(ValueError):
        tf.summary.text("t", tf.constant(1.0))
    with pytest.raises(NotImplementedError):
        tf.summary.audio("a", tf.constant([[0.0]]), 8000)
    with pytest.raises(TypeError):
        tf.summary.FileWriter.__new__(tf.summary.FileWriter).add_summary(3)


def test_flowvm_cli_checks_the_event_records(tmp_path):
    cli = os.environ.get("FLOWVM_CLI")
    if not cli or not os.path.exists(cli):
        pytest.skip("FLOWVM_CLI (the flowvm tool) is set by ctest")
    s = tf.summary.scalar("loss", tf.constant(0.5))
    with tf.Session() as sess, tf.summary.FileWriter(str(tmp_path)) as w:
        w.add_summary(sess.run(s), 4)
    path = glob.glob(str(tmp_path / "events.*"))[0]
    out = subprocess.run([cli, "records", path, "--check"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "2 records" in out.stdout and "checksums verified" in out.stdout
