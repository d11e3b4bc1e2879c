"""Writes op-graph cases: small GraphDefs in TensorFlow's text format whose
inputs are Const nodes, plus the values NumPy computes for their outputs.

tests/op_graphs_test.cc runs every case through `flowvm run` and compares
what it prints to .npy files with the expected values, so each op is checked
end to end: TensorFlow's attrs in a GraphDef, validation, shape inference,
the kernel, fetching.

A case is a directory <family>/<case>/ holding
  graph.pbtxt          the GraphDef
  fetches.txt          one tensor name per line ("node" or "node:port")
  expected_<i>.npy     the value expected for fetch i
  tolerance.txt        optional: "rtol atol" for floating-point fetches
  init.txt             optional: nodes run once first, in a step of their
                       own (`flowvm run --init`), e.g. variable initializers
  repeat.txt           optional: run the fetch step this many times
                       (`--repeat`); expected values are the last step's
  error.txt            instead of expected values: the run must fail, and
                       every line of this file must appear in its stderr
                       (fetches.txt still names what the run fetches)

Scripts gen_<family>.py build cases with this module and are run with
Debian's Python (it has NumPy):
    /usr/bin/python3 tests/data/op_graphs/gen_<family>.py
Each script rewrites only its own family directory.

Example:
    g = Graph()
    x = g.const("x", np.array([1, -2], np.float32))
    g.node("y", "Abs", [x], T=np.float32)
    fam = Family("cwise")
    fam.case("abs_float", g, fetches={"y": np.abs(np.array([1, -2], np.float32))})
"""
import os
import shutil

import numpy as np
from numpy.lib import format as npformat

HERE = os.path.dirname(os.path.abspath(__file__))

# DataType enum values of types.proto, by NumPy dtype.
_DT = {
    np.dtype(np.float32): "DT_FLOAT",
    np.dtype(np.float64): "DT_DOUBLE",
    np.dtype(np.int32): "DT_INT32",
    np.dtype(np.uint8): "DT_UINT8",
    np.dtype(np.int16): "DT_INT16",
    np.dtype(np.int8): "DT_INT8",
    np.dtype(np.complex64): "DT_COMPLEX64",
    np.dtype(np.int64): "DT_INT64",
    np.dtype(np.bool_): "DT_BOOL",
    np.dtype(np.uint16): "DT_UINT16",
    np.dtype(np.complex128): "DT_COMPLEX128",
    np.dtype(np.float16): "DT_HALF",
    np.dtype(np.uint32): "DT_UINT32",
    np.dtype(np.uint64): "DT_UINT64",
}


class DType:
    """A DataType by its enum name, for types NumPy lacks: DType("DT_BFLOAT16")."""

    def __init__(self, name):
        self.name = name


def dtype_name(t):
    if isinstance(t, DType):
        return t.name
    if isinstance(t, str):
        return t if t.startswith("DT_") else "DT_" + t.upper()
    return _DT[np.dtype(t)]


class Quantized:
    """Values of a quantized type: Quantized("DT_QUINT8", np.array(..., np.uint8)).
    The array holds the raw integers, of the matching width."""

    def __init__(self, dtype_name, values):
        self.dtype_name = dtype_name
        self.values = np.asarray(values)


class BFloat16:
    """float32 values stored as bfloat16 (round to nearest even)."""

    def __init__(self, values):
        f = np.ascontiguousarray(np.asarray(values, np.float32))
        bits = f.view(np.uint32).astype(np.uint64)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        self.raw = rounded.astype(np.uint16).reshape(f.shape)


class Shape:
    """A shape attr; None or -1 for an unknown dimension, dims=None for unknown rank."""

    def __init__(self, dims):
        self.dims = dims


class Func:
    """A func attr: a function of the graph's library, with attrs of its own."""

    def __init__(self, name, **attrs):
        self.name = name
        self.attrs = attrs


class AttrRef:
    """Inside a Function's body: the value of the function's attr `name`
    (TensorFlow's attr placeholder)."""

    def __init__(self, name):
        self.name = name


class Tensor:
    """A tensor attr (or Const value) given explicitly."""

    def __init__(self, value):
        self.value = value


def _escape(data):
    return "".join("\\%03o" % b for b in data)


