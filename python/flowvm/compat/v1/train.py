"""tf.train."""
from flowvm.tf.optimizer import Optimizer  # noqa: F401
from flowvm.tf.gradient_descent import GradientDescentOptimizer  # noqa: F401
from flowvm.tf.momentum import MomentumOptimizer  # noqa: F401
from flowvm.tf.adam import AdamOptimizer  # noqa: F401
from flowvm.tf.adagrad import AdagradOptimizer  # noqa: F401
from flowvm.tf.rmsprop import RMSPropOptimizer  # noqa: F401
from flowvm.tf.training_util import (get_global_step, create_global_step, get_or_create_global_step,  # noqa: F401
                                     global_step, assert_global_step)
from flowvm.tf.learning_rate_decay import (exponential_decay, inverse_time_decay, natural_exp_decay,  # noqa: F401
                                           polynomial_decay, piecewise_constant)
from flowvm.tf.saver import (Saver, latest_checkpoint, get_checkpoint_state, update_checkpoint_state,  # noqa: F401
                             checkpoint_exists, get_checkpoint_mtimes, remove_checkpoint, export_meta_graph,
                             import_meta_graph, SaverDef)
from flowvm.tf.checkpoint_management import CheckpointState  # noqa: F401
# -- clusters and monitored sessions (py-dist) --
from flowvm.tf.server_lib import ClusterSpec, Server  # noqa: F401
from flowvm.tf.device_setter import replica_device_setter  # noqa: F401
from flowvm.tf.importer import write_graph  # noqa: F401,E402
from flowvm.tf.monitored_session import (MonitoredTrainingSession, MonitoredSession,  # noqa: F401,E402
                                         SingularMonitoredSession, Scaffold, SessionCreator, ChiefSessionCreator,
                                         WorkerSessionCreator, SessionManager)
from flowvm.tf.session_run_hook import (SessionRunHook, SessionRunArgs, SessionRunContext,  # noqa: F401,E402
                                        SessionRunValues)
from flowvm.tf.basic_session_run_hooks import (StopAtStepHook, NanTensorHook, NanLossDuringTrainingError,  # noqa: F401,E402
                                               CheckpointSaverHook, CheckpointSaverListener, SummarySaverHook,
                                               LoggingTensorHook, StepCounterHook, FeedFnHook, FinalOpsHook,
                                               SecondOrStepTimer)
