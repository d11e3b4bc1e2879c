"""Runs an unmodified TensorFlow 1.x script on flowvm.

    python3 -m flowvm.tf1 SCRIPT.py [ARGS...]

`import tensorflow as tf`, `import tensorflow.compat.v1 as tf`,
`from tensorflow.compat import v1` and `tensorflow.<namespace>` imports
(tensorflow.train, tensorflow.logging, ...) resolve to flowvm.compat.v1;
TensorFlow's internal paths (`from tensorflow.python.framework import ops`)
to the implementation modules under flowvm.tf, through
flowvm.compat.v1.python.
The script runs as __main__ with sys.argv = [SCRIPT, ARGS...]; the process
exits with the script's status (sys.exit / tf.app.run), 0 when it returns,
and 1 with a traceback when it raises.
"""
import importlib
import importlib.abc
import os
import runpy
import sys
import traceback

from flowvm import _alias

_TARGET = "flowvm.compat.v1"


def _target_name(fullname):
    """The flowvm module a `tensorflow...` module name stands for, or None."""
    if fullname == "tensorflow":
        return _TARGET
    if not fullname.startswith("tensorflow."):
        return None
    rest = fullname[len("tensorflow."):]
    if rest == "compat":
        return "flowvm.compat"
    if rest == "compat.v1" or rest.startswith("compat.v1."):
        rest = rest[len("compat.v1"):].lstrip(".")
    elif rest.startswith("compat."):
        return None  # compat.v2 and friends: TensorFlow 2's API is not offered
    return _TARGET + ("." + rest if rest else "")


class TensorFlowAliasFinder(importlib.abc.MetaPathFinder):
    """A meta-path finder for `tensorflow` and its submodules: each is the
    flowvm module itself (flowvm._alias), so `tensorflow.train` and
    `flowvm.compat.v1.train` are one object."""

    def find_spec(self, fullname, path=None, target=None):
        name = _target_name(fullname)
        if name is None:
            return None
        # None for a module flowvm lacks: `import tensorflow.contrib` fails
        # as a plain ModuleNotFoundError.
        return _alias.alias_spec(fullname, name)


def install():
    """Makes `import tensorflow` resolve to flowvm.compat.v1 in this process."""
    for f in sys.meta_path:
        if isinstance(f, TensorFlowAliasFinder):
            return
    sys.meta_path.insert(0, TensorFlowAliasFinder())
    tf = importlib.import_module(_TARGET)
    compat = importlib.import_module("flowvm.compat")
    sys.modules.setdefault("tensorflow", tf)
    sys.modules.setdefault("tensorflow.compat", compat)
    sys.modules.setdefault("tensorflow.compat.v1", tf)


_USAGE = "usage: python3 -m flowvm.tf1 SCRIPT.py [ARGS...]\n"


def main(argv=None):
    argv = list(sys.argv if argv is None else argv)
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write(_USAGE)
        return 0 if len(argv) >= 2 else 2
    script = argv[1]
    if not os.path.isfile(script):
        sys.stderr.write("flowvm.tf1: no such script: %s\n%s" % (script, _USAGE))
        return 2
    install()
    sys.argv = [script] + argv[2:]
    # As `python3 SCRIPT.py` does: the script's folder comes first on the path.
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = e.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        sys.stderr.write("%s\n" % (code,))
        return 1
    except KeyboardInterrupt:
        traceback.print_exc()
        return 130
    except BaseException:  # noqa: B902 - every failure of the script is its exit status
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
