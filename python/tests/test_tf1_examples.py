"""The TF 1.x example programs of examples/tf1 run (each only its import
changed from a TensorFlow program) and reach the accuracy such a model
reaches on Fashion-MNIST, with fewer steps than their defaults so that CI
stays short. One runs unmodified, `import tensorflow as tf` included,
under `python3 -m flowvm.tf1`."""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("FLOWVM_SOURCE_DIR", os.path.join(HERE, "..", ".."))
EXAMPLES = os.path.join(SOURCE, "examples", "tf1")
PYTHONPATH = os.environ.get("PYTHONPATH", "")


def run(args, timeout=900, cwd=None):
    env = dict(os.environ, PYTHONPATH=PYTHONPATH)
    p = subprocess.run([sys.executable] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                       timeout=timeout, cwd=cwd)
    out = p.stdout.decode("utf-8", "replace")
    return p.returncode, out


def example(name):
    return os.path.join(EXAMPLES, name)


def last_float(pattern, out):
    m = re.findall(pattern, out)
    assert m, out[-3000:]
    return float(m[-1])


def test_mnist_softmax_tutorial():
    rc, out = run([example("mnist_softmax.py"), "--seed", "1", "--min_accuracy", "0.80"])
    assert rc == 0, out[-3000:]
    assert last_float(r"test accuracy ([0-9.]+)", out) >= 0.80


def test_mnist_deep_convnet_tutorial():
    rc, out = run([example("mnist_deep.py"), "--steps", "400", "--test_examples", "2000", "--min_accuracy", "0.70"])
    assert rc == 0, out[-3000:]
    assert "step 300, training accuracy" in out


def test_fully_connected_feed_tutorial(tmp_path):
    log_dir = str(tmp_path / "logs")
    rc, out = run([example("fully_connected_feed.py"), "--max_steps", "1500", "--log_dir", log_dir,
                   "--min_accuracy", "0.70"])
    assert rc == 0, out[-3000:]
    files = os.listdir(log_dir)
    assert "checkpoint" in files, files
    assert any(f.startswith("events.out.tfevents.") for f in files), files
    assert any(f.startswith("model.ckpt-1499") for f in files), files


def test_linear_regression():
    rc, out = run([example("linear_regression.py")])  # 1000 epochs of 50 single-point steps
    assert rc == 0, out[-3000:]


def test_logistic_regression():
    rc, out = run([example("logistic_regression.py"), "--epochs", "2", "--min_accuracy", "0.75"])
    assert rc == 0, out[-3000:]


def test_multilayer_perceptron():
    rc, out = run([example("multilayer_perceptron.py"), "--epochs", "2", "--min_accuracy", "0.82"])
    assert rc == 0, out[-3000:]


def test_convolutional_network():
    rc, out = run([example("convolutional_network.py"), "--steps", "200", "--min_accuracy", "0.70"])
    assert rc == 0, out[-3000:]


def test_autoencoder():
    rc, out = run([example("autoencoder.py"), "--steps", "800", "--max_loss", "0.16"])
    assert rc == 0, out[-3000:]


def test_lstm_classifier():
    """A TF 1.x program as written for TensorFlow (import tensorflow, the
    tutorials' input_data), run by the runner: BasicLSTMCell + dynamic_rnn
    over the 28 rows of each image. 1000 steps of batch 64 reach 0.83 on
    the 10,000 test images with seed 1 (0.81-0.83 over seeds 1-3)."""
    src = open(example("lstm_classifier.py")).read()
    assert "import flowvm" not in src and "from flowvm" not in src
    rc, out = run(["-m", "flowvm.tf1", example("lstm_classifier.py"), "--steps", "1000", "--log_every", "200",
                   "--seed", "1", "--min_accuracy", "0.80"])
    assert rc == 0, out[-3000:]
    assert "step 1000, loss" in out
    assert last_float(r"test accuracy ([0-9.]+)", out) >= 0.80


