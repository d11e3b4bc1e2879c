"""tf.Session and tf.InteractiveSession over flowvm's sessions.

A session runs steps of one Graph, in this process ("") or on a cluster
("grpc://host:port"). Nodes added to the graph after a run are sent before
the next one. Fetches may be nested lists, tuples, namedtuples and dicts of
Tensors, Operations (fetched as None) and names; feeds are NumPy arrays,
Python scalars and lists, converted to the fed tensor's type, and refused
with InvalidArgumentError naming the tensor when the type or shape does not
fit. Runtime errors are tf.errors classes naming the node.
"""
import atexit
import collections
import time
import warnings
import weakref

import numpy as np

from flowvm import _flowvm
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import errors
from flowvm.tf.framework import ops


# Every open session, closed at interpreter exit: that cancels steps other
# (daemon) threads are blocked in, so none is still inside the runtime
# while the interpreter finalizes.
_open_sessions = weakref.WeakSet()


@atexit.register
def _close_open_sessions():
    for s in list(_open_sessions):
        try:
            s.close()
        except Exception:  # exiting anyway; nothing to report to
            pass
    # Threads whose steps were just cancelled must take the GIL back and
    # leave the runtime before the interpreter finalizes (bounded wait).
    deadline = time.monotonic() + 10.0
    while _flowvm.calls_in_flight() > 0 and time.monotonic() < deadline:
        time.sleep(0.001)


class _DeviceAttributes(object):
    def __init__(self, name, device_type, memory_limit_bytes, incarnation):
        self.name = name
        self.device_type = device_type
        self.memory_limit_bytes = memory_limit_bytes
        self.incarnation = incarnation

    def __repr__(self):
        return "_DeviceAttributes(%s, %s, %d, %d)" % (self.name, self.device_type, self.memory_limit_bytes,
                                                      self.incarnation)


def _as_target(target):
    if target is None:
        return ""
    if isinstance(target, bytes):
        target = target.decode("utf-8")
    if hasattr(target, "target") and not isinstance(target, str):  # a tf.train.Server
        target = target.target
    return target


class _Fetches(object):
    """A fetch structure flattened: unique tensor names, target op names,
    and how to rebuild the structure from the fetched values."""

    def __init__(self, graph, fetches):
        self.graph = graph
        self.tensor_names = []
        self.targets = []
        self._index = {}
        self.rebuild = self._build(fetches)

    def _element(self, f):
        g = self.graph
        if isinstance(f, ops.Tensor):
            if f.graph is not g:
                raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (Tensor %s is not an "
                                 "element of this graph.)" % (f, f.name))
            el = f
        elif isinstance(f, ops.Operation):
            if f.graph is not g:
                raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (Operation %s is not an "
                                 "element of this graph.)" % (f, f.name))
            el = f
        else:
            try:
                el = g.as_graph_element(f, allow_tensor=True, allow_operation=True)
            except TypeError:
                raise TypeError("Fetch argument %r has invalid type %r, must be a string or Tensor. (%s)"
                                % (f, type(f), "Can not convert a %s into a Tensor or Operation." % type(f).__name__))
            except (ValueError, KeyError) as e:
                raise ValueError("Fetch argument %r cannot be interpreted as a Tensor. (%s)" % (f, e))
        if not g.is_fetchable(el):
            raise ValueError("Operation %r has been marked as not fetchable." % el.name)
        if isinstance(el, ops.Operation):
            self.targets.append(el.name)
            return lambda values: None
        name = el.name
        i = self._index.get(name)
        if i is None:
            i = len(self.tensor_names)
            self._index[name] = i
            self.tensor_names.append(name)
        return lambda values, i=i: values[i]

    def _build(self, f):
        if f is None:
            raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
        if isinstance(f, (ops.Tensor, ops.Operation, str)):
            return self._element(f)
        if isinstance(f, dict):
            keys = list(f.keys())
            subs = [self._build(f[k]) for k in keys]
            cls = type(f)
            if isinstance(f, collections.defaultdict):
                factory = f.default_factory
                return lambda v: collections.defaultdict(factory, ((k, s(v)) for k, s in zip(keys, subs)))
            if cls is dict or cls is collections.OrderedDict:
                return lambda v: cls((k, s(v)) for k, s in zip(keys, subs))
            return lambda v: cls(**{k: s(v) for k, s in zip(keys, subs)}) if hasattr(cls, "_fields") \
                else cls((k, s(v)) for k, s in zip(keys, subs))
        if isinstance(f, tuple) and hasattr(f, "_fields"):
            subs = [self._build(x) for x in f]
            return lambda v: type(f)(*[s(v) for s in subs])
        if isinstance(f, (list, tuple)):
            subs = [self._build(x) for x in f]
            cls = type(f)
            if cls is list:
                return lambda v: [s(v) for s in subs]
            return lambda v: cls(s(v) for s in subs)
        if hasattr(f, "_as_graph_element"):
            return self._element(f)
        return self._element(f)


