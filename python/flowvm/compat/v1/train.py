"""tf.train."""
# -- clusters and monitored sessions (py-dist) --
from flowvm.tf.server_lib import ClusterSpec, Server  # noqa: F401
from flowvm.tf.device_setter import replica_device_setter  # noqa: F401
