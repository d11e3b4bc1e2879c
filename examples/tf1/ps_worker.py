"""Between-graph replicated training on a parameter server and workers, as
TensorFlow 1.x's distributed guide writes it: every task runs this script
with its job and index; the ps serves the variables, each worker builds
the graph with replica_device_setter and trains through a
MonitoredTrainingSession (only the import differs).

    python3 ps_worker.py --ps_hosts=127.0.0.1:2222 --worker_hosts=127.0.0.1:2223,127.0.0.1:2224 \
        --job_name=worker --task_index=0
"""
import argparse
import sys

import numpy as np

import flowvm.compat.v1 as tf

FLAGS = None


def main(_):
    ps_hosts = FLAGS.ps_hosts.split(",")
    worker_hosts = FLAGS.worker_hosts.split(",")
    cluster = tf.train.ClusterSpec({"ps": ps_hosts, "worker": worker_hosts})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    if FLAGS.job_name == "ps":
        server.join()
        return

    # A linear model y = x W + b learned from a fixed synthetic problem.
    rng = np.random.RandomState(FLAGS.task_index)
    true_w = np.arange(1, 11, dtype=np.float32).reshape(10, 1) / 10.0
    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % FLAGS.task_index,
                                                  cluster=cluster)):
        x = tf.placeholder(tf.float32, [None, 10])
        y = tf.placeholder(tf.float32, [None, 1])
        w = tf.Variable(tf.zeros([10, 1]), name="w")
        b = tf.Variable(tf.zeros([1]), name="b")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        global_step = tf.train.get_or_create_global_step()
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)

    hooks = [tf.train.StopAtStepHook(last_step=FLAGS.steps)]
    # Each worker talks to the ps and itself only, so a worker that finishes
    # early does not hold the others up.
    config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % FLAGS.task_index])
    last_loss = None
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=(FLAGS.task_index == 0),
                                           hooks=hooks, config=config) as mon_sess:
        while not mon_sess.should_stop():
            xs = rng.rand(32, 10).astype(np.float32)
            ys = xs.dot(true_w) + 0.5
            _, last_loss = mon_sess.run([train_op, loss], feed_dict={x: xs, y: ys})
    print("worker %d done, last loss %.5f" % (FLAGS.task_index, last_loss if last_loss is not None else -1))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--ps_hosts", type=str, default="")
    parser.add_argument("--worker_hosts", type=str, default="")
    parser.add_argument("--job_name", type=str, default="")
    parser.add_argument("--task_index", type=int, default=0)
    parser.add_argument("--steps", type=int, default=300)
    FLAGS, unparsed = parser.parse_known_args()
    tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