def _flat_feed_items(feed_dict):
    """(tensor, value) pairs of a feed_dict whose keys may be (nested) tuples
    of tensors, namedtuples included (an RNN's LSTMStateTuple, or a tuple of
    them), each with a value of the same structure, as TensorFlow feeds them."""
    def pairs(key, value):
        if isinstance(key, tuple):
            parts = list(value)
            if len(parts) != len(key):
                raise ValueError("Could not flatten dictionary. Key had %d elements, but value had %d elements. "
                                 "Key: %s, value: %s." % (len(key), len(parts), key, value))
            for k, v in zip(key, parts):
                for pair in pairs(k, v):
                    yield pair
        else:
            yield key, value
    for key, value in feed_dict.items():
        for pair in pairs(key, value):
            yield pair


def _feed_array(tensor, value):
    """`value` as an array for `tensor`, or InvalidArgumentError naming it."""
    if isinstance(value, ops.Tensor):
        raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed values include Python "
                        "scalars, strings, lists, numpy ndarrays, or TensorHandles. For reference, the tensor "
                        "object was %s which was passed to the feed with key %s." % (value, tensor))
    dtype = tensor.dtype.base_dtype
    node = tensor.op.name

    def refuse(why):
        raise errors.InvalidArgumentError(
            None, tensor.op, "feed for node '%s' (%s), tensor '%s' of type %s: %s"
            % (node, tensor.op.type, tensor.name, dtype.name, why))

    if dtype == dtypes.string:
        arr = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=object)
        if arr.dtype.kind not in ("O", "S", "U"):
            refuse("got a value of NumPy type %s, not strings" % arr.dtype)
    else:
        arr = value if isinstance(value, np.ndarray) else np.asarray(value)
        kind = arr.dtype.kind
        npd = np.dtype(dtype.as_numpy_dtype)
        if arr.dtype != npd:
            ok = False
            if dtype.is_floating:
                ok = kind in ("f", "i", "u", "b")
            elif dtype.is_integer:
                ok = kind in ("i", "u", "b")
                if kind == "f":
                    # Integral floats (labels read as float64) convert as in
                    # TensorFlow; a fraction would be silently truncated.
                    if arr.size and not np.all(np.isfinite(arr) & (np.floor(arr) == arr)):
                        refuse("got %s values with a fractional part, which an integer tensor cannot hold"
                               % arr.dtype.name)
                    ok = True
                if kind in ("i", "u", "f") and arr.size:
                    info = np.iinfo(npd)
                    if arr.min() < info.min or arr.max() > info.max:
                        refuse("values out of the range of %s" % dtype.name)
            elif dtype == dtypes.bool:
                ok = kind == "b"
            elif dtype.is_complex:
                ok = kind in ("c", "f", "i", "u")
            if not ok:
                refuse("got a value of type %s, which does not convert to %s without loss"
                       % (arr.dtype.name if kind != "O" else type(value).__name__, dtype.name))
            arr = arr.astype(npd)
    shape = tensor.shape
    if not shape.is_compatible_with(arr.shape):
        raise errors.InvalidArgumentError(
            None, tensor.op, "Cannot feed value of shape %r for Tensor '%s' (node '%s'), which has shape '%s'"
            % (tuple(arr.shape), tensor.name, node, shape))
    return arr


