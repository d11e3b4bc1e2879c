"""A TF 1.x between-graph replication script (ps/worker), run by test_cluster.py
under `python3 -m flowvm.tf1` (import tensorflow as written)."""
import sys
import numpy as np
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_string("ps_hosts", "", "comma-separated ps host:port")
flags.DEFINE_string("worker_hosts", "", "comma-separated worker host:port")
flags.DEFINE_string("job_name", "", "ps or worker")
flags.DEFINE_integer("task_index", 0, "task index")
flags.DEFINE_integer("steps", 30, "global steps to train")
FLAGS = flags.FLAGS


def main(_):
    cluster = tf.train.ClusterSpec({"ps": FLAGS.ps_hosts.split(","), "worker": FLAGS.worker_hosts.split(",")})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    if FLAGS.job_name == "ps":
        print("ps ready", flush=True)
        server.join()
        return 0
    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % FLAGS.task_index,
                                                  cluster=cluster)):
        global_step = tf.train.get_or_create_global_step()
        w = tf.Variable(0.0, name="w")
        b = tf.Variable(0.0, name="b")
        xs = np.linspace(-1, 1, 32).astype(np.float32)
        x = tf.constant(xs)
        y = tf.constant(3.0 * xs + 0.5)
        pred = tf.raw_ops.Add(x=tf.raw_ops.Mul(x=w, y=x), y=b)
        err = tf.raw_ops.Sub(x=pred, y=y)
        loss = tf.raw_ops.Mean(tf.raw_ops.Mul(x=err, y=err), tf.constant([0]))
        train_op = tf.train.GradientDescentOptimizer(0.2).minimize(loss, global_step=global_step)
    hooks = [tf.train.StopAtStepHook(last_step=FLAGS.steps)]
    # Each worker talks to the ps and itself only, so it need not wait for the others.
    config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % FLAGS.task_index])
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=(FLAGS.task_index == 0),
                                           hooks=hooks, max_wait_secs=60, config=config) as sess:
        while not sess.should_stop():
            _, step, l = sess.run([train_op, global_step, loss])
    print("worker %d finished at step %d loss %.5f" % (FLAGS.task_index, step, l), flush=True)
    return 0


if __name__ == "__main__":
    tf.app.run()
