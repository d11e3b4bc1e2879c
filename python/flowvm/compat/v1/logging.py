"""tf.logging."""
from flowvm.tf.tf_logging import (DEBUG, INFO, WARN, ERROR, FATAL, log, debug, info, warn, warning, error,  # noqa: F401
                                  fatal, flush, get_verbosity, set_verbosity, vlog, log_every_n, log_first_n,
                                  log_if, TaskLevelStatusMessage, google2_log_prefix)
