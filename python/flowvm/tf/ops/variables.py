"""tf.Variable: TensorFlow 1.x's reference variables over VariableV2 nodes.

A Variable `w` is the VariableV2 node "w" (its ref output "w:0" is what
assignments and optimizers take), an Assign "w/Assign" of its initial value
(the initializer), and an Identity "w/read" (the value every other use
reads). It converts to "w/read" wherever a Tensor is expected, and to the
ref when an op needs a mutable input.
"""
from flowvm.tf.framework import constant_op
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_shape
from flowvm.tf.ops import gen_ops
from flowvm.tf.ops import state_ops

__all__ = ["Variable", "VariableV1", "global_variables", "all_variables", "local_variables", "trainable_variables",
           "model_variables", "moving_average_variables", "global_variables_initializer",
           "initialize_all_variables", "local_variables_initializer", "initialize_local_variables",
           "variables_initializer", "initialize_variables", "is_variable_initialized",
           "report_uninitialized_variables", "assert_variables_initialized", "assign", "assign_add", "assign_sub",
           "scatter_update", "scatter_add", "scatter_sub", "count_up_to", "VariableSynchronization", "VariableAggregation"]


class VariableSynchronization(object):
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(object):
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3


class Variable(object):
    """tf.Variable(initial_value=None, trainable=None, collections=None,
    validate_shape=True, caching_device=None, name=None, variable_def=None,
    dtype=None, expected_shape=None, import_scope=None, constraint=None,
    use_resource=None, synchronization=..., aggregation=..., shape=None)."""

    __array_priority__ = 100  # NumPy defers binary operators to us

    def __init__(self, initial_value=None, trainable=None, collections=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None, expected_shape=None,
                 import_scope=None, constraint=None, use_resource=None,
                 synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE, shape=None):
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope=import_scope)
            return
        if use_resource:
            raise NotImplementedError("tf.Variable(use_resource=True): flowvm has TensorFlow 1.x's reference "
                                      "variables only")
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable.")
        if trainable is None:
            trainable = synchronization != VariableSynchronization.ON_READ
        if collections is None:
            collections = [ops.GraphKeys.GLOBAL_VARIABLES]
        if not isinstance(collections, (list, tuple, set)):
            raise ValueError("collections argument to Variable constructor must be a list, tuple, or set. Got %s "
                             "of type %s" % (collections, type(collections)))
        collections = list(collections)
        if trainable and ops.GraphKeys.TRAINABLE_VARIABLES not in collections:
            collections.append(ops.GraphKeys.TRAINABLE_VARIABLES)
        self._trainable = trainable
        self._constraint = constraint
        self._caching_device = caching_device
        self._save_slice_info = None
        init_from_fn = callable(initial_value)
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)

        g = ops.get_default_graph()
        # Variables are made outside any control-flow context and free of
        # the control dependencies around them (TensorFlow's init_scope).
        with ops.control_dependencies(None):
            with ops.name_scope(name, "Variable", [] if init_from_fn else [initial_value]) as scope:
                first_init_id = g._c.num_node_ids()
                if init_from_fn:
                    with ops.name_scope("Initializer"):
                        initial_value = ops.convert_to_tensor(initial_value(), name="initial_value", dtype=dtype)
                else:
                    initial_value = ops.convert_to_tensor(initial_value, name="initial_value", dtype=dtype)
                if initial_value.dtype._is_ref_dtype:
                    # Another variable's ref: start from its value.
                    initial_value = gen_ops.identity(initial_value, name="initial_value_read")
                self._initial_value = initial_value
                if shape is not None:
                    var_shape = tensor_shape.as_shape(shape)
                    if validate_shape and not var_shape.is_compatible_with(initial_value.shape):
                        raise ValueError("The initial value's shape (%s) is not compatible with the explicitly "
                                         "supplied `shape` argument (%s)." % (initial_value.shape, var_shape))
                elif validate_shape:
                    var_shape = initial_value.shape
                    if not var_shape.is_fully_defined():
                        raise ValueError("initial_value must have a shape specified: %s" % initial_value)
                else:
                    var_shape = tensor_shape.unknown_shape()
                self._variable = gen_ops.variable_v2(var_shape, initial_value.dtype.base_dtype, name=scope)
                self._variable_op = self._variable.op
                if init_from_fn:
                    self._colocate_initializer(g, first_init_id)
                with ops.colocate_with(self._variable_op):
                    self._initializer_op = state_ops.assign(self._variable, initial_value,
                                                            validate_shape=validate_shape).op
                with ops.colocate_with(self._variable_op):
                    if caching_device is not None:
                        with ops.device(caching_device):
                            self._snapshot = gen_ops.identity(self._variable, name="read")
                    else:
                        self._snapshot = gen_ops.identity(self._variable, name="read")
        ops.add_to_collections(collections, self)

    def _init_from_proto(self, variable_def, import_scope=None):
        """The Variable over existing nodes named by a VariableDef (an
        imported graph's): ref, initializer, snapshot, initial value."""
        from flowvm import variable_pb2
        if not isinstance(variable_def, variable_pb2.VariableDef):
            raise TypeError("variable_def must be a VariableDef proto, not %s" % type(variable_def).__name__)
        if variable_def.is_resource:
            raise NotImplementedError("VariableDef of %s: resource variables are not supported by flowvm"
                                      % variable_def.variable_name)
        if variable_def.HasField("save_slice_info_def"):
            raise NotImplementedError("VariableDef of %s: partitioned variables are not supported by flowvm"
                                      % variable_def.variable_name)
        g = ops.get_default_graph()

        def element(name, what):
            try:
                return g.as_graph_element(ops.prepend_name_scope(name, import_scope))
            except (KeyError, ValueError) as e:
                raise ValueError("VariableDef of %s: its %s %r is not in the graph (%s)"
                                 % (variable_def.variable_name, what, name, e))

        self._variable = element(variable_def.variable_name, "variable")
        if not isinstance(self._variable, ops.Tensor) or not self._variable.dtype._is_ref_dtype:
            raise ValueError("VariableDef: %s is not a variable's ref tensor" % variable_def.variable_name)
        self._variable_op = self._variable.op
        self._initializer_op = element(variable_def.initializer_name, "initializer")
        self._snapshot = element(variable_def.snapshot_name, "snapshot")
        self._initial_value = (element(variable_def.initial_value_name, "initial value")
                               if variable_def.initial_value_name else None)
        self._trainable = variable_def.trainable
        self._constraint = None
        self._caching_device = None
        self._save_slice_info = None

    def _colocate_initializer(self, g, first_id):
        # The initializer's ops run where the variable lives (TensorFlow
        # gives them its "loc:@" colocation group); only a placed variable
        # (a device function's choice) needs them moved.
        device = self._variable_op.device
        if not device:
            return
        for node_id in range(first_id, self._variable_op._id):
            op = g._ops.get(node_id)
            if op is not None:
                op._set_device(device)

    # -- identity
    @property
    def name(self):
        return self._variable.name

    @property
    def op(self):
        return self._variable_op

    @property
    def graph(self):
        return self._variable.graph

    @property
    def device(self):
        return self._variable.device

    @property
    def dtype(self):
        return self._variable.dtype

    @property
    def shape(self):
        return self._variable.shape

    def get_shape(self):
        return self.shape

    def set_shape(self, shape):
        self._variable.set_shape(shape)
        self._snapshot.set_shape(shape)

    @property
    def trainable(self):
        return self._trainable

    @property
    def constraint(self):
        return self._constraint

    @property
    def synchronization(self):
        return VariableSynchronization.AUTO

    @property
    def aggregation(self):
        return VariableAggregation.NONE

    @property
    def initializer(self):
        return self._initializer_op

    @property
    def initial_value(self):
        return self._initial_value

    def _ref(self):
        return self._variable

    def _as_graph_element(self):
        return self._variable

    def _AsTensor(self):  # noqa: N802 - TensorFlow's name
        return self._snapshot

    # -- reading
    def value(self):
        return self._snapshot

    def read_value(self):
        return gen_ops.identity(self._variable, name="read")

    def initialized_value(self):
        """The value once initialized: the variable's if it is, else its
        initial value (for variables whose initial value reads another)."""
        with ops.control_dependencies(None):
            with ops.name_scope(self._variable_op.name + "/initialized_value/"):
                inited = state_ops.is_variable_initialized(self._variable)
                var_branch = gen_ops.ref_switch(self._variable, inited).output_true
                init_branch = gen_ops.switch(self._initial_value, inited).output_false
                read = gen_ops.identity(var_branch)
                return gen_ops.merge([read, init_branch]).output

    def eval(self, session=None):
        return self._variable.eval(session=session)

    def load(self, value, session=None):
        """Assigns `value` by running the initializer with its initial value fed."""
        if session is None:
            session = ops.get_default_session()
            if session is None:
                raise ValueError("Either session argument should be provided or default session should be "
                                 "established")
        session.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    # -- writing
    def assign(self, value, use_locking=False, name=None, read_value=True):
        t = state_ops.assign(self._variable, value, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        t = state_ops.assign_add(self._variable, delta, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        t = state_ops.assign_sub(self._variable, delta, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        """Rows sparse_delta.indices = sparse_delta.values (an IndexedSlices)."""
        indices, values = _sparse_delta(sparse_delta)
        return state_ops.scatter_update(self._variable, indices, values, use_locking=use_locking, name=name)

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        indices, values = _sparse_delta(sparse_delta)
        return state_ops.scatter_add(self._variable, indices, values, use_locking=use_locking, name=name)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        indices, values = _sparse_delta(sparse_delta)
        return state_ops.scatter_sub(self._variable, indices, values, use_locking=use_locking, name=name)

    def count_up_to(self, limit):
        """Increments this int32/int64 scalar variable until it reaches
        `limit`; returns the value before the increment (OutOfRangeError at
        the limit)."""
        return state_ops.count_up_to(self._variable, limit)

    # -- checkpoint support
    def _get_save_slice_info(self):
        return self._save_slice_info

    def to_proto(self, export_scope=None):
        """This variable's VariableDef, names relative to `export_scope`
        (None when the variable is outside it)."""
        from flowvm import variable_pb2
        if export_scope is not None and not self._variable.name.startswith(export_scope):
            return None
        d = variable_pb2.VariableDef()
        d.variable_name = ops.strip_name_scope(self._variable.name, export_scope)
        if self._initial_value is not None:
            d.initial_value_name = ops.strip_name_scope(self._initial_value.name, export_scope)
        d.trainable = self._trainable
        d.initializer_name = ops.strip_name_scope(self._initializer_op.name, export_scope)
        d.snapshot_name = ops.strip_name_scope(self._snapshot.name, export_scope)
        return d

    @staticmethod
    def from_proto(variable_def, import_scope=None):
        return Variable(variable_def=variable_def, import_scope=import_scope)

    def __repr__(self):
        return "<tf.Variable '%s' shape=%s dtype=%s>" % (self.name, self.shape, self.dtype.name)

    def __iter__(self):
        raise TypeError("'Variable' object is not iterable.")

    def __bool__(self):
        raise TypeError("Using a `tf.Variable` as a Python `bool` is not allowed.")

    __nonzero__ = __bool__

    def __array__(self, dtype=None):
        raise NotImplementedError("Cannot convert a symbolic tf.Variable (%s) to a numpy array." % self.name)


VariableV1 = Variable

# Operators act on the value, through whatever Tensor defines (math_ops
# installs the arithmetic ones); looked up per call so that modules loaded
# later are seen.
_OPERATORS = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__div__", "__rdiv__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__lt__",
              "__le__", "__gt__", "__ge__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__",
              "__getitem__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__", "__abs__",
              "__invert__"]


def _make_operator(op_name):
    def operator(self, *args):
        f = getattr(ops.Tensor, op_name, None)
        if f is None:
            return NotImplemented
        return f(self._snapshot, *args)
    operator.__name__ = op_name
    return operator


for _op_name in _OPERATORS:
    setattr(Variable, _op_name, _make_operator(_op_name))
del _op_name


def _variable_to_tensor(v, dtype=None, name=None, as_ref=False):
    if dtype is not None and not dtype.is_compatible_with(v.dtype):
        raise ValueError("Incompatible type conversion requested to type '%s' for variable of type '%s'"
                         % (dtype.name, v.dtype.name))
    return v._ref() if as_ref else v.value()


ops.register_tensor_conversion_function(Variable, _variable_to_tensor)


# ---- collections ---------------------------------------------------------------
def global_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope)


def all_variables():
    return global_variables()


def local_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.LOCAL_VARIABLES, scope)


