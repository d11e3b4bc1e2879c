"""Graph, Operation and Tensor: TensorFlow 1.x's graph-building objects.

The nodes live in a C++ graph (_flowvm.Graph), which validates each one as
it is added (op, attrs, input types) and infers its static shapes; this
module keeps what TensorFlow's Python layer keeps: names and name scopes,
the device, control-dependency and colocation stacks, collections, and the
default-graph stack.
"""
import collections
import contextlib
import re
import threading


from flowvm import _flowvm
from flowvm.tf.framework import device as pydev
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import errors
from flowvm.tf.framework import tensor_shape
from flowvm.tf.framework.device_spec import DeviceSpec
from flowvm.tf.ops import control_flow_util


class GraphKeys(object):
    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    VARIABLES = GLOBAL_VARIABLES


class GraphConstructionError(errors.InvalidArgumentError, ValueError, TypeError):
    """A node the graph refuses (bad types, shapes or attrs, a bad name). It
    is a ValueError and a TypeError, as TensorFlow raises one or the other
    at graph-construction time, and an InvalidArgumentError naming the node."""


_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_./>-]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_./>-]*$")


# ---- op definitions (read once from the registry) ---------------------------
_op_defs = None


def get_op_def(op_type):
    global _op_defs
    if _op_defs is None:
        from flowvm import op_def_pb2
        lst = op_def_pb2.OpList()
        lst.ParseFromString(_flowvm.op_list())
        _op_defs = {op.name: op for op in lst.op}
    d = _op_defs.get(op_type)
    if d is None:
        raise errors.NotFoundError(None, None, "Op type not registered '%s'" % op_type)
    return d


# ---- Tensor ------------------------------------------------------------------
class Tensor(object):
    """One output of an Operation."""

    __array_priority__ = 100  # NumPy defers binary operators to us

    def __init__(self, op, value_index, dtype):
        self._op = op
        self._value_index = value_index
        self._dtype = dtype
        self._name = None

    @property
    def op(self):
        return self._op

    @property
    def value_index(self):
        return self._value_index

    @property
    def dtype(self):
        return self._dtype

    @property
    def graph(self):
        return self._op.graph

    @property
    def name(self):
        if self._name is None:
            self._name = "%s:%d" % (self._op.name, self._value_index)
        return self._name

    @property
    def device(self):
        return self._op.device

    @property
    def shape(self):
        return tensor_shape.TensorShape(self._op.graph._c.output_shape(self._op._id, self._value_index))

    def get_shape(self):
        return self.shape

    def set_shape(self, shape):
        shape = tensor_shape.as_shape(shape)
        try:
            self._op.graph._c.merge_output_shape(self._op._id, self._value_index, shape._as_flowvm())
        except errors.InvalidArgumentError as e:
            raise ValueError(e.message)

    def consumers(self):
        g = self._op.graph
        return [g._op_for_id(i) for i, _ in g._c.consumers(self._op._id, self._value_index)]

    def _ref(self):
        return (self._op._id, self._value_index)

    def eval(self, feed_dict=None, session=None):
        return _eval_using_default_session(self, feed_dict, self.graph, session)

    def __repr__(self):
        return "<tf.Tensor '%s' shape=%s dtype=%s>" % (self.name, self.shape, self._dtype.name)

    def __str__(self):
        return 'Tensor("%s"%s, dtype=%s)' % (
            self.name, (", shape=%s" % self.shape) if self.shape.ndims is not None else "", self._dtype.name)

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    def __bool__(self):
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not allowed. "
                        "Use `if t is not None:` instead of `if t:` to test if a tensor is defined, "
                        "and use TensorFlow ops such as tf.cond to execute subgraphs conditioned on "
                        "the value of a tensor.")

    __nonzero__ = __bool__

    def __iter__(self):
        shape = self.shape
        if shape.ndims is None or shape[0].value is None:
            raise TypeError("Tensor objects are only iterable when the first dimension is known (%s)" % self.name)
        for i in range(shape[0].value):
            yield self[i]  # __getitem__ is array_ops' (installed with _override_operator)

    def __len__(self):
        raise TypeError("len is not well defined for symbolic Tensors. (%s) "
                        "Please call `x.shape` rather than `len(x)` for shape information." % self.name)

    # Operators are installed by math_ops / array_ops (_override_operator).

    @staticmethod
    def _override_operator(operator, func):
        setattr(Tensor, operator, func)