class BaseSession(object):
    def __init__(self, target="", graph=None, config=None):
        self._graph = graph if graph is not None else ops.get_default_graph()
        if not isinstance(self._graph, ops.Graph):
            raise TypeError("graph must be a tf.Graph, but got %s" % type(self._graph))
        self._target = _as_target(target)
        self._config = config
        cfg = config.SerializeToString() if config is not None else b""
        self._session = _flowvm.Session(self._target, cfg)
        self._edit_mark = self._graph._edit_count
        _open_sessions.add(self)
        self._single = {}  # Tensor/Operation -> (callable, is_op)
        self._callables = {}  # (feeds, fetches, targets) -> callable
        self._default_session_ctx = None
        self._default_graph_ctx = None

    # -- properties
    @property
    def graph(self):
        return self._graph

    @property
    def graph_def(self):
        return self._graph.as_graph_def()

    @property
    def sess_str(self):
        return self._target

    @property
    def _closed(self):
        return self._session is None or self._session.closed

    def list_devices(self):
        if self._session is None:
            raise RuntimeError("Attempted to use a closed Session.")
        return [_DeviceAttributes(*d) for d in self._session.list_devices()]

    def close(self):
        if self._session is not None:
            self._single.clear()
            self._callables.clear()
            s, self._session = self._session, None
            s.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown, or the runtime already gone
            pass

    def as_default(self):
        return ops.default_session(self)

    # -- running
    def _check_edits(self):
        """Refuses to run after a node this session already has was edited
        (a control input, device or attr added after it was run): the
        session could not apply the change, and ignoring it would be wrong."""
        g = self._graph
        synced = self._session.synced
        stale = [node_id for node_id, count in g._edits.items() if count > self._edit_mark and node_id < synced]
        self._edit_mark = g._edit_count
        if stale:
            op = g._op_for_id(stale[0])
            raise errors.FailedPreconditionError(
                None, op, "Operation '%s' was changed (a control input, device or attr) after it was run by this "
                "session, which cannot apply the change; build the graph completely before running it, or run it "
                "in a new session" % op.name)

    def _raise_with_op(self, e):
        if isinstance(e, errors.OpError) and e._op is None:
            name = e.node_name
            if name is not None:
                e._op = self._graph._get_operation_by_name_or_none(name)
        raise e

    def _feeds(self, feed_dict):
        names, values = [], []
        g = self._graph
        for key, value in _flat_feed_items(feed_dict):
            if hasattr(key, "_as_graph_element") and not isinstance(key, ops.Tensor):
                key = key._as_graph_element()
            try:
                t = g.as_graph_element(key, allow_tensor=True, allow_operation=False)
            except (KeyError, ValueError) as e:
                raise TypeError("Cannot interpret feed_dict key as Tensor: " + str(e))
            except TypeError as e:
                raise TypeError("Cannot interpret feed_dict key as Tensor: " + str(e))
            if not g.is_feedable(t):
                raise ValueError("Tensor %s may not be fed." % t)
            names.append(t.name)
            values.append(_feed_array(t, value))
        return names, values

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self._session is None:
            raise RuntimeError("Attempted to use a closed Session.")
        g = self._graph
        if not feed_dict and options is None and run_metadata is None and g._edit_count == self._edit_mark:
            hit = self._single.get(fetches) if isinstance(fetches, (ops.Tensor, ops.Operation)) else None
            if hit is not None:
                try:
                    out = hit[0]()
                except errors.OpError as e:
                    self._raise_with_op(e)
                return None if hit[1] else out[0]
        if g._edit_count != self._edit_mark:
            self._check_edits()
        f = _Fetches(g, fetches)
        if not f.tensor_names and not f.targets:
            # An empty structure (sess.run([]) of an empty collection) runs nothing.
            if feed_dict:
                self._feeds(feed_dict)
            return f.rebuild([])
        names, values = self._feeds(feed_dict) if feed_dict else ([], [])
        if options is None and run_metadata is None:
            key = (tuple(names), tuple(f.tensor_names), tuple(f.targets))
            c = self._callables.get(key)
            if c is None:
                c = self._session.make_callable(g._c, names, f.tensor_names, f.targets)
                self._callables[key] = c
                if not names and isinstance(fetches, (ops.Tensor, ops.Operation)):
                    self._single[fetches] = (c, isinstance(fetches, ops.Operation))
            try:
                out = c(*values)
            except errors.OpError as e:
                self._raise_with_op(e)
            return f.rebuild(out)
        opts = options.SerializeToString() if options is not None else None
        try:
            out, md = self._session.run(g._c, names, values, f.tensor_names, f.targets, opts, run_metadata is not None)
        except errors.OpError as e:
            self._raise_with_op(e)
        if run_metadata is not None and md is not None:
            run_metadata.ParseFromString(md)
        return f.rebuild(out)

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        g = self._graph
        f = _Fetches(g, fetches)
        feed_tensors = [g.as_graph_element(k, allow_tensor=True, allow_operation=False) for k in (feed_list or [])]
        names = [t.name for t in feed_tensors]
        c = self._session.make_callable(g._c, names, f.tensor_names, f.targets)
        rebuild = f.rebuild
        session = self

        def call(*args, **kwargs):
            if len(args) != len(feed_tensors):
                raise TypeError("callable takes %d feed values, got %d" % (len(feed_tensors), len(args)))
            options = kwargs.pop("options", None)
            run_metadata = kwargs.pop("run_metadata", None)
            values = [_feed_array(t, a) for t, a in zip(feed_tensors, args)]
            if options is not None or run_metadata is not None:
                return session.run(fetches, dict(zip(feed_tensors, args)), options=options, run_metadata=run_metadata)
            try:
                out = c(*values)
            except errors.OpError as e:
                session._raise_with_op(e)
            return rebuild(out)

        return call

    def partial_run_setup(self, fetches, feeds=None):
        raise NotImplementedError("partial_run is not supported by flowvm; use run")

    def partial_run(self, handle, fetches, feed_dict=None):
        raise NotImplementedError("partial_run is not supported by flowvm; use run")


