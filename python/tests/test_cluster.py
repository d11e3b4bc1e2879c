"""tf.train.ClusterSpec, tf.train.Server and replica_device_setter: a
ps/worker cluster on 127.0.0.1 trained by between-graph replication."""
import os
import socket
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import flowvm.compat.v1 as tf
from flowvm import _flowvm
from flowvm.tf.ops import gen_ops


def _env():
    """The environment for child interpreters: this flowvm package first on
    the path (absolute, since children run in other directories)."""
    import flowvm
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(flowvm.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def test_cluster_spec():
    spec = tf.train.ClusterSpec({"ps": ["127.0.0.1:1", "127.0.0.1:2"], "worker": {1: "127.0.0.1:3"}})
    assert sorted(spec.jobs) == ["ps", "worker"]
    assert spec.num_tasks("ps") == 2 and spec.num_tasks("worker") == 1
    assert spec.task_indices("worker") == [1]
    assert spec.task_address("ps", 1) == "127.0.0.1:2"
    assert spec.job_tasks("worker") == [None, "127.0.0.1:3"]
    assert spec.as_dict() == {"ps": ["127.0.0.1:1", "127.0.0.1:2"], "worker": {1: "127.0.0.1:3"}}
    assert tf.train.ClusterSpec(spec) == spec and bool(spec)
    with pytest.raises(ValueError):
        spec.task_address("ps", 5)
    with pytest.raises(ValueError):
        spec.num_tasks("nope")
    with pytest.raises(TypeError):
        tf.train.ClusterSpec(["127.0.0.1:1"])
    with pytest.raises(TypeError):
        tf.train.ClusterSpec({"ps": "127.0.0.1:1"})


def test_replica_device_setter_places_variables_round_robin():
    cluster = tf.train.ClusterSpec({"ps": ["127.0.0.1:1", "127.0.0.1:2"], "worker": ["127.0.0.1:3"]})
    setter = tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:0")
    with tf.device(setter):
        v0 = gen_ops.variable_v2(shape=[2], dtype=tf.float32, name="v0")
        v1 = gen_ops.variable_v2(shape=[2], dtype=tf.float32, name="v1")
        v2 = gen_ops.variable_v2(shape=[2], dtype=tf.float32, name="v2")
        with tf.colocate_with(v1):
            init = gen_ops.assign(v1, tf.constant([1.0, 2.0]))
        c = tf.constant(1.0)
        with tf.device("/job:ps/task:0"):
            pinned = gen_ops.variable_v2(shape=[], dtype=tf.float32, name="pinned")
        with tf.device("/device:CPU:0"):
            cpu = tf.constant(2.0)
    assert v0.device == "/job:ps/task:0" and v1.device == "/job:ps/task:1" and v2.device == "/job:ps/task:0"
    assert init.device == "/job:ps/task:1"  # the initializer follows its variable
    assert c.device == "/job:worker/task:0"
    assert pinned.device == "/job:ps/task:0"
    assert cpu.device == "/job:worker/task:0/device:CPU:0"
    assert tf.train.replica_device_setter(cluster={"worker": ["127.0.0.1:3"]}) is None
    assert tf.train.replica_device_setter(ps_tasks=0) is None
    custom = tf.train.replica_device_setter(ps_tasks=3, ps_strategy=lambda op: 2)
    with tf.device(custom):
        v = gen_ops.variable_v2(shape=[], dtype=tf.float32, name="custom")
    assert v.device == "/job:ps/task:2"
    with pytest.raises(TypeError):
        tf.train.replica_device_setter(ps_tasks=1, ps_strategy=3)


def _ports(n):
    ports = set()
    while len(ports) < n:
        ports.add(_flowvm.pick_unused_port())
    return sorted(ports)


def _wait_listening(port, procs):
    deadline = time.time() + 60
    while time.time() < deadline:
        for p in procs:
            if p.poll() is not None:
                raise AssertionError("a server exited early: %s" % p.stderr.read().decode())
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("no server listening on port %d" % port)


_SERVER = """
import sys
import tensorflow as tf
cluster = tf.train.ClusterSpec(eval(sys.argv[1]))
server = tf.train.Server(cluster, job_name=sys.argv[2], task_index=int(sys.argv[3]))
print("started", server.target, flush=True)
server.join()
"""


@pytest.fixture
def cluster(tmp_path):
    """ps:0 and worker:0,1 in subprocesses, started with `python -m flowvm.tf1`."""
    ps, w0, w1 = _ports(3)
    spec = {"ps": ["127.0.0.1:%d" % ps], "worker": ["127.0.0.1:%d" % w0, "127.0.0.1:%d" % w1]}
    script = tmp_path / "server.py"
    script.write_text(_SERVER)
    procs = []
    try:
        for job, task in (("ps", 0), ("worker", 0), ("worker", 1)):
            procs.append(subprocess.Popen([sys.executable, "-m", "flowvm.tf1", str(script), repr(spec), job, str(task)],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(tmp_path), env=_env()))
        for port in (ps, w0, w1):
            _wait_listening(port, procs)
        yield spec, procs
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def _worker_graph(spec, task):
    """Each worker's own graph: y = w*x + b fitted by gradient descent, its
    variables on the ps (between-graph replication)."""
    g = tf.Graph()
    with g.as_default():
        with tf.device(tf.train.replica_device_setter(cluster=spec, worker_device="/job:worker/task:%d" % task)):
            w = gen_ops.variable_v2(shape=[], dtype=tf.float32, name="w")
            b = gen_ops.variable_v2(shape=[], dtype=tf.float32, name="b")
            steps = gen_ops.variable_v2(shape=[], dtype=tf.int32, name="global_step")
            with tf.colocate_with(w):
                init_w = gen_ops.assign(w, tf.constant(0.0))
            with tf.colocate_with(b):
                init_b = gen_ops.assign(b, tf.constant(0.0))
            with tf.colocate_with(steps):
                init_s = gen_ops.assign(steps, tf.constant(0))
            init = gen_ops.no_op(name="init")
            init._add_control_inputs([init_w.op, init_s.op, init_b.op])
            x = tf.constant(np.linspace(-1, 1, 16).astype(np.float32))
            y = tf.constant((3.0 * np.linspace(-1, 1, 16) - 1.0).astype(np.float32))
            pred = gen_ops.add(gen_ops.mul(w, x), b)
            err = gen_ops.sub(pred, y)
            loss = gen_ops.mean(gen_ops.mul(err, err), [0])
            gw, gb = tf.gradients(loss, [w, b])
            lr = tf.constant(0.1)
            updates = []
            for var, grad in ((w, gw), (b, gb)):
                with tf.colocate_with(var):  # as optimizers place their updates
                    updates.append(gen_ops.apply_gradient_descent(var, lr, grad).op)
            with tf.colocate_with(steps):
                updates.append(gen_ops.assign_add(steps, tf.constant(1)).op)
            train = gen_ops.no_op(name="train")
            train._add_control_inputs(updates)
    return g, init, train, loss, w, b, steps


def test_between_graph_replication_trains_shared_variables(cluster):
    cluster, _ = cluster
    g0, init0, train0, loss0, w0, b0, s0 = _worker_graph(cluster, 0)
    g1, init1, train1, loss1, w1, b1, s1 = _worker_graph(cluster, 1)
    assert w0.device == "/job:ps/task:0" and loss0.device == "/job:worker/task:0"
    with tf.Session("grpc://" + cluster["worker"][0], graph=g0) as sess0, \
            tf.Session("grpc://" + cluster["worker"][1], graph=g1) as sess1:
        sess0.run(init0)  # the chief initializes; worker 1 sees the same variables
        first = sess1.run(loss1)
        for _ in range(40):
            sess0.run(train0)
            sess1.run(train1)
        assert sess0.run(s0) == 80 and sess1.run(s1) == 80
        w_a, b_a = sess0.run([w0, b0])
        w_b, b_b = sess1.run([w1, b1])
        assert (w_a, b_a) == (w_b, b_b)
        assert abs(w_a - 3.0) < 0.2 and abs(b_a + 1.0) < 0.05
        assert sess1.run(loss1) < first / 10


def test_uncolocated_updates_of_ps_variables_run_on_the_ps(cluster):
    """tf.assign_add on a ps variable under replica_device_setter asks for
    the worker's device; as in TensorFlow, the variable's device wins."""
    spec, _ = cluster
    cs = tf.train.ClusterSpec(spec)
    with tf.device(tf.train.replica_device_setter(cluster=cs, worker_device="/job:worker/task:0")):
        v = gen_ops.variable_v2(shape=[2], dtype=tf.float32, name="shared_v")
        x = gen_ops.placeholder(tf.float32, shape=[2])
        init = gen_ops.assign(v, tf.constant([0.0, 0.0]))
        upd = gen_ops.assign_add(v, x, name="add_to_v")
    assert upd.device == "/job:worker/task:0" and v.device == "/job:ps/task:0"
    with tf.Session("grpc://" + spec["worker"][0]) as sess:
        sess.run(init)
        sess.run(upd, {x: [1.0, 2.0]})
        assert list(sess.run(upd, {x: [1.0, 2.0]})) == [2.0, 4.0]


def test_task_down_raises_unavailable_naming_it(cluster):
    spec, procs = cluster
    with tf.device("/job:ps/task:0"):
        c = gen_ops.mul(tf.constant(2.0), tf.constant(3.0), name="on_ps")
    with tf.Session("grpc://" + spec["worker"][0]) as sess:
        assert sess.run(c) == 6.0
        procs[0].kill()  # the ps goes down
        procs[0].wait(timeout=20)
        with pytest.raises(tf.errors.UnavailableError) as e:
            sess.run(c)
        assert "/job:ps" in str(e.value)


def test_unknown_job_raises_invalid_argument_naming_node():
    server = tf.train.Server.create_local_server()
    try:
        assert server.target.startswith("grpc://127.0.0.1:")
        with tf.Session(server.target) as sess:
            assert sess.run(gen_ops.neg(tf.constant(1.0))) == -1.0
            with tf.device("/job:nope/task:0"):
                c = tf.constant(2.0, name="misplaced")
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(c)
            assert "misplaced" in str(e.value)
    finally:
        server.stop()


def test_server_arguments():
    with pytest.raises(ValueError):
        tf.train.Server({"ps": ["127.0.0.1:1"], "worker": ["127.0.0.1:2"]})  # which job?
    with pytest.raises(ValueError):
        tf.train.Server({"ps": ["127.0.0.1:1"]}, job_name="ps", task_index=3)
    with pytest.raises(ValueError):
        tf.train.Server({"ps": ["127.0.0.1:1"]}, protocol="grpc+verbs")
    port = _flowvm.pick_unused_port()
    s = tf.train.Server({"local": ["127.0.0.1:%d" % port]}, start=False)
    try:
        assert s.server_def.job_name == "local" and s.server_def.task_index == 0
        s.start()
        s.start()
        assert s.target == "grpc://127.0.0.1:%d" % port
    finally:
        s.stop()


def test_tf1_ps_worker_script_trains_on_a_local_cluster():
    """An unmodified TF 1.x ps/worker script (flags, tf.train.Server,
    replica_device_setter, MonitoredTrainingSession) under the runner."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ps_worker_script.py")
    ps, w0, w1 = _ports(3)
    args = ["--ps_hosts=127.0.0.1:%d" % ps, "--worker_hosts=127.0.0.1:%d,127.0.0.1:%d" % (w0, w1)]
    run = [sys.executable, "-m", "flowvm.tf1", script] + args
    procs = []
    try:
        procs.append(subprocess.Popen(run + ["--job_name=ps"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      env=_env()))
        _wait_listening(ps, procs)
        for task in (0, 1):
            procs.append(subprocess.Popen(run + ["--job_name=worker", "--task_index=%d" % task],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env()))
        for task, p in ((0, procs[1]), (1, procs[2])):
            out, err = p.communicate(timeout=180)
            assert p.returncode == 0, err.decode()
            line = [ln for ln in out.decode().splitlines() if ln.startswith("worker %d finished" % task)]
            assert line, out.decode()
            step, loss = int(line[0].split()[5]), float(line[0].split()[7])
            assert step >= 29 and loss < 0.01
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