# ---- Operation ---------------------------------------------------------------
class Operation(object):
    """One node of a Graph."""

    def __init__(self, graph, node_id):
        self._graph = graph
        self._id = node_id
        c = graph._c
        self._name = c.name(node_id)
        self._type = c.type(node_id)
        self._outputs = [Tensor(self, i, dtypes.DType(t)) for i, t in enumerate(c.output_types(node_id))]
        self._control_flow_context = graph._get_control_flow_context()
        self._original_op = None
        self._traceback = None

    @property
    def name(self):
        return self._name

    @property
    def type(self):
        return self._type

    @property
    def graph(self):
        return self._graph

    @property
    def outputs(self):
        return list(self._outputs)

    def values(self):
        return tuple(self._outputs)

    @property
    def inputs(self):
        g = self._graph
        out = []
        for ref in g._c.inputs(self._id):
            if ref is not None:
                out.append(g._op_for_id(ref[0])._outputs[ref[1]])
        return _InputList(out)

    @property
    def _input_types(self):
        return [dtypes.DType(t) for t in self._graph._c.input_types(self._id)]

    @property
    def control_inputs(self):
        return [self._graph._op_for_id(i) for i in self._graph._c.control_inputs(self._id)]

    @property
    def _control_outputs(self):
        return [self._graph._op_for_id(i) for i, _ in self._graph._c.consumers(self._id, -1)]

    @property
    def device(self):
        return self._graph._c.device(self._id)

    @property
    def node_def(self):
        from flowvm import node_def_pb2
        nd = node_def_pb2.NodeDef()
        nd.ParseFromString(self._graph._c.node_def(self._id))
        return nd

    @property
    def op_def(self):
        return self._graph._get_op_def(self._type)

    def get_attr(self, name):
        v = self._graph._c.attr(self._id, name)
        atype = None
        for a in self._graph._get_op_def(self._type).attr:
            if a.name == name:
                atype = a.type
        if atype == "type":
            return dtypes.as_dtype(v)
        if atype == "list(type)":
            return [dtypes.as_dtype(t) for t in v]
        if atype == "shape":
            return tensor_shape.TensorShape(v)
        if atype == "list(shape)":
            return [tensor_shape.TensorShape(s) for s in v]
        return v

    def _set_device(self, device):
        self._graph._c.set_device(self._id, pydev.canonical_name(device))
        self._graph._node_edited(self._id)

    def _set_attr(self, name, value):
        self._graph._c.set_private_attr(self._id, name, value)
        self._graph._node_edited(self._id)

    def _add_control_input(self, op):
        self._graph._c.add_control_input(self._id, op._id)
        self._graph._node_edited(self._id)

    def _add_control_inputs(self, ops):
        for op in ops:
            self._add_control_input(op)

    def _update_input(self, index, tensor):
        self._graph._c.update_input(self._id, index, tensor._ref())
        self._graph._node_edited(self._id)

    def colocation_groups(self):
        try:
            cls = self.get_attr("_class")
        except (errors.InvalidArgumentError, ValueError):
            return [("loc:@%s" % self._name).encode()]
        return [c for c in cls if c.startswith(b"loc:@")]

    def _get_control_flow_context(self):
        return self._control_flow_context

    def _set_control_flow_context(self, ctx):
        self._control_flow_context = ctx

    def run(self, feed_dict=None, session=None):
        _run_using_default_session(self, feed_dict, self.graph, session)

    def __repr__(self):
        return "<tf.Operation '%s' type=%s>" % (self._name, self._type)

    def __str__(self):
        return str(self.node_def)


class _InputList(list):
    pass


# ---- conversion to tensors ---------------------------------------------------
_conversion_funcs = []  # (base_type, priority, func)

# What builds on this module registers here when it loads (TensorFlow's
# registry pattern), so that ops imports nothing above it: constant_op the
# conversion of Python and NumPy values to a Const, `f(value, dtype, name)`;
# tensor_util the decoding of a TensorProto to an ndarray (create_op's
# tensor attrs).
_constant_conversion = None
_tensor_proto_to_ndarray = None


def _register_constant_conversion(func):
    global _constant_conversion
    _constant_conversion = func


def _register_tensor_proto_decoder(func):
    global _tensor_proto_to_ndarray
    _tensor_proto_to_ndarray = func


# ---- gradients registered in Python ------------------------------------------
# Most gradients are the C++ gradient registry's. These are the ones a
# program registers (tf.RegisterGradient, Defun's python_grad_func): the C++
# gradient builder calls back for a node whose _gradient_op_type names one
# (gradient_override_map) or whose op type has no C++ gradient.
_gradient_registry = {}


class RegisterGradient(object):
    """Decorator registering a gradient function for an op type or a name
    used with Graph.gradient_override_map:

        @tf.RegisterGradient("MySquare")
        def _my_square_grad(op, grad):
            return grad * 2 * op.inputs[0]
    """

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        if self._op_type in _gradient_registry:
            raise KeyError("Registering two gradient with name '%s'! (Previous registration was in %s)"
                           % (self._op_type, getattr(_gradient_registry[self._op_type], "__module__", "?")))
        _gradient_registry[self._op_type] = f
        return f


