"""python3 -m flowvm.tf1: TensorFlow 1.x scripts run unmodified; tf.app,
tf.flags, tf.logging and tf.gfile."""
import os
import subprocess
import sys
import textwrap

import pytest

import flowvm.compat.v1 as tf
from flowvm.tf.platform import flags as flags_lib


def _env():
    """The environment for child interpreters: this flowvm package first on
    the path (absolute, since children run in other directories)."""
    import flowvm
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(flowvm.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def _run_script(tmp_path, source, *args):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(source))
    proc = subprocess.run([sys.executable, "-m", "flowvm.tf1", str(script)] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, cwd=str(tmp_path),
                          env=_env())
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


_FLAGS_SCRIPT = """
    import sys
    import tensorflow as tf
    import tensorflow.compat.v1 as tf1
    from tensorflow.compat import v1
    from tensorflow import train
    import tensorflow.logging
    assert tf is tf1 is v1 and train is tf.train and tf.compat.v1 is tf
    assert tensorflow.logging is tf.logging

    flags = tf.app.flags
    flags.DEFINE_integer("steps", 3, "training steps")
    flags.DEFINE_string("name", "model", "a name")
    flags.DEFINE_float("lr", 0.5, "learning rate")
    flags.DEFINE_boolean("fast", False, "go fast")
    FLAGS = flags.FLAGS

    def main(argv):
        # tf.raw_ops: TensorFlow 1.15's names for the ops themselves.
        x = tf.raw_ops.Placeholder(dtype=tf.float32, shape=[])
        with tf.Session() as sess:
            y = sess.run(tf.raw_ops.Add(x=x, y=tf.constant(1.0)), {x: FLAGS.lr})
        print("argv=%s steps=%d name=%s lr=%g fast=%s y=%g" % (argv[1:], FLAGS.steps, FLAGS.name, FLAGS.lr,
                                                               FLAGS.fast, y))
        return FLAGS.steps

    if __name__ == "__main__":
        tf.app.run()
"""


def test_runner_resolves_tensorflow_and_parses_flags(tmp_path):
    rc, out, err = _run_script(tmp_path, _FLAGS_SCRIPT, "--steps", "4", "pos", "--name=y", "--lr=0.25", "--fast")
    assert rc == 4, err
    assert "argv=['pos'] steps=4 name=y lr=0.25 fast=True y=1.25" in out


def test_runner_defaults_and_noflag(tmp_path):
    rc, out, err = _run_script(tmp_path, _FLAGS_SCRIPT, "--nofast", "--", "--steps=9")
    assert rc == 3, err
    assert "argv=['--steps=9'] steps=3 name=model lr=0.5 fast=False" in out


def test_runner_unknown_flag_exits_1(tmp_path):
    rc, out, err = _run_script(tmp_path, _FLAGS_SCRIPT, "--bogus=1")
    assert rc == 1
    assert "Unknown command line flag 'bogus'" in err


def test_runner_bad_flag_value_exits_1(tmp_path):
    rc, out, err = _run_script(tmp_path, _FLAGS_SCRIPT, "--steps=many")
    assert rc == 1
    assert "steps" in err


def test_runner_exception_prints_traceback(tmp_path):
    rc, out, err = _run_script(tmp_path, """
        import tensorflow as tf
        x = tf.raw_ops.Placeholder(dtype=tf.float32, shape=[2], name="feed_me")
        with tf.Session() as sess:
            sess.run(tf.raw_ops.Neg(x=x))
    """)
    assert rc == 1
    assert "Traceback" in err and "InvalidArgumentError" in err and "feed_me" in err


def test_runner_exit_status_and_argv(tmp_path):
    rc, out, err = _run_script(tmp_path, """
        import sys
        print("argv", sys.argv[1:], __name__)
        sys.exit(7)
    """, "a", "--b")
    assert rc == 7
    assert "argv ['a', '--b'] __main__" in out
    rc, out, err = _run_script(tmp_path, "print('fine')\n")
    assert rc == 0 and "fine" in out


