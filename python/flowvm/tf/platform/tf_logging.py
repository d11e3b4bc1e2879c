"""tf.logging: TensorFlow 1.x's logging functions over Python's logging
module (logger "tensorflow"; WARN by default, as TensorFlow's)."""
import logging as _logging
import sys
import time

DEBUG = _logging.DEBUG
INFO = _logging.INFO
WARN = _logging.WARN
ERROR = _logging.ERROR
FATAL = _logging.FATAL

_logger = None


def get_logger():
    global _logger
    if _logger is None:
        logger = _logging.getLogger("tensorflow")
        if not logger.handlers and not _logging.getLogger().handlers:
            handler = _logging.StreamHandler(sys.stderr)
            handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT))
            logger.addHandler(handler)
        if logger.level == _logging.NOTSET:
            logger.setLevel(WARN)
        _logger = logger
    return _logger


def log(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    get_logger().debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    get_logger().info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    get_logger().warning(msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    get_logger().error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    get_logger().fatal(msg, *args, **kwargs)


def flush():
    for h in get_logger().handlers:
        h.flush()


def get_verbosity():
    return get_logger().getEffectiveLevel()


def set_verbosity(v):
    get_logger().setLevel(v)


def vlog(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


_counts = {}


def _caller_key():
    f = sys._getframe(2)
    return (f.f_code.co_filename, f.f_lineno)


def log_every_n(level, msg, n, *args):
    key = _caller_key()
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    if count % max(int(n), 1) == 0:
        log(level, msg, *args)


def log_first_n(level, msg, n, *args):
    key = _caller_key()
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    if count < n:
        log(level, msg, *args)


def log_if(level, msg, condition, *args):
    if condition:
        log(level, msg, *args)


def TaskLevelStatusMessage(msg):  # noqa: N802 - TensorFlow's name
    error(msg)


def google2_log_prefix(level, timestamp=None, file_and_line=None):
    """The glog-style prefix TensorFlow 1.x offers ("I0102 15:04:05.000000 ...")."""
    now = time.time() if timestamp is None else timestamp
    t = time.localtime(now)
    letter = {DEBUG: "D", INFO: "I", WARN: "W", ERROR: "E", FATAL: "F"}.get(level, "I")
    return "%s%02d%02d %02d:%02d:%02d.%06d] " % (letter, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                                                   int((now - int(now)) * 1e6))