def no_gradient(op_type):
    """Declares that ops of `op_type` (or the override name) have no gradient."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    if op_type in _gradient_registry:
        raise KeyError("Registering two gradient with name '%s'!" % op_type)
    _gradient_registry[op_type] = None


NotDifferentiable = no_gradient
NoGradient = no_gradient


def get_gradient_function(op):
    """The Python gradient function registered for `op`, or None."""
    try:
        name = op.get_attr("_gradient_op_type")
        if isinstance(name, bytes):
            name = name.decode()
    except (errors.InvalidArgumentError, ValueError):
        name = op.type
    return _gradient_registry.get(name)


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    _conversion_funcs.append((base_type, priority, conversion_func))
    _conversion_funcs.sort(key=lambda e: e[1])


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, dtype_hint=None, as_ref=False):
    preferred_dtype = preferred_dtype or dtype_hint
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and not dtype.is_compatible_with(value.dtype):
            raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %r"
                             % (dtype.name, value.dtype.name, value))
        return value
    for base_type, _, func in _conversion_funcs:
        if isinstance(value, base_type):
            t = func(value, dtype=dtype, name=name, as_ref=as_ref)
            if t is NotImplemented:
                continue
            if dtype is not None and not dtype.is_compatible_with(t.dtype):
                raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %r"
                                 % (dtype.name, t.dtype.name, t))
            return t
    if hasattr(value, "_as_graph_element") and not isinstance(value, (Operation,)):
        elem = value._as_graph_element()
        if isinstance(elem, Tensor):
            return convert_to_tensor(elem, dtype=dtype)
    if isinstance(value, Operation):
        raise TypeError("Can't convert Operation '%s' to Tensor (target dtype=%s, name=%s, as_ref=%s)"
                        % (value.name, dtype, name, as_ref))
    if _constant_conversion is None:
        raise TypeError("Can't convert %r to a Tensor: no conversion registered (import flowvm.compat.v1)" % (value,))
    if dtype is None and preferred_dtype is not None:
        try:
            return _constant_conversion(value, dtype=preferred_dtype, name=name or "Const")
        except (TypeError, ValueError):
            pass
    return _constant_conversion(value, dtype=dtype, name=name or "Const")


def convert_n_to_tensor(values, dtype=None, name=None, preferred_dtype=None):
    return [convert_to_tensor(v, dtype=dtype, preferred_dtype=preferred_dtype,
                              name=None if name is None else "%s_%d" % (name, i)) for i, v in enumerate(values)]


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    return convert_to_tensor(value, dtype=dtype, name=name)


convert_n_to_tensor_or_indexed_slices = convert_n_to_tensor


# ---- Graph -------------------------------------------------------------------
class _ControlDependenciesController(object):
    def __init__(self, graph, control_inputs):
        self._graph = graph
        self._control_inputs = control_inputs  # None clears
        self._seen_nodes = set()
        self._old_stack = None
        self._new_stack = control_inputs is None
        self._old_control_flow_context = None

    def __enter__(self):
        if self._new_stack:
            self._old_stack = self._graph._control_dependencies_stack
            self._graph._control_dependencies_stack = []
            self._old_control_flow_context = self._graph._get_control_flow_context()
            self._graph._set_control_flow_context(None)
        self._graph._control_dependencies_stack.append(self)

    def __exit__(self, *args):
        self._graph._control_dependencies_stack.pop()
        if self._new_stack:
            self._graph._control_dependencies_stack = self._old_stack
            self._graph._set_control_flow_context(self._old_control_flow_context)
        return False

    @property
    def control_inputs(self):
        return self._control_inputs or []

    def add_op(self, op):
        self._seen_nodes.add(op._id)

    def op_in_group(self, op):
        return op._id in self._seen_nodes


class Graph(object):
    """A TensorFlow computation graph (tf.Graph)."""

    def __init__(self):
        self._c = _flowvm.Graph()
        self._lock = threading.RLock()
        self._ops = {}  # id -> Operation
        self._ops_by_name = {}
        self._names_in_use = {}
        self._name_stack = ""
        self._device_stack = []  # strings and functions, outermost first
        self._control_dependencies_stack = []
        self._colocation_stack = []
        self._collections = {}
        self._seed = None
        self._finalized = False
        self._version = 0
        self._unfeedable = set()
        self._unfetchable = set()
        self._control_flow_context = None
        # Node id -> the edit count of its latest edit after it was added
        # (sessions compare it with what they have sent).
        self._edits = {}
        self._edit_count = 0
        self._gradient_override_map = {}
        self._attr_scope_map = {}
        # Functions defined in this graph (framework/function.py), by name.
        self._functions = collections.OrderedDict()
        self._function_op_defs = {}  # signatures of the C++ library's functions, parsed once

    # -- default graph
    def as_default(self):
        return _default_graph_stack.get_controller(self)

    # -- properties
    @property
    def version(self):
        return self._version

    @property
    def finalized(self):
        return self._finalized

    def finalize(self):
        self._finalized = True

    def _unsafe_unfinalize(self):
        self._finalized = False

    @property
    def seed(self):
        return self._seed

    @seed.setter
    def seed(self, seed):
        self._seed = seed

    @property
    def building_function(self):
        return False

    @property
    def graph_def_versions(self):
        return self.as_graph_def().versions

    # -- functions (GraphDef.library)
    def _add_function(self, function):
        """Adds a _DefinedFunction (and with it the functions it calls and its
        gradient function) to this graph's library."""
        self._check_not_finalized()
        name = function.name
        previous = self._functions.get(name)
        if previous is not None and previous is not function and getattr(previous, "_hash_str", None) != \
                getattr(function, "_hash_str", None):
            raise ValueError("Another function is already defined with that name (%s)" % name)
        try:
            self._c.add_function_library(function._library_proto().SerializeToString(deterministic=True))
        except errors.OpError as e:
            raise ValueError(e.message)
        self._functions[name] = function
        self._function_op_defs.pop(name, None)

    def _get_function(self, name):
        return self._functions.get(name)

    def _is_function(self, name):
        """Whether `name` is a function (defined or declared) of this graph."""
        return name in self._functions or self._c.has_function(name)

    def _get_op_def(self, op_type):
        """The OpDef of a registered op, or a function's signature."""
        if not self._is_function(op_type):
            return get_op_def(op_type)
        sig = self._function_op_defs.get(op_type)
        if sig is None:
            from flowvm import op_def_pb2
            sig = op_def_pb2.OpDef()
            sig.ParseFromString(self._c.function_signature(op_type))
            self._function_op_defs[op_type] = sig
        return sig

    # -- ops
    def _op_for_id(self, node_id):
        op = self._ops.get(node_id)
        if op is None:
            op = Operation(self, node_id)
            self._ops[node_id] = op
            self._ops_by_name[op.name] = op
            self._register_name(op.name)
        return op

    def _register_name(self, name):
        # Names made outside Python (gradient nodes) and their scopes are
        # taken, so unique_name never hands them out again.
        parts = name.split("/")
        for i in range(1, len(parts) + 1):
            key = "/".join(parts[:i]).lower()
            if key not in self._names_in_use:
                self._names_in_use[key] = 1

    def _adopt_new_nodes(self, first_id):
        """Operations for nodes the C++ side added (gradients, import)."""
        new = []
        for node_id in range(first_id, self._c.num_node_ids()):
            try:
                new.append(self._op_for_id(node_id))
            except errors.InvalidArgumentError:
                continue  # removed
        self._version = self._c.num_node_ids()
        return new

    def _node_edited(self, node_id):
        self._edit_count += 1
        self._edits[node_id] = self._edit_count

    def _check_not_finalized(self):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    def _create_op(self, op_type, inputs, attrs, name=None, compute_device=True, _unique=True, _copy_of=None):
        """Adds a node. inputs: one entry per input argument, a Tensor or a
        list of Tensors; attrs: attr name -> Python value. `name` is the
        full name (already scoped and made unique) when _unique is False.
        _copy_of: an Operation of another graph whose op and attrs (but not
        those starting with "_") the node takes instead of op_type and
        attrs, copied without converting them to Python."""
        self._check_not_finalized()
        with self._lock:
            if _unique:
                # A name scope's name ("scope/") names the node exactly, as in TensorFlow.
                if name and name[-1] == "/":
                    name = name[:-1]
                else:
                    name = self.unique_name(name or op_type)
            flat_input_ops = []
            refs = []
            for arg in inputs:
                if isinstance(arg, (list, tuple)):
                    for t in arg:
                        self._check_same_graph(t, name)
                        flat_input_ops.append(t.op)
                    refs.append([t._ref() for t in arg])
                else:
                    self._check_same_graph(arg, name)
                    flat_input_ops.append(arg.op)
                    refs.append(arg._ref())
            ctx = self._control_flow_context
            if ctx is not None:
                # May route outside tensors in (rewriting refs and
                # flat_input_ops in place); see control_flow_ops.
                ctx._flowvm_adjust_inputs(self, inputs, refs, flat_input_ops)
            else:
                for input_op in flat_input_ops:
                    if input_op._control_flow_context is not None:
                        control_flow_util.check_input_from_loop(self, name, input_op)
            control_ids = [op._id for op in self._current_control_dependencies(flat_input_ops)]
            if ctx is not None:
                control_ids = ctx._flowvm_adjust_control_inputs(self, control_ids, flat_input_ops)
            try:
                if _copy_of is not None:
                    node_id = self._c.copy_op(_copy_of.graph._c, _copy_of._id, name, refs, control_ids)
                else:
                    node_id = self._c.add_op(op_type, name, refs, attrs, "", control_ids)
            except errors.OpError as e:
                raise GraphConstructionError(None, None, e.message)
            op = self._op_for_id(node_id)
            self._version = node_id + 1
            override = self._gradient_override_map.get(op_type)
            if override is not None:
                self._c.set_private_attr(node_id, "_gradient_op_type", override)
            for controller in self._control_dependencies_stack:
                controller.add_op(op)
            if compute_device:
                self._apply_device_functions(op)
            if self._colocation_stack:
                self._apply_colocation(op)
            if ctx is not None:
                ctx._flowvm_add_op(op)
            return op

    def create_op(self, op_type, inputs, dtypes=None, input_types=None, name=None, attrs=None, op_def=None,
                  compute_shapes=True, compute_device=True):
        """TensorFlow's Graph.create_op: inputs are flat; list arguments are
        grouped by the op definition."""
        inputs = [convert_to_tensor(i) for i in inputs]
        grouped = _group_flat_inputs(get_op_def(op_type), inputs)
        plain_attrs = {}
        for k, v in (attrs or {}).items():
            plain_attrs[k] = _attr_value_to_python(v)
        return self._create_op(op_type, grouped, plain_attrs, name=name, compute_device=compute_device)

    def _check_same_graph(self, t, name):
        if not isinstance(t, Tensor):
            raise TypeError("Input to node '%s' is not a Tensor: %r" % (name, t))
        if t.graph is not self:
            raise ValueError("Tensor %s must be from the same graph as node '%s' (the tensor is in another "
                             "tf.Graph)." % (t.name, name))

    def _current_control_dependencies(self, input_ops):
        ret = []
        seen = set()
        input_ids = {op._id for op in input_ops}
        for controller in self._control_dependencies_stack:
            # An op made inside a controller already waits on its inputs'
            # dependencies when an input was made in the same controller.
            dominated = any(controller.op_in_group(op) for op in input_ops)
            if dominated:
                continue
            for c in controller.control_inputs:
                if c._id not in seen and c._id not in input_ids:
                    seen.add(c._id)
                    ret.append(c)
        return ret

    def _apply_device_functions(self, op):
        device = ""
        for spec in self._device_stack:
            if spec is None:
                device = ""
            elif callable(spec):
                # Functions see the node with the device chosen so far.
                if device:
                    self._c.set_device(op._id, device)
                d = spec(op)
                if isinstance(d, DeviceSpec):
                    d = d.to_string()
                device = pydev.merge_device(device, d or "")
            else:
                device = pydev.merge_device(device, spec)
        if device or self._c.device(op._id):
            self._c.set_device(op._id, device)

    def _apply_colocation(self, op):
        target = self._colocation_stack[-1]
        groups = target.colocation_groups()
        op._set_attr("_class", [g.decode() if isinstance(g, bytes) else g for g in groups])
        if target.device:
            self._c.set_device(op._id, target.device)

    def get_operations(self):
        with self._lock:
            return [self._op_for_id(i) for i in sorted(self._ops)]

    def get_operation_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError("Operation names are strings (or similar), not %s." % type(name).__name__)
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def _get_operation_by_name_or_none(self, name):
        op = self._ops_by_name.get(name)
        if op is not None:
            return op
        node_id = self._c.find(name)
        return None if node_id < 0 else self._op_for_id(node_id)

    def get_tensor_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError("Tensor names are strings (or similar), not %s." % type(name).__name__)
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        if allow_tensor and allow_operation:
            types_str = "Tensor or Operation"
        elif allow_tensor:
            types_str = "Tensor"
        else:
            types_str = "Operation"
        if hasattr(obj, "_as_graph_element") and not isinstance(obj, (Tensor, Operation)):
            obj = obj._as_graph_element()
        if isinstance(obj, str):
            name = obj
            if ":" in name and allow_tensor:
                op_name, out_s = name.split(":", 1)
                try:
                    out_n = int(out_s)
                except ValueError:
                    raise ValueError("The name %s looks a like a Tensor name, but is not a valid one. "
                                     "Tensor names must be of the form \"<op_name>:<output_index>\"." % repr(name))
                op = self._get_operation_by_name_or_none(op_name)
                if op is None:
                    raise KeyError("The name %s refers to a Tensor which does not exist. The operation, %s, "
                                   "does not exist in the graph." % (repr(name), repr(op_name)))
                if out_n >= len(op._outputs):
                    raise KeyError("The name %s refers to a Tensor which does not exist. The operation, %s, "
                                   "exists but only has %d outputs." % (repr(name), repr(op_name), len(op._outputs)))
                return op._outputs[out_n]
            if ":" in name and not allow_tensor:
                raise ValueError("Name %s appears to refer to a Tensor, not a %s." % (repr(name), types_str))
            if allow_operation:
                op = self._get_operation_by_name_or_none(name)
                if op is None:
                    raise KeyError("The name %s refers to an Operation not in the graph." % repr(name))
                return op
            if self._get_operation_by_name_or_none(name) is not None:
                raise ValueError("The name %s refers to an Operation, not a %s. Tensor names must be of the form "
                                 "\"<op_name>:<output_index>\"." % (repr(name), types_str))
            raise KeyError("The name %s looks like an (invalid) Operation name, not a %s." % (repr(name), types_str))
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError("Tensor %s is not an element of this graph." % obj)
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError("Operation %s is not an element of this graph." % obj)
            return obj
        raise TypeError("Can not convert a %s into a %s." % (type(obj).__name__, types_str))

    # -- GraphDef
    def as_graph_def(self, from_version=None, add_shapes=False):
        from flowvm import graph_pb2
        gd = graph_pb2.GraphDef()
        gd.ParseFromString(self._c.to_graph_def(from_version or 0))
        if add_shapes:
            for nd in gd.node:
                op = self._get_operation_by_name_or_none(nd.name)
                if op is not None and op.outputs:
                    shapes = nd.attr["_output_shapes"].list.shape
                    for t in op.outputs:
                        shapes.add().CopyFrom(t.shape.as_proto())
        return gd

    # -- names
    def get_name_scope(self):
        return self._name_stack

    def unique_name(self, name, mark_as_used=True):
        if self._name_stack:
            name = self._name_stack + "/" + name
        name_key = name.lower()
        i = self._names_in_use.get(name_key, 0)
        if mark_as_used:
            self._names_in_use[name_key] = i + 1
        if i > 0:
            base_name_key = name_key
            while name_key in self._names_in_use or self._c.find(name_key) >= 0:
                name_key = "%s_%d" % (base_name_key, i)
                i += 1
            if mark_as_used:
                self._names_in_use[name_key] = 1
            name = "%s_%d" % (name, i - 1)
        return name

    @contextlib.contextmanager
    def name_scope(self, name):
        if name:
            if isinstance(name, Tensor):
                name = name.op.name
            if not (_VALID_SCOPE_NAME if self._name_stack else _VALID_OP_NAME).match(name):
                raise ValueError("'%s' is not a valid scope name" % name)
            if name[-1] == "/":
                new_stack = name[:-1]
            else:
                new_stack = self.unique_name(name)
        else:
            new_stack = ""
        old = self._name_stack
        self._name_stack = new_stack
        try:
            yield "" if not new_stack else new_stack + "/"
        finally:
            self._name_stack = old

    # -- devices, dependencies, colocation
    @contextlib.contextmanager
    def device(self, device_name_or_function):
        if isinstance(device_name_or_function, DeviceSpec):
            device_name_or_function = device_name_or_function.to_string()
        self._device_stack.append(device_name_or_function)
        try:
            yield
        finally:
            self._device_stack.pop()

    def control_dependencies(self, control_inputs):
        if control_inputs is None:
            return _ControlDependenciesController(self, None)
        ops = []
        for c in control_inputs:
            if hasattr(c, "_as_graph_element") and not isinstance(c, (Tensor, Operation)):
                c = c._as_graph_element()
            if isinstance(c, Tensor):
                c = c.op
            if not isinstance(c, Operation):
                raise TypeError("Control input must be Operation or Tensor: %s" % c)
            if c.graph is not self:
                raise ValueError("Control input %s is not an element of this graph." % c.name)
            ops.append(c)
        return _ControlDependenciesController(self, ops)

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing=False):
        if op is None:
            old = self._colocation_stack
            self._colocation_stack = []
            try:
                yield
            finally:
                self._colocation_stack = old
            return
        if hasattr(op, "_as_graph_element") and not isinstance(op, (Tensor, Operation)):
            op = op._as_graph_element()
        if isinstance(op, Tensor):
            op = op.op
        self._colocation_stack.append(op)
        try:
            yield
        finally:
            self._colocation_stack.pop()

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Ops of the mapped types made in this context get the gradient
        registered under the new name (their _gradient_op_type attr)."""
        if not isinstance(op_type_map, dict):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = {}
        for op_type, mapped in op_type_map.items():
            if not (isinstance(op_type, str) and isinstance(mapped, str)):
                raise TypeError("op_type_map must be a dictionary mapping strings to strings")
            saved[op_type] = self._gradient_override_map.get(op_type)
            self._gradient_override_map[op_type] = mapped
        try:
            yield
        finally:
            for op_type, old in saved.items():
                if old is None:
                    del self._gradient_override_map[op_type]
                else:
                    self._gradient_override_map[op_type] = old

    def _get_control_flow_context(self):
        return self._control_flow_context

    def _set_control_flow_context(self, ctx):
        self._control_flow_context = ctx

    # -- collections
    def add_to_collection(self, name, value):
        self._check_not_finalized()
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        if isinstance(names, str):
            names = [names]
        for name in set(names):
            self.add_to_collection(name, value)

    def get_collection_ref(self, name):
        return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None):
        items = self._collections.get(name)
        if items is None:
            return []
        if scope is None:
            return list(items)
        import re
        regex = re.compile(scope)
        out = []
        for item in items:
            n = getattr(item, "name", None)
            if n is None:
                try:
                    n = item.op.name
                except AttributeError:
                    n = None
            if n is not None and regex.match(n):
                out.append(item)
        return out

    def get_all_collection_keys(self):
        return [k for k, v in self._collections.items() if isinstance(v, list)]

    def clear_collection(self, name):
        self._collections.pop(name, None)

    # -- feeding / fetching
    def prevent_feeding(self, tensor):
        self._unfeedable.add(tensor)

    def is_feedable(self, tensor):
        return tensor not in self._unfeedable

    def prevent_fetching(self, op):
        self._unfetchable.add(op)

    def is_fetchable(self, tensor_or_op):
        if isinstance(tensor_or_op, Tensor):
            return tensor_or_op.op not in self._unfetchable
        return tensor_or_op not in self._unfetchable


def _group_flat_inputs(op_def, flat):
    """Groups create_op's flat input list by the op's input arguments."""
    list_args = [a for a in op_def.input_arg if a.number_attr or a.type_list_attr]
    singles = len(op_def.input_arg) - len(list_args)
    list_len = (len(flat) - singles) if list_args else 0
    if len(list_args) > 1:
        raise ValueError("create_op: op %s has several list inputs; use its generated function" % op_def.name)
    out, i = [], 0
    for a in op_def.input_arg:
        if a.number_attr or a.type_list_attr:
            out.append(flat[i:i + list_len])
            i += list_len
        else:
            out.append(flat[i])
            i += 1
    return out


def _attr_value_to_python(v):
    """AttrValue protos (create_op's attrs) to plain values."""
    if not hasattr(v, "WhichOneof"):
        return v
    which = v.WhichOneof("value")
    if which in ("s", "i", "f", "b"):
        return getattr(v, which)
    if which == "type":
        return v.type
    if which == "shape":
        return tensor_shape.TensorShape(v.shape)._as_flowvm()
    if which == "tensor":
        return _tensor_proto_to_ndarray(v.tensor)
    if which == "list":
        lst = v.list
        for field in ("s", "i", "f", "b", "type"):
            vals = list(getattr(lst, field))
            if vals:
                return vals
        if lst.shape:
            return [tensor_shape.TensorShape(s)._as_flowvm() for s in lst.shape]
        return []
    if which == "func":
        return v.func.name
    return None


# ---- the default graph -------------------------------------------------------
class _DefaultStack(threading.local):
    def __init__(self):
        super(_DefaultStack, self).__init__()
        self.stack = []

    def get_default(self):
        return self.stack[-1] if self.stack else None

    def reset(self):
        self.stack = []

    def is_cleared(self):
        return not self.stack

    @contextlib.contextmanager
    def get_controller(self, default):
        self.stack.append(default)
        try:
            yield default
        finally:
            if self.stack and self.stack[-1] is default:
                self.stack.pop()
            elif default in self.stack:
                self.stack.remove(default)


class _DefaultGraphStack(_DefaultStack):
    _global_default_graph = None

    def get_default(self):
        ret = super(_DefaultGraphStack, self).get_default()
        if ret is None:
            ret = self._get_global()
        return ret

    def _get_global(self):
        if _DefaultGraphStack._global_default_graph is None:
            _DefaultGraphStack._global_default_graph = Graph()
        return _DefaultGraphStack._global_default_graph

    def reset(self):
        super(_DefaultGraphStack, self).reset()
        _DefaultGraphStack._global_default_graph = None


_default_graph_stack = _DefaultGraphStack()
_default_session_stack = _DefaultStack()


def get_default_graph():
    return _default_graph_stack.get_default()


def reset_default_graph():
    if not _default_graph_stack.is_cleared():
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If you need a cleared "
                             "graph, exit the nesting and create a new graph.")
    _default_graph_stack.reset()