def test_runner_missing_script():
    proc = subprocess.run([sys.executable, "-m", "flowvm.tf1", "/nonexistent/script.py"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=60, env=_env())
    assert proc.returncode == 2 and b"no such script" in proc.stderr


def test_runner_unsupported_tensorflow_module(tmp_path):
    rc, out, err = _run_script(tmp_path, "import tensorflow.contrib.slim\n")
    assert rc == 1 and "ModuleNotFoundError" in err


# ---- tf.flags in process (a private FlagValues, so tests don't collide) ----
def test_flags_parsing_forms():
    fv = flags_lib.FlagValues()
    tf.flags.DEFINE_string("s", "d", "help", flag_values=fv)
    tf.flags.DEFINE_integer("i", 1, "help", flag_values=fv)
    tf.flags.DEFINE_float("f", 1.5, "help", flag_values=fv)
    tf.flags.DEFINE_bool("b", True, "help", flag_values=fv)
    tf.flags.DEFINE_list("l", "a,b", "help", flag_values=fv)
    tf.flags.DEFINE_enum("e", "x", ["x", "y"], "help", flag_values=fv)
    assert not fv.is_parsed()
    rest = fv(["prog", "-s", "v", "--i=0x10", "--f", "2", "--nob", "--l=", "--e=y", "arg"])
    assert rest == ["prog", "arg"]
    assert (fv.s, fv.i, fv.f, fv.b, fv.l, fv.e) == ("v", 16, 2.0, False, [], "y")
    assert fv.flag_values_dict()["i"] == 16
    fv.i = 5
    assert fv.i == 5 and fv["i"].value == 5
    with pytest.raises(tf.flags.UnrecognizedFlagError):
        fv(["prog", "--unknown=1"])
    with pytest.raises(tf.flags.IllegalFlagValueError):
        fv(["prog", "--i=x"])
    with pytest.raises(tf.flags.IllegalFlagValueError):
        fv(["prog", "--e=z"])
    with pytest.raises(tf.flags.Error):
        fv(["prog", "--s"])
    with pytest.raises(tf.flags.DuplicateFlagError):
        tf.flags.DEFINE_string("s", "again", "help", flag_values=fv)
    with pytest.raises(AttributeError):
        fv.nope  # noqa: B018


def test_flags_parse_lazily_from_sys_argv(monkeypatch):
    fv = flags_lib.FlagValues()
    holder = tf.flags.DEFINE_integer("batch", 8, "help", flag_values=fv)
    monkeypatch.setattr(sys, "argv", ["prog", "--other=1", "--batch=32"])
    assert fv.batch == 32 and holder.value == 32  # unknown flags are left for tf.app.run
    fv.unparse_flags()
    assert not fv.is_parsed() and fv["batch"].value == 8


def test_flags_required():
    fv = flags_lib.FlagValues()
    tf.flags.DEFINE_string("data_dir", None, "help", flag_values=fv)
    tf.flags.mark_flag_as_required("data_dir", flag_values=fv)
    with pytest.raises(tf.flags.IllegalFlagValueError):
        fv(["prog"])
    fv(["prog", "--data_dir=/x"])
    assert fv.data_dir == "/x"


def test_app_run_passes_remaining_argv(monkeypatch):
    seen = []
    with pytest.raises(SystemExit) as e:
        tf.app.run(lambda argv: seen.append(argv) or 3, argv=["prog", "x"])
    assert e.value.code == 3 and seen == [["prog", "x"]]


# ---- tf.logging ----
def test_logging_levels(caplog):
    old = tf.logging.get_verbosity()
    try:
        tf.logging.set_verbosity(tf.logging.INFO)
        assert tf.logging.get_verbosity() == tf.logging.INFO
        with caplog.at_level(tf.logging.INFO, logger="tensorflow"):
            tf.logging.info("step %d", 5)
            tf.logging.debug("hidden")
            tf.logging.warn("careful")
            tf.logging.error("bad")
        msgs = [r.getMessage() for r in caplog.records if r.name == "tensorflow"]
        assert msgs == ["step 5", "careful", "bad"]
        assert (tf.logging.DEBUG, tf.logging.INFO, tf.logging.WARN, tf.logging.ERROR) == (10, 20, 30, 40)
    finally:
        tf.logging.set_verbosity(old)


# ---- tf.gfile ----
def test_gfile_files_and_directories(tmp_path):
    d = str(tmp_path / "a" / "b")
    tf.gfile.MakeDirs(d)
    tf.gfile.MakeDirs(d)  # exists: fine
    assert tf.gfile.IsDirectory(d) and tf.gfile.Exists(d)
    with pytest.raises(tf.errors.AlreadyExistsError):
        tf.gfile.MkDir(d)
    tf.gfile.MkDir(str(tmp_path / "c"))
    p = os.path.join(d, "f.txt")
    with tf.gfile.GFile(p, "w") as f:
        f.write("line1\nline2\n")
    with tf.gfile.Open(p) as f:
        assert f.readline() == "line1\n"
        assert f.read() == "line2\n"
    with tf.gfile.GFile(p, "rb") as f:
        assert f.read() == b"line1\nline2\n"
    assert list(tf.gfile.GFile(p)) == ["line1\n", "line2\n"]
    assert tf.gfile.GFile(p).size() == 12
    assert tf.gfile.ListDirectory(d) == ["f.txt"]
    assert tf.gfile.Glob(os.path.join(d, "*.txt")) == [p]
    tf.gfile.Copy(p, p + ".bak")
    with pytest.raises(tf.errors.AlreadyExistsError):
        tf.gfile.Copy(p, p + ".bak")
    tf.gfile.Copy(p, p + ".bak", overwrite=True)
    tf.gfile.Rename(p + ".bak", p + ".moved")
    assert sorted(tf.gfile.ListDirectory(d)) == ["f.txt", "f.txt.moved"]
    walked = list(tf.gfile.Walk(str(tmp_path)))
    assert walked[0] == (str(tmp_path), ["a", "c"], [])
    assert (d, [], ["f.txt", "f.txt.moved"]) in walked
    tf.gfile.Remove(p + ".moved")
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.Remove(p + ".moved")
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.GFile(os.path.join(d, "missing"))
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.ListDirectory(str(tmp_path / "missing"))
    tf.gfile.DeleteRecursively(str(tmp_path / "a"))
    assert not tf.gfile.Exists(str(tmp_path / "a"))
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.DeleteRecursively(str(tmp_path / "a"))
    with pytest.raises(tf.errors.UnimplementedError):
        tf.gfile.Exists("gs://bucket/x")
