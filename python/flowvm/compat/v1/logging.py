"""tf.logging."""
from flowvm.tf.platform.tf_logging import (  # noqa: F401
    DEBUG, INFO, WARN, ERROR, FATAL, log, debug, info, warn, warning, error, fatal, flush, get_verbosity,
    set_verbosity, vlog, log_every_n, log_first_n, log_if, TaskLevelStatusMessage, google2_log_prefix)