def get_default_session():
    return _default_session_stack.get_default()


def default_session(session):
    return _default_session_stack.get_controller(session)


def _eval_using_default_session(tensors, feed_dict, graph, session=None):
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. Use "
                             "`with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
        if session.graph is not graph:
            raise ValueError("Cannot use the default session to evaluate tensor: the tensor's graph is different "
                             "from the session's graph. Pass an explicit session to `eval(session=sess)`.")
    elif session.graph is not graph:
        raise ValueError("Cannot use the given session to evaluate tensor: the tensor's graph is different from "
                         "the session's graph.")
    return session.run(tensors, feed_dict)


def _run_using_default_session(operation, feed_dict, graph, session=None):
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError("Cannot execute operation using `run()`: No default session is registered. Use "
                             "`with sess.as_default():` or pass an explicit session to `run(session=sess)`")
        if session.graph is not graph:
            raise ValueError("Cannot use the default session to execute operation: the operation's graph is "
                             "different from the session's graph. Pass an explicit session to run(session=sess).")
    elif session.graph is not graph:
        raise ValueError("Cannot use the given session to execute operation: the operation's graph is different "
                         "from the session's graph.")
    session.run(operation, feed_dict)


# ---- module-level scopes (tf.name_scope, tf.device, ...) ---------------------
def _graph_of(values):
    for v in values or ():
        if isinstance(v, (Tensor, Operation)):
            return v.graph
        g = getattr(v, "graph", None)
        if isinstance(g, Graph):
            return g
    return get_default_graph()