def _tensor_proto(value, indent):
    pad = " " * indent
    if isinstance(value, BFloat16):
        dt, arr, raw = "DT_BFLOAT16", value.raw, value.raw.tobytes()
    elif isinstance(value, Quantized):
        dt, arr = value.dtype_name, value.values
        raw = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
    else:
        arr = np.asarray(value)
        if arr.dtype.kind in "US":
            lines = [pad + "dtype: DT_STRING"]
            lines.append(pad + "tensor_shape {" + "".join(" dim { size: %d }" % d for d in arr.shape) + " }")
            for s in arr.reshape(-1):
                b = s.encode() if isinstance(s, str) else bytes(s)
                lines.append(pad + 'string_val: "%s"' % _escape(b))
            return "\n".join(lines)
        dt = dtype_name(arr.dtype)
        raw = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<")).tobytes()
    lines = [pad + "dtype: " + dt]
    lines.append(pad + "tensor_shape {" + "".join(" dim { size: %d }" % d for d in arr.shape) + " }")
    if raw:
        lines.append(pad + 'tensor_content: "%s"' % _escape(raw))
    return "\n".join(lines)


def _shape_proto(shape):
    if shape.dims is None:
        return "unknown_rank: true"
    return " ".join("dim { size: %d }" % (-1 if d is None else d) for d in shape.dims)


def _is_type(v):
    return isinstance(v, (DType, np.dtype)) or (isinstance(v, type) and issubclass(v, np.generic))


def _attr(value, indent):
    pad = " " * indent
    if isinstance(value, bool) or isinstance(value, np.bool_):
        return pad + "b: " + ("true" if value else "false")
    if isinstance(value, (int, np.integer)):
        return pad + "i: %d" % value
    if isinstance(value, (float, np.floating)):
        return pad + "f: %r" % float(value)
    if isinstance(value, str):
        return pad + 's: "%s"' % _escape(value.encode())
    if isinstance(value, bytes):
        return pad + 's: "%s"' % _escape(value)
    if _is_type(value):
        return pad + "type: " + dtype_name(value)
    if isinstance(value, Shape):
        return pad + "shape { " + _shape_proto(value) + " }"
    if isinstance(value, Tensor):
        return pad + "tensor {\n" + _tensor_proto(value.value, indent + 2) + "\n" + pad + "}"
    if isinstance(value, Func):
        return pad + "func " + _func(value)
    if isinstance(value, AttrRef):
        return pad + 'placeholder: "%s"' % value.name
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, Func) for v in value):
        return pad + "list { " + " ".join("func " + _func(v) for v in value) + " }"
    if isinstance(value, (list, tuple)):
        items = []
        for v in value:
            if isinstance(v, bool):
                items.append("b: " + ("true" if v else "false"))
            elif isinstance(v, (int, np.integer)):
                items.append("i: %d" % v)
            elif isinstance(v, (float, np.floating)):
                items.append("f: %r" % float(v))
            elif isinstance(v, str):
                items.append('s: "%s"' % _escape(v.encode()))
            elif _is_type(v):
                items.append("type: " + dtype_name(v))
            elif isinstance(v, Shape):
                items.append("shape { " + _shape_proto(v) + " }")
            else:
                raise TypeError("unsupported list attr element %r" % (v,))
        return pad + "list { " + " ".join(items) + " }"
    raise TypeError("unsupported attr value %r" % (value,))


def _func(f):
    body = ['name: "%s"' % f.name]
    for key in sorted(f.attrs):
        body.append('attr { key: "%s" value { %s } }' % (key, _attr(f.attrs[key], 0)))
    return "{ " + " ".join(body) + " }"


class Graph:
    def __init__(self):
        self._nodes = []
        self._functions = []
        self._gradients = []
        self._node_field = "node"

    def function(self, fn):
        """Adds a Function to the graph's library."""
        self._functions.append(fn)

    def gradient(self, function_name, gradient_func):
        self._gradients.append((function_name, gradient_func))

    def node(self, name, op, inputs=(), device=None, **attrs):
        """Adds a node; returns its name. Attr values: int, float, bool, str,
        NumPy scalar types / DType (type attrs), Shape, Tensor, Func, lists."""
        lines = [self._node_field + " {", '  name: "%s"' % name, '  op: "%s"' % op]
        for i in inputs:
            lines.append('  input: "%s"' % i)
        if device:
            lines.append('  device: "%s"' % device)
        for key in sorted(attrs):
            lines.append("  attr {")
            lines.append('    key: "%s"' % key)
            lines.append("    value {")
            lines.append(_attr(attrs[key], 6))
            lines.append("    }")
            lines.append("  }")
        lines.append("}")
        self._nodes.append("\n".join(lines))
        return name

    def const(self, name, value):
        """A Const node holding `value` (NumPy array, BFloat16 or Quantized)."""
        if isinstance(value, BFloat16):
            dt = DType("DT_BFLOAT16")
        elif isinstance(value, Quantized):
            dt = DType(value.dtype_name)
        else:
            value = np.asarray(value)
            dt = DType("DT_STRING") if value.dtype.kind in "US" else value.dtype
        return self.node(name, "Const", value=Tensor(value), dtype=dt)

    def text(self):
        text = "\n".join(self._nodes) + "\nversions {\n  producer: 1087\n}\n"
        if self._functions or self._gradients:
            text += "library {\n"
            for fn in self._functions:
                text += fn.text()
            for f, g in self._gradients:
                text += 'gradient { function_name: "%s" gradient_func: "%s" }\n' % (f, g)
            text += "}\n"
        return text


