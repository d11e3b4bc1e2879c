"""tf.train.ClusterSpec and tf.train.Server: a flowvm cluster task in this
process (the C++ server behind _flowvm.Server), so TensorFlow 1.x's
ps/worker scripts start their tasks as they do under TensorFlow."""
import json
import os
import tempfile

from flowvm import _flowvm


class ClusterSpec(object):
    """The jobs of a cluster and their tasks' addresses.

    ClusterSpec({"ps": ["host:port"], "worker": {0: "host:port", 2: ...}})
    also takes another ClusterSpec, or a ClusterDef-like object (.job, each
    with .name and a .tasks mapping of index to address)."""

    def __init__(self, cluster):
        self._jobs = {}
        if isinstance(cluster, ClusterSpec):
            for job, tasks in cluster._jobs.items():
                self._jobs[job] = dict(tasks)
        elif isinstance(cluster, dict):
            for job, tasks in cluster.items():
                if not isinstance(job, str):
                    raise TypeError("Key of cluster_spec must be a string; got %r" % (job,))
                if isinstance(tasks, (list, tuple)):
                    self._jobs[job] = {i: str(a) for i, a in enumerate(tasks)}
                elif isinstance(tasks, dict):
                    parsed = {}
                    for i, a in tasks.items():
                        try:
                            parsed[int(i)] = str(a)
                        except (TypeError, ValueError):
                            raise TypeError("Task index must be an integer; job '%s' has %r" % (job, i))
                    self._jobs[job] = parsed
                else:
                    raise TypeError("The tasks for job %r must be a list or a dictionary from integers to "
                                    "strings." % job)
        elif hasattr(cluster, "job"):
            for j in cluster.job:
                self._jobs[j.name] = {int(i): str(a) for i, a in dict(j.tasks).items()}
        else:
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to lists of network "
                            "addresses, or a `ClusterDef`-like object (got %r)" % type(cluster).__name__)
        for job, tasks in self._jobs.items():
            for i in tasks:
                if i < 0:
                    raise ValueError("Task index must be non-negative; job '%s' has %d" % (job, i))

    def __bool__(self):
        return bool(self._jobs)

    __nonzero__ = __bool__

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self._jobs == other._jobs

    def __ne__(self, other):
        return not self == other

    def __repr__(self):
        return "ClusterSpec(%r)" % self.as_dict()

    @property
    def jobs(self):
        return list(self._jobs)

    def as_dict(self):
        """Each job's tasks as a list when their indices are 0..n-1, else as
        a dict from index to address (as TensorFlow's)."""
        out = {}
        for job, tasks in self._jobs.items():
            idx = sorted(tasks)
            if idx == list(range(len(idx))):
                out[job] = [tasks[i] for i in idx]
            else:
                out[job] = {i: tasks[i] for i in idx}
        return out

    def as_cluster_def(self):
        raise NotImplementedError("flowvm has no ClusterDef protocol buffer; use ClusterSpec.as_dict()")

    def _job(self, job_name):
        try:
            return self._jobs[job_name]
        except KeyError:
            raise ValueError("No such job in cluster: %r" % (job_name,))

    def num_tasks(self, job_name):
        return len(self._job(job_name))

    def task_indices(self, job_name):
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index):
        tasks = self._job(job_name)
        try:
            return tasks[task_index]
        except KeyError:
            raise ValueError("No task with index %r in job %r" % (task_index, job_name))

    def job_tasks(self, job_name):
        """The addresses of the job's tasks, indexed by task (None in gaps)."""
        tasks = self._job(job_name)
        out = [None] * (max(tasks) + 1 if tasks else 0)
        for i, a in tasks.items():
            out[i] = a
        return out

    def _to_json(self):
        return json.dumps({job: {str(i): a for i, a in tasks.items()} for job, tasks in self._jobs.items()})


def _config_cpu_count(config):
    if config is None:
        return 1
    counts = getattr(config, "device_count", None)
    if counts is not None and "CPU" in counts and counts["CPU"] > 0:
        return int(counts["CPU"])
    return 1


def _config_threads(config):
    if config is None:
        return 0
    return max(int(getattr(config, "intra_op_parallelism_threads", 0) or 0),
               int(getattr(config, "inter_op_parallelism_threads", 0) or 0))


class Server(object):
    """One task of a cluster, served from this process.

    Server(server_or_cluster_def, job_name=None, task_index=None,
    protocol=None, config=None, start=True). server_or_cluster_def is a
    ClusterSpec, a dict, or a ServerDef-like object (.cluster, .job_name,
    .task_index). Graphs run on it may read and write files under
    `allowed_dirs` (flowvm's own argument; default: the working directory
    and the temporary directory), PermissionDeniedError elsewhere."""

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None, config=None,
                 start=True, allowed_dirs=None):
        if protocol not in (None, "grpc"):
            raise ValueError("flowvm servers speak gRPC only; protocol %r is not supported" % (protocol,))
        if hasattr(server_or_cluster_def, "cluster") and hasattr(server_or_cluster_def, "job_name"):
            sd = server_or_cluster_def
            cluster = ClusterSpec(sd.cluster)
            job_name = job_name or sd.job_name
            task_index = sd.task_index if task_index is None else task_index
            config = config if config is not None else getattr(sd, "default_session_config", None)
        else:
            cluster = ClusterSpec(server_or_cluster_def)
        if job_name is None:
            if len(cluster.jobs) != 1:
                raise ValueError("Must specify an explicit `job_name` (the cluster has jobs %s)" % cluster.jobs)
            job_name = cluster.jobs[0]
        if task_index is None:
            indices = cluster.task_indices(job_name)
            if len(indices) != 1:
                raise ValueError("Must specify an explicit `task_index` (job %r has %d tasks)"
                                 % (job_name, len(indices)))
            task_index = indices[0]
        cluster.task_address(job_name, task_index)  # ValueError if absent
        if allowed_dirs is None:
            allowed_dirs = [os.getcwd(), tempfile.gettempdir()]
        self._cluster_spec = cluster
        self._job_name = job_name
        self._task_index = int(task_index)
        self._config = config
        self._server = _flowvm.Server(cluster._to_json(), job_name, self._task_index,
                                      cpu_devices=_config_cpu_count(config), num_threads=_config_threads(config),
                                      allowed_dirs=list(allowed_dirs), start=False)
        self._started = False
        if start:
            self.start()

    def start(self):
        """Starts listening on the task's address (UnavailableError if it is
        taken); calling it again does nothing."""
        if not self._started:
            self._server.start()
            self._started = True

    def join(self):
        """Blocks until the server stops."""
        self._server.join()

    def stop(self):
        """flowvm's addition: stops the server now (TensorFlow's servers stop
        with their process)."""
        self._server.stop()

    @property
    def target(self):
        return self._server.target

    @property
    def server_def(self):
        return _ServerDef(self._cluster_spec, self._job_name, self._task_index, self._config)

    @staticmethod
    def create_local_server(config=None, start=True):
        """A single-task cluster ("local" job) on a free loopback port."""
        port = _flowvm.pick_unused_port()
        return Server({"local": ["127.0.0.1:%d" % port]}, job_name="local", task_index=0, config=config,
                      start=start)


class _ServerDef(object):
    def __init__(self, cluster, job_name, task_index, config):
        self.cluster = cluster
        self.job_name = job_name
        self.task_index = task_index
        self.protocol = "grpc"
        self.default_session_config = config