class name_scope(object):  # noqa: N801 - TensorFlow's name
    """tf.name_scope(name, default_name=None, values=None)."""

    def __init__(self, name, default_name=None, values=None):
        self._name = default_name if name is None else name
        self._default_name = default_name
        self._values = values
        self._ctx = None
        self._g_manager = None

    def __enter__(self):
        if self._name is None and self._values is not None:
            raise ValueError("At least one of name (%s) and default_name (%s) must be provided."
                             % (self._name, self._default_name))
        g = _graph_of(self._values)
        if g is not get_default_graph():
            self._g_manager = g.as_default()
            self._g_manager.__enter__()
        self._ctx = g.name_scope(self._name)
        return self._ctx.__enter__()

    def __exit__(self, *args):
        self._ctx.__exit__(*args)
        if self._g_manager is not None:
            self._g_manager.__exit__(*args)
        return False


def device(device_name_or_function):
    return get_default_graph().device(device_name_or_function)


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def colocate_with(op, ignore_existing=False):
    return get_default_graph().colocate_with(op, ignore_existing)


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    return get_default_graph().get_collection_ref(key)


def get_name_scope():
    return get_default_graph().get_name_scope()


def op_scope(values, name, default_name=None):
    return name_scope(name, default_name, values)


def is_dense_tensor_like(t):
    return isinstance(t, Tensor)


