"""tf.py_func and tf.numpy_function: a Python function as a node of the
graph (PyFunc / PyFuncStateless; src/kernels/script/).

The function is kept in this process under a token that the node names;
when a step reaches the node, the runtime calls it with the inputs as
NumPy arrays (taking the GIL on the kernel's thread) and converts what it
returns to the node's `Tout` types. It runs only in the process that built
the graph: a GraphDef sent to another process cannot call it. Raising
StopIteration ends a tf.data pipeline (OutOfRangeError); a tf.errors
exception keeps its class; any other exception is an UnknownError with
the Python traceback.
"""
import atexit
import itertools
import threading

import numpy as np

from flowvm import _flowvm
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.ops import gen_ops

__all__ = ["py_func", "numpy_function"]

_lock = threading.Lock()
_functions = {}  # token -> (function, [Tout dtypes])
_ids = itertools.count()


def _register(func, tout):
    token = "pyfunc_%d" % next(_ids)
    with _lock:
        _functions[token] = (func, tout)
    return token


def _to_array(value, dtype, token, index):
    if dtype == dtypes.string:
        arr = np.asarray(value, dtype=object)
        flat = [v.encode("utf-8") if isinstance(v, str) else v for v in arr.reshape(-1)]
        if not all(isinstance(v, bytes) for v in flat):
            raise TypeError("value %d returned by py_func '%s' should be strings (Tout says string)" % (index, token))
        out = np.empty(arr.shape, dtype=object)
        out.reshape(-1)[:] = flat
        return out
    arr = np.asarray(value)
    want = dtype.as_numpy_dtype
    if arr.dtype != want:
        if arr.dtype.kind in "fc" and np.dtype(want).kind in "iub":
            raise TypeError("value %d returned by py_func '%s' is %s, but Tout says %s"
                            % (index, token, arr.dtype, dtype.name))
        arr = arr.astype(want)
    return np.require(arr, requirements="C")  # (ascontiguousarray would make a 0-d array 1-d)


def _call(token, args):
    """Called by the runtime (python/src/py_func.cc) with the GIL held."""
    with _lock:
        entry = _functions.get(token)
    if entry is None:
        raise ValueError("no Python function is registered under '%s' in this process" % token)
    func, tout = entry
    ret = func(*args)
    # As in TensorFlow: a list or tuple is several values, anything else one.
    if ret is None:
        values = []
    elif isinstance(ret, (list, tuple)):
        values = list(ret)
    else:
        values = [ret]
    if len(values) != len(tout):
        raise ValueError("py_func '%s' returned %d values, but Tout lists %d types" % (token, len(values), len(tout)))
    return [_to_array(v, t, token, i) for i, (v, t) in enumerate(zip(values, tout))]


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803 - TensorFlow's name
    """func(*arrays) as a node of the graph.

    Args:
      func: a Python function of NumPy arrays, returning an array (or a
        list of them, or None).
      inp: the input tensors.
      Tout: the type of the result, or a list of types (then the result
        is a list of tensors).
      stateful: False lets the runtime treat the call as a pure function.
      name: a name for the node.
    """
    single = not isinstance(Tout, (list, tuple))
    tout = [dtypes.as_dtype(t).base_dtype for t in ([Tout] if single else Tout)]
    token = _register(func, tout)
    inputs = [ops.convert_to_tensor(x) for x in inp]
    op_fn = gen_ops.py_func if stateful else gen_ops.py_func_stateless
    outs = op_fn(inputs, token=token, Tout=tout, name=name)
    if isinstance(outs, ops.Operation):
        outs = []
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    if single:
        return outs[0] if outs else None
    return outs


def numpy_function(func, inp, Tout, name=None):  # noqa: N803
    """tf.numpy_function: py_func, stateful."""
    return py_func(func, inp, Tout, stateful=True, name=name)


atexit.register(_flowvm._uninstall_py_func_dispatcher)