class Session(BaseSession):
    """tf.Session(target='', graph=None, config=None)."""

    def __init__(self, target="", graph=None, config=None):
        super(Session, self).__init__(target, graph, config)
        self._context_managers = []

    def __enter__(self):
        g = self._graph.as_default()
        d = self.as_default()
        g.__enter__()
        d.__enter__()
        self._context_managers.append((g, d))
        return self

    def __exit__(self, exec_type, exec_value, exec_tb):
        g, d = self._context_managers.pop()
        d.__exit__(exec_type, exec_value, exec_tb)
        g.__exit__(exec_type, exec_value, exec_tb)
        self.close()
        return False

    @staticmethod
    def reset(target, containers=None, config=None):
        s = _flowvm.Session(_as_target(target), config.SerializeToString() if config is not None else b"")
        try:
            s.reset(list(containers or [""]))
        finally:
            s.close()


class InteractiveSession(BaseSession):
    """A Session that installs itself as the default (for shells)."""

    _active = 0

    def __init__(self, target="", graph=None, config=None):
        super(InteractiveSession, self).__init__(target, graph, config)
        if InteractiveSession._active:
            warnings.warn("An interactive session is already active. This can cause out-of-memory errors in "
                          "some cases. You must explicitly call `InteractiveSession.close()` to release resources "
                          "held by the other session(s).")
        InteractiveSession._active += 1
        self._default_session_ctx = self.as_default()
        self._default_session_ctx.__enter__()
        self._default_graph_ctx = self._graph.as_default()
        self._default_graph_ctx.__enter__()
        self._explicitly_closed = False

    def close(self):
        if self._default_graph_ctx is not None and not self._explicitly_closed:
            self._explicitly_closed = True
            InteractiveSession._active -= 1
            try:
                self._default_graph_ctx.__exit__(None, None, None)
                self._default_session_ctx.__exit__(None, None, None)
            except Exception:
                pass
        super(InteractiveSession, self).close()