class Function(Graph):
    """A FunctionDef for a graph's library, built like a Graph. Inputs of
    body nodes name tensors TensorFlow's way: an argument by its name, a
    node's output as "node:out_arg:index".

        f = Function("Square", inputs=[("x", np.float32)], outputs=[("y", np.float32)])
        # a list argument: (name, type attr, number attr), e.g. ("xs", "T", "N")
        f.node("sq", "Mul", ["x", "x"], T=np.float32)
        f.ret("y", "sq:z:0")
        g.function(f)
    """

    def __init__(self, name, inputs, outputs, attrs=()):
        super().__init__()
        self._node_field = "node_def"
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs  # [(name, type string)], e.g. ("T", "type")
        self.rets = {}

    def ret(self, output, tensor):
        self.rets[output] = tensor

    def _arg(self, name, t, number_attr=None):
        n = ' number_attr: "%s"' % number_attr if number_attr else ""
        if isinstance(t, str) and not t.startswith("DT_"):
            return '{ name: "%s" type_attr: "%s"%s }' % (name, t, n)
        return '{ name: "%s" type: %s%s }' % (name, dtype_name(t), n)

    def text(self):
        sig = ['name: "%s"' % self.name]
        sig += ["input_arg " + self._arg(*a) for a in self.inputs]
        sig += ["output_arg " + self._arg(*a) for a in self.outputs]
        sig += ['attr { name: "%s" type: "%s" }' % a for a in self.attrs]
        lines = ["function {", "signature { " + " ".join(sig) + " }"]
        lines += self._nodes
        for out in sorted(self.rets):
            lines.append('ret { key: "%s" value: "%s" }' % (out, self.rets[out]))
        lines.append("}\n")
        return "\n".join(lines)


def _save_npy(path, arr):
    # np.ascontiguousarray would turn a 0-d array (a scalar) into shape [1].
    arr = np.require(np.asarray(arr), requirements="C")
    with open(path, "wb") as f:
        npformat.write_array(f, arr, allow_pickle=False)


class Family:
    """The cases of one gen_<family>.py script; starts by deleting the
    family's directory so removed cases do not linger."""

    def __init__(self, name):
        self.dir = os.path.join(HERE, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.names = set()

    def case(self, name, graph, fetches=None, error=None, tolerance=None, init=(), repeat=1):
        """fetches: {tensor name: expected NumPy value}, in fetch order; for
        an error case, just the list of tensor names to fetch.
        error: a string or list of strings the failing run's stderr must
        contain (the error code as printed, e.g. "InvalidArgument", and
        "node 'name' (Op)")."""
        assert name not in self.names, "duplicate case " + name
        assert fetches, name + ": give the fetches"
        self.names.add(name)
        d = os.path.join(self.dir, name)
        os.makedirs(d)
        with open(os.path.join(d, "graph.pbtxt"), "w") as f:
            f.write(graph.text())
        with open(os.path.join(d, "fetches.txt"), "w") as f:
            f.write("\n".join(fetches) + "\n")
        if init:
            with open(os.path.join(d, "init.txt"), "w") as f:
                f.write("\n".join(init) + "\n")
        if repeat != 1:
            with open(os.path.join(d, "repeat.txt"), "w") as f:
                f.write("%d\n" % repeat)
        if error is not None:
            lines = [error] if isinstance(error, str) else list(error)
            with open(os.path.join(d, "error.txt"), "w") as f:
                f.write("\n".join(lines) + "\n")
            return
        for i, value in enumerate(fetches.values()):
            _save_npy(os.path.join(d, "expected_%d.npy" % i), np.asarray(value))
        if tolerance is not None:
            with open(os.path.join(d, "tolerance.txt"), "w") as f:
                f.write("%r %r\n" % tolerance)