def executing_eagerly():
    return False


def enable_eager_execution(*args, **kwargs):
    raise NotImplementedError("flowvm runs graphs; eager execution is not available")


def disable_eager_execution():
    pass


# ---- collections in a MetaGraphDef, names under an import/export scope -------------
# collection name -> (proto class, to_proto, from_proto); module state,
# written at import time only.
_proto_functions = {}


def register_proto_function(collection_name, proto_type=None, to_proto=None, from_proto=None):
    """How the items of `collection_name` are written to and read from a
    MetaGraphDef: to_proto(item, export_scope=None) -> proto (or None to
    leave the item out); from_proto(proto, import_scope=None) -> item."""
    if to_proto is not None and not callable(to_proto):
        raise TypeError("to_proto must be callable.")
    if from_proto is not None and not callable(from_proto):
        raise TypeError("from_proto must be callable.")
    _proto_functions[collection_name] = (proto_type, to_proto, from_proto)


def get_collection_proto_type(collection_name):
    return _proto_functions.get(collection_name, (None, None, None))[0]


def get_to_proto_function(collection_name):
    return _proto_functions.get(collection_name, (None, None, None))[1]


def get_from_proto_function(collection_name):
    return _proto_functions.get(collection_name, (None, None, None))[2]


def prepend_name_scope(name, import_scope):
    """`name` ("x:0", "^x", "loc:@x") under `import_scope`; unchanged without one."""
    if not import_scope:
        return name
    scope = import_scope[:-1] if import_scope.endswith("/") else import_scope
    if isinstance(name, bytes):
        name = name.decode("utf-8")
    for marker in ("^", "loc:@"):
        if name.startswith(marker):
            return marker + scope + "/" + name[len(marker):]
    return scope + "/" + name


def strip_name_scope(name, export_scope):
    """`name` without its leading `export_scope/` (kept after "^" / "loc:@")."""
    if not export_scope:
        return name
    scope = export_scope[:-1] if export_scope.endswith("/") else export_scope
    for marker in ("^", "loc:@", ""):
        if name.startswith(marker + scope + "/"):
            return marker + name[len(marker) + len(scope) + 1:]
    return name
