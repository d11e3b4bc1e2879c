"""tf.train.replica_device_setter: places variables on the ps tasks (round
robin by default) and every other op on the worker device, for
between-graph replication."""
from flowvm.tf.framework.device_spec import DeviceSpec
from flowvm.tf.platform import tf_logging as logging
from flowvm.tf.training.server_lib import ClusterSpec

STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable", "MutableHashTableV2",
                   "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2", "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp",
                   "BoostedTreesQuantileStreamResourceHandleOp", "ResourceConditionalAccumulator",
                   "DecisionTreeResource")


class _RoundRobinStrategy(object):
    """Each ps op goes to the next ps task in turn."""

    def __init__(self, num_tasks):
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op):
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


def _copy(spec):
    return DeviceSpec(spec.job, spec.replica, spec.task, spec.device_type, spec.device_index)


class _ReplicaDeviceChooser(object):
    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op):
        # The device the op was given by inner scopes wins, field by field.
        if not self._merge_devices and op.device:
            return op.device
        current = DeviceSpec.from_string(op.device or "")
        op_type = op.type if hasattr(op, "type") else op.op
        if self._ps_tasks and self._ps_device and op_type in self._ps_ops:
            ps = DeviceSpec.from_string(self._ps_device)
            if ps.job and (not current.job or current.job == ps.job):
                ps = _copy(ps)
                ps.task = self._ps_strategy(op)
            return ps.make_merged_spec(current).to_string()
        worker = DeviceSpec.from_string(self._worker_device or "")
        return worker.make_merged_spec(current).to_string()


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker", merge_devices=True,
                          cluster=None, ps_ops=None, ps_strategy=None):
    """A device function for tf.device(): ops of the types in ps_ops (the
    variables) go to ps_device's tasks as ps_strategy picks (round robin),
    the rest to worker_device. With a cluster, ps_tasks is the ps job's size;
    returns None when there are no ps tasks."""
    if cluster is not None:
        spec = cluster.as_dict() if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster).as_dict()
        ps_job = DeviceSpec.from_string(ps_device).job
        if ps_job not in spec or spec[ps_job] is None:
            return None
        ps_tasks = len(spec[ps_job])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        logging.warning("DEPRECATION NOTE: replica_device_setter(merge_devices=False) is deprecated; the devices "
                        "of inner scopes win whole instead of field by field.")
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    return _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices, ps_ops,
                                 ps_strategy).device_function
