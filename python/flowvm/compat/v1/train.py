"""tf.train."""
from flowvm.tf.framework.graph_io import write_graph  # noqa: F401
from flowvm.tf.training.optimizer import Optimizer  # noqa: F401
from flowvm.tf.training.gradient_descent import GradientDescentOptimizer  # noqa: F401
from flowvm.tf.training.momentum import MomentumOptimizer  # noqa: F401
from flowvm.tf.training.adam import AdamOptimizer  # noqa: F401
from flowvm.tf.training.adagrad import AdagradOptimizer  # noqa: F401
from flowvm.tf.training.rmsprop import RMSPropOptimizer  # noqa: F401
from flowvm.tf.training.training_util import (  # noqa: F401
    get_global_step, create_global_step, get_or_create_global_step, global_step, assert_global_step)
from flowvm.tf.training.learning_rate_decay import (  # noqa: F401
    exponential_decay, inverse_time_decay, natural_exp_decay, polynomial_decay, piecewise_constant)
from flowvm.tf.training.saver import (  # noqa: F401
    Saver, latest_checkpoint, get_checkpoint_state, update_checkpoint_state, checkpoint_exists,
    get_checkpoint_mtimes, remove_checkpoint, export_meta_graph, import_meta_graph, SaverDef)
from flowvm.tf.training.checkpoint_management import CheckpointState  # noqa: F401
from flowvm.tf.training.server_lib import ClusterSpec, Server  # noqa: F401
from flowvm.tf.training.device_setter import replica_device_setter  # noqa: F401
from flowvm.tf.training.monitored_session import (  # noqa: F401
    MonitoredTrainingSession, MonitoredSession, SingularMonitoredSession, Scaffold, SessionCreator,
    ChiefSessionCreator, WorkerSessionCreator, SessionManager)
from flowvm.tf.training.session_run_hook import (  # noqa: F401
    SessionRunHook, SessionRunArgs, SessionRunContext, SessionRunValues)
from flowvm.tf.training.basic_session_run_hooks import (  # noqa: F401
    StopAtStepHook, NanTensorHook, NanLossDuringTrainingError, CheckpointSaverHook, CheckpointSaverListener,
    SummarySaverHook, LoggingTensorHook, StepCounterHook, FeedFnHook, FinalOpsHook, SecondOrStepTimer)
from flowvm.tf.training.coordinator import Coordinator, LooperThread  # noqa: F401
from flowvm.tf.training.queue_runner import QueueRunner, add_queue_runner, start_queue_runners  # noqa: F401
from flowvm.tf.training.input import (  # noqa: F401
    batch, shuffle_batch, limit_epochs, input_producer, string_input_producer, range_input_producer,
    slice_input_producer)