def trainable_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES, scope)


def model_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope=None):
    return ops.get_collection(ops.GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


# ---- initializers ----------------------------------------------------------------
def variables_initializer(var_list, name="init"):
    """One op running every variable's initializer (a NoOp if there are none)."""
    return state_ops.group([v.initializer for v in var_list], name=name)


initialize_variables = variables_initializer


def global_variables_initializer():
    return variables_initializer(global_variables())


def initialize_all_variables():
    return global_variables_initializer()


def local_variables_initializer():
    return variables_initializer(local_variables())


def initialize_local_variables():
    return local_variables_initializer()


def is_variable_initialized(variable):
    return state_ops.is_variable_initialized(variable)


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor: the names of the variables not yet initialized."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    with ops.name_scope(name):
        if not var_list:
            return constant_op.constant([], dtype=dtypes.string)
        inited = gen_ops.pack([state_ops.is_variable_initialized(v) for v in var_list])
        mask = gen_ops.logical_not(inited)
        names = constant_op.constant([v.op.name for v in var_list])
        where = gen_ops.where(mask)
        idx = gen_ops.reshape(where, constant_op.constant([-1], dtype=dtypes.int32))
        return gen_ops.gather_v2(names, idx, constant_op.constant(0), name="boolean_mask")


def assert_variables_initialized(var_list=None):
    """An op that fails with FailedPreconditionError if any variable is uninitialized."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    if not var_list:
        return None
    with ops.name_scope("assert_variables_initialized"):
        ranks = [gen_ops.rank(v._snapshot if isinstance(v, Variable) else v) for v in var_list]
        return gen_ops.pack(ranks)


def _sparse_delta(sparse_delta):
    """(indices, values) of an IndexedSlices; anything else with both
    attributes is taken too, since flowvm has no IndexedSlices class yet."""
    if not (hasattr(sparse_delta, "indices") and hasattr(sparse_delta, "values")):
        raise TypeError("sparse_delta is not IndexedSlices: %s" % (sparse_delta,))
    return sparse_delta.indices, sparse_delta.values


assign = state_ops.assign
assign_add = state_ops.assign_add
assign_sub = state_ops.assign_sub
scatter_update = state_ops.scatter_update
scatter_add = state_ops.scatter_add
scatter_sub = state_ops.scatter_sub
count_up_to = state_ops.count_up_to