def test_unmodified_tutorial_runs_under_the_tf1_runner(tmp_path):
    """The beginners' tutorial with TensorFlow's own import lines."""
    src = open(example("mnist_softmax.py")).read()
    src = src.replace("import flowvm.compat.v1 as tf", "import tensorflow as tf")
    src = src.replace("from flowvm.compat.v1.examples.tutorials.mnist import input_data",
                      "from tensorflow.examples.tutorials.mnist import input_data")
    assert "import flowvm" not in src and "from flowvm" not in src
    script = tmp_path / "mnist_softmax_tf.py"
    script.write_text(src)
    rc, out = run(["-m", "flowvm.tf1", str(script), "--seed", "1", "--min_accuracy", "0.80"])
    assert rc == 0, out[-3000:]
    assert last_float(r"test accuracy ([0-9.]+)", out) >= 0.80


def test_scan_rnn_under_the_tf1_runner():
    """A recurrent classifier written with tf.scan (a while loop over
    TensorArrays, differentiated through), TensorFlow's import lines
    unchanged: 600 steps reach 79-81% on Fashion-MNIST (seeds 1-5)."""
    src = open(example("scan_rnn.py")).read()
    assert "import tensorflow as tf" in src and "import flowvm" not in src and "from flowvm" not in src
    rc, out = run(["-m", "flowvm.tf1", example("scan_rnn.py"), "--steps", "600", "--min_accuracy", "0.75"])
    assert rc == 0, out[-3000:]
    assert last_float(r"test accuracy ([0-9.]+)", out) >= 0.75
    assert last_float(r"step 599, loss ([0-9.]+)", out) < last_float(r"step 0, loss ([0-9.]+)", out)


def test_dataset_pipeline_under_the_tf1_runner():
    """A classifier fed by tf.data, TensorFlow's import lines unchanged:
    FixedLengthRecordDataset over the gzip'd IDX files, map, zip, cache,
    shuffle, repeat, batch, prefetch, one reinitializable iterator for the
    training and the test data. 1500 steps reach 0.86-0.87 (seeds 1-3)."""
    src = open(example("dataset_pipeline.py")).read()
    assert "import tensorflow as tf" in src and "import flowvm" not in src and "from flowvm" not in src
    rc, out = run(["-m", "flowvm.tf1", example("dataset_pipeline.py"), "--steps", "1500", "--log_every", "500",
                   "--min_accuracy", "0.83"])
    assert rc == 0, out[-3000:]
    assert last_float(r"test accuracy ([0-9.]+)", out) >= 0.83
    assert "on 10000 examples" in out  # the test iterator ran to the end of its dataset
    assert last_float(r"step 1499, loss ([0-9.]+)", out) < last_float(r"step 0, loss ([0-9.]+)", out)


def test_ps_worker_script_trains_on_a_local_cluster(tmp_path):
    """TF 1.x between-graph replication: one ps and two workers, each a
    process running the same script; the workers share the variables on
    the ps through replica_device_setter and stop at the global step."""
    from flowvm import _flowvm
    ports = set()
    while len(ports) < 3:
        ports.add(_flowvm.pick_unused_port())
    ps, w0, w1 = ["127.0.0.1:%d" % p for p in sorted(ports)]
    common = [example("ps_worker.py"), "--ps_hosts=" + ps, "--worker_hosts=%s,%s" % (w0, w1), "--steps=200"]
    env = dict(os.environ, PYTHONPATH=PYTHONPATH)
    procs = []
    logs = [tmp_path / ("task%d.log" % i) for i in range(3)]
    try:
        # Output to files: a pipe nobody reads would stop a chatty task.
        procs.append(subprocess.Popen([sys.executable] + common + ["--job_name=ps", "--task_index=0"], env=env,
                                      stdout=open(logs[0], "wb"), stderr=subprocess.STDOUT))
        workers = [subprocess.Popen([sys.executable] + common + ["--job_name=worker", "--task_index=%d" % i],
                                    env=env, stdout=open(logs[i + 1], "wb"), stderr=subprocess.STDOUT)
                   for i in range(2)]
        procs.extend(workers)
        outs = []
        for i, w in enumerate(workers):
            w.wait(timeout=300)
            outs.append(logs[i + 1].read_text())
            assert w.returncode == 0, outs[-1][-3000:]
        losses = [last_float(r"last loss ([0-9.]+)", o) for o in outs]
        assert min(losses) < 0.05, outs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(timeout=30)
