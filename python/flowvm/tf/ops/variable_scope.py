"""tf.variable_scope and tf.get_variable: variables shared by name.

Each graph keeps a store of the variables get_variable made (full name ->
Variable) and the current VariableScope. A scope prefixes variable names,
carries defaults (initializer, regularizer, dtype, custom getter) and the
reuse mode: False (create; an existing name is an error), True (reuse; a
missing name is an error) or AUTO_REUSE (either). Reuse is inherited by
sub-scopes. Entering a scope also opens a name scope for the ops made in
it, made unique as name scopes are ("a", then "a_1"), while the variables
keep the scope's own name ("a/w").
"""
import inspect
import traceback

from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_shape
from flowvm.tf.ops import init_ops
from flowvm.tf.ops import variables

__all__ = ["VariableScope", "variable_scope", "variable_op_scope", "get_variable_scope", "get_variable",
           "get_local_variable", "no_regularizer", "AUTO_REUSE", "variable", "enable_resource_variables",
           "disable_resource_variables", "resource_variables_enabled"]


class _ReuseMode(object):
    """The third reuse mode: get the variable if it exists, else create it."""

    def __repr__(self):
        return "_ReuseMode.AUTO_REUSE"


AUTO_REUSE = _ReuseMode()

_VARSTORE_KEY = ("__variable_store",)
_VARSCOPESTORE_KEY = ("__varscope",)


def no_regularizer(_):
    """Use this regularizer to turn a scope's regularizer off for one variable."""
    return None


def enable_resource_variables():
    raise NotImplementedError("resource variables are not supported: flowvm has TensorFlow 1.x's reference "
                              "variables")


def disable_resource_variables():
    pass


def resource_variables_enabled():
    return False


class _VariableStore(object):
    """The variables get_variable made in one graph, by full name."""

    def __init__(self):
        self._vars = {}

    def get_variable(self, name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None, reuse=None,
                     trainable=None, collections=None, caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None, synchronization=None,
                     aggregation=None):
        if custom_getter is not None and not callable(custom_getter):
            raise ValueError("Passed a custom_getter which is not callable: %s" % custom_getter)

        def true_getter(name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None, reuse=None,
                        trainable=None, collections=None, caching_device=None, partitioner=None,
                        validate_shape=True, use_resource=None, constraint=None, **unused):
            if partitioner is not None:
                raise NotImplementedError("get_variable: partitioned variables (partitioner=...) are not "
                                          "supported by flowvm (variable %s)" % name)
            return self._get_single_variable(name, shape, dtype, initializer, regularizer, reuse, trainable,
                                             collections, caching_device, validate_shape, use_resource, constraint)

        kwargs = dict(name=name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                      reuse=reuse, trainable=trainable, collections=collections, caching_device=caching_device,
                      partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
                      synchronization=synchronization, aggregation=aggregation)
        if custom_getter is not None:
            # As TensorFlow: every argument by keyword, `constraint` only to
            # getters that name it or take **kwargs.
            try:
                params = inspect.signature(custom_getter).parameters
                takes_constraint = "constraint" in params or any(p.kind == p.VAR_KEYWORD for p in params.values())
            except (TypeError, ValueError):
                takes_constraint = True
            if takes_constraint:
                kwargs["constraint"] = constraint
            return custom_getter(getter=true_getter, **kwargs)
        return true_getter(constraint=constraint, **kwargs)

    def _get_single_variable(self, name, shape, dtype, initializer, regularizer, reuse, trainable, collections,
                             caching_device, validate_shape, use_resource, constraint):
        initializing_from_value = initializer is not None and not callable(initializer)
        if shape is not None and initializing_from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        dtype = dtypes.as_dtype(dtype)
        shape = tensor_shape.as_shape(shape)

        if name in self._vars:
            found = self._vars[name]
            if reuse is False:
                tb = getattr(found, "_creation_stack", None) or []
                raise ValueError("Variable %s already exists, disallowed. Did you mean to set reuse=True or "
                                 "reuse=tf.AUTO_REUSE in VarScope? Originally defined at:\n\n%s"
                                 % (name, "".join(traceback.format_list(tb))))
            if not shape.is_compatible_with(found.get_shape()):
                raise ValueError("Trying to share variable %s, but specified shape %s and found shape %s."
                                 % (name, shape, found.get_shape()))
            if not dtype.is_compatible_with(found.dtype):
                raise ValueError("Trying to share variable %s, but specified dtype %s and found dtype %s."
                                 % (name, dtype.name, found.dtype.base_dtype.name))
            return found

        if reuse is True:
            raise ValueError("Variable %s does not exist, or was not created with tf.get_variable(). Did you mean "
                             "to set reuse=tf.AUTO_REUSE in VarScope?" % name)

        if initializer is None:
            initializer, initializing_from_value = _default_initializer(name, dtype)
        if initializing_from_value:
            init_val = initializer
            variable_dtype = None
        else:
            if inspect.isclass(initializer):
                initializer = initializer()
            if shape.is_fully_defined():
                full_shape = shape.as_list()

                def init_val():
                    return initializer(full_shape, dtype=dtype, partition_info=None)
                variable_dtype = dtype.base_dtype
            elif _takes_no_required_args(initializer):
                init_val = initializer
                variable_dtype = None
            else:
                raise ValueError("The initializer passed is not valid. It should be a callable with no arguments "
                                 "and the shape should not be provided or an instance of "
                                 "`tf.keras.initializers.*' and `shape` should be fully defined.")
        v = variables.Variable(initial_value=init_val, name=name, trainable=trainable, collections=collections,
                               caching_device=caching_device, dtype=variable_dtype, validate_shape=validate_shape,
                               constraint=constraint, use_resource=use_resource)
        v._creation_stack = [f for f in traceback.extract_stack()[:-3] if "/flowvm/tf/" not in f.filename][-5:]
        self._vars[name] = v

        if regularizer:
            with ops.colocate_with(v.op):
                with ops.name_scope(name + "/Regularizer/"):
                    with ops.control_dependencies(None):
                        loss = regularizer(v)
                    if loss is not None:
                        ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, loss)
        return v


def _takes_no_required_args(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def _default_initializer(name, dtype):
    if dtype.is_floating:
        return init_ops.glorot_uniform_initializer(), False
    if dtype.is_integer or dtype.is_unsigned or dtype.is_bool or dtype.base_dtype == dtypes.string:
        return init_ops.zeros_initializer(), False
    raise ValueError("An initializer for variable %s of %s is required" % (name, dtype.base_dtype))


class VariableScope(object):
    """A variable scope: a name prefix with defaults for get_variable.

    reuse is False, True or AUTO_REUSE; the other fields are the defaults
    get_variable uses when its caller gives none."""

    def __init__(self, reuse, name="", initializer=None, regularizer=None, caching_device=None, partitioner=None,
                 custom_getter=None, name_scope="", dtype=dtypes.float32, use_resource=None, constraint=None):
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    @property
    def name(self):
        return self._name

    @property
    def original_name_scope(self):
        return self._name_scope

    @property
    def reuse(self):
        return self._reuse

    @property
    def initializer(self):
        return self._initializer

    @property
    def dtype(self):
        return self._dtype

    @property
    def use_resource(self):
        return self._use_resource

    @property
    def regularizer(self):
        return self._regularizer

    @property
    def caching_device(self):
        return self._caching_device

    @property
    def partitioner(self):
        return self._partitioner

    @property
    def custom_getter(self):
        return self._custom_getter

    @property
    def constraint(self):
        return self._constraint

    def reuse_variables(self):
        self._reuse = True

    def set_initializer(self, initializer):
        self._initializer = initializer

    def set_dtype(self, dtype):
        self._dtype = dtype

    def set_use_resource(self, use_resource):
        if use_resource:
            enable_resource_variables()
        self._use_resource = use_resource

    def set_regularizer(self, regularizer):
        self._regularizer = regularizer

    def set_caching_device(self, caching_device):
        self._caching_device = caching_device

    def set_partitioner(self, partitioner):
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter):
        self._custom_getter = custom_getter

    def get_collection(self, name):
        scope = self._name + "/" if self._name else ""
        return ops.get_collection(name, scope)

    def trainable_variables(self):
        return self.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self):
        return self.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self):
        return self.get_collection(ops.GraphKeys.LOCAL_VARIABLES)

    def get_variable(self, var_store, name, shape=None, dtype=None, initializer=None, regularizer=None, reuse=None,
                     trainable=None, collections=None, caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None, synchronization=None,
                     aggregation=None):
        if regularizer is None:
            regularizer = self._regularizer
        if caching_device is None:
            caching_device = self._caching_device
        if partitioner is None:
            partitioner = self._partitioner
        if custom_getter is None:
            custom_getter = self._custom_getter
        if reuse is None:
            reuse = self._reuse
        if use_resource is None:
            use_resource = self._use_resource
        full_name = self.name + "/" + name if self.name else name
        # A variable's name depends on the variable scope only: the ops
        # that make it are named from the root.
        with ops.name_scope(None):
            if dtype is not None and initializer is not None and not callable(initializer):
                init_dtype = ops.convert_to_tensor(initializer).dtype.base_dtype
                if init_dtype != dtypes.as_dtype(dtype).base_dtype:
                    raise ValueError("Initializer type '%s' and explicit dtype '%s' don't match."
                                     % (init_dtype, dtype))
            if initializer is None:
                initializer = self._initializer
            if constraint is None:
                constraint = self._constraint
            if dtype is None:
                dtype = self._dtype
            return var_store.get_variable(full_name, shape=shape, dtype=dtype, initializer=initializer,
                                          regularizer=regularizer, reuse=reuse, trainable=trainable,
                                          collections=collections, caching_device=caching_device,
                                          partitioner=partitioner, validate_shape=validate_shape,
                                          use_resource=use_resource, custom_getter=custom_getter,
                                          constraint=constraint)


class _VariableScopeStore(object):
    """The current scope of a graph and how often each scope name was opened."""

    def __init__(self):
        self.current_scope = VariableScope(False)
        self.variable_scopes_count = {}

    def open_variable_scope(self, scope_name):
        self.variable_scopes_count[scope_name] = self.variable_scopes_count.get(scope_name, 0) + 1

    def close_variable_subscopes(self, scope_name):
        for k in list(self.variable_scopes_count):
            if scope_name is None or k.startswith(scope_name + "/"):
                self.variable_scopes_count[k] = 0

    def variable_scope_count(self, scope_name):
        return self.variable_scopes_count.get(scope_name, 0)


def _get_store(key, factory):
    coll = ops.get_collection_ref(key)
    if not coll:
        coll.append(factory())
    return coll[0]


def get_variable_scope_store():
    return _get_store(_VARSCOPESTORE_KEY, _VariableScopeStore)


def _get_default_variable_store():
    return _get_store(_VARSTORE_KEY, _VariableStore)


def get_variable_scope():
    """The current VariableScope of the default graph."""
    return get_variable_scope_store().current_scope


def _wrap_custom_getter(custom_getter, old_getter):
    """Getters nest: the inner scope's getter receives the outer one's as `getter`."""
    if old_getter is None:
        return custom_getter

    def wrapped(getter, *args, **kwargs):
        return custom_getter(lambda *a, **k: old_getter(getter, *a, **k), *args, **kwargs)
    return wrapped


def _get_unique_variable_scope(prefix):
    store = get_variable_scope_store()
    current = get_variable_scope()
    name = current.name + "/" + prefix if current.name else prefix
    if store.variable_scope_count(name) == 0:
        return prefix
    idx = 1
    while store.variable_scope_count(name + ("_%d" % idx)) > 0:
        idx += 1
    return prefix + ("_%d" % idx)


class _pure_variable_scope(object):  # noqa: N801 - TensorFlow's name
    """Switches the current VariableScope only (no name scope)."""

    def __init__(self, name_or_scope, reuse=None, initializer=None, regularizer=None, caching_device=None,
                 partitioner=None, custom_getter=None, old_name_scope=None, dtype=dtypes.float32,
                 use_resource=None, constraint=None):
        self._name_or_scope = name_or_scope
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._old_name_scope = old_name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        self._store = get_variable_scope_store()
        self._old = self._store.current_scope
        self._last_count = None

    def _apply_overrides(self, scope):
        if self._initializer is not None:
            scope.set_initializer(self._initializer)
        if self._regularizer is not None:
            scope.set_regularizer(self._regularizer)
        if self._caching_device is not None:
            scope.set_caching_device(self._caching_device)
        if self._partitioner is not None:
            scope.set_partitioner(self._partitioner)
        if self._custom_getter is not None:
            scope.set_custom_getter(_wrap_custom_getter(self._custom_getter, scope.custom_getter))
        if self._dtype is not None:
            scope.set_dtype(self._dtype)
        if self._use_resource is not None:
            scope.set_use_resource(self._use_resource)
        if self._constraint is not None:
            scope._constraint = self._constraint
        return scope

    def __enter__(self):
        src = self._name_or_scope
        if isinstance(src, VariableScope):
            self._new_name = src.name
            self._store.open_variable_scope(self._new_name)
            self._old_subscopes = dict(self._store.variable_scopes_count)
            scope = VariableScope(src.reuse if not self._reuse else self._reuse, name=src.name,
                                  initializer=src.initializer, regularizer=src.regularizer,
                                  caching_device=src.caching_device, partitioner=src.partitioner,
                                  custom_getter=src.custom_getter, name_scope=src.original_name_scope,
                                  dtype=src.dtype, use_resource=src.use_resource, constraint=src.constraint)
        else:
            old = self._old
            self._new_name = old.name + "/" + src if old.name else src
            self._store.open_variable_scope(self._new_name)
            scope = VariableScope(self._reuse or old.reuse, name=self._new_name, initializer=old.initializer,
                                  regularizer=old.regularizer, caching_device=old.caching_device,
                                  partitioner=old.partitioner, custom_getter=old.custom_getter,
                                  name_scope=src if self._old_name_scope is None else self._old_name_scope,
                                  dtype=old.dtype, use_resource=old.use_resource, constraint=old.constraint)
        self._apply_overrides(scope)
        self._store.current_scope = scope
        return scope

    def __exit__(self, *args):
        if isinstance(self._name_or_scope, VariableScope):
            self._store.variable_scopes_count = self._old_subscopes
        else:
            self._store.close_variable_subscopes(self._new_name)
        self._store.current_scope = self._old
        return False


class variable_scope(object):  # noqa: N801 - TensorFlow's name
    """tf.variable_scope(name_or_scope, default_name=None, values=None,
    initializer=None, regularizer=None, caching_device=None, partitioner=None,
    custom_getter=None, reuse=None, dtype=None, use_resource=None,
    constraint=None, auxiliary_name_scope=True)."""

    def __init__(self, name_or_scope, default_name=None, values=None, initializer=None, regularizer=None,
                 caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None,
                 use_resource=None, constraint=None, auxiliary_name_scope=True):
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._values = values
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._reuse = None if reuse is False else reuse  # False means "inherit", as None
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        if self._default_name is None and self._name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if self._reuse is not None and self._reuse is not True and self._reuse is not AUTO_REUSE:
            raise ValueError("The reuse parameter must be True or False or None.")
        if self._values is None:
            self._values = []
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError("The auxiliary_name_scope must be `True` or `False`, while get {}"
                            .format(auxiliary_name_scope))
        self._auxiliary_name_scope = auxiliary_name_scope
        self._stack = []

    def _pure(self, name_or_scope, old_name_scope):
        return _pure_variable_scope(name_or_scope, reuse=self._reuse, initializer=self._initializer,
                                    regularizer=self._regularizer, caching_device=self._caching_device,
                                    partitioner=self._partitioner, custom_getter=self._custom_getter,
                                    old_name_scope=old_name_scope, dtype=self._dtype,
                                    use_resource=self._use_resource, constraint=self._constraint)

    def __enter__(self):
        if self._name_or_scope is not None and not isinstance(self._name_or_scope, (VariableScope, str)):
            raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
        g = ops._graph_of(self._values)
        if g is not ops.get_default_graph():
            cm = g.as_default()
            cm.__enter__()
            self._stack.append(cm)
        try:
            return self._enter_scopes()
        except Exception:
            self._unwind(None, None, None)
            raise

    def _enter(self, cm):
        value = cm.__enter__()
        self._stack.append(cm)
        return value

    def _enter_scopes(self):
        src = self._name_or_scope
        if src is not None:
            if isinstance(src, str):
                ns_name = src
            else:
                ns_name = src.name.split("/")[-1]
            if not ns_name:
                return self._enter(self._pure(src, None))
            if self._auxiliary_name_scope:
                ns = self._enter(ops.name_scope(ns_name))
                old_name_scope = ns if isinstance(src, str) else src.original_name_scope
            elif isinstance(src, str):
                old_name_scope = ops.get_name_scope() + "/" if ops.get_name_scope() else ""
            else:
                # Ops stay in the current name scope; the scope keeps its own.
                old_name_scope = src.original_name_scope
            return self._enter(self._pure(src, old_name_scope))
        if self._reuse:
            raise ValueError("reuse=True cannot be used without a name_or_scope")
        if self._auxiliary_name_scope:
            ns = self._enter(ops.name_scope(self._default_name))
        else:
            ns = ops.get_name_scope() + "/" if ops.get_name_scope() else ""
        unique = _get_unique_variable_scope(self._default_name)
        return self._enter(self._pure(unique, ns))

    def _unwind(self, *exc):
        while self._stack:
            self._stack.pop().__exit__(*exc)

    def __exit__(self, *exc):
        self._unwind(*exc)
        return False


def variable_op_scope(values, name_or_scope, default_name=None, initializer=None, regularizer=None,
                      caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None,
                      use_resource=None, constraint=None):
    return variable_scope(name_or_scope, default_name=default_name, values=values, initializer=initializer,
                          regularizer=regularizer, caching_device=caching_device, partitioner=partitioner,
                          custom_getter=custom_getter, reuse=reuse, dtype=dtype, use_resource=use_resource,
                          constraint=constraint)


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                 collections=None, caching_device=None, partitioner=None, validate_shape=True, use_resource=None,
                 custom_getter=None, constraint=None, synchronization=None, aggregation=None):
    """The variable `name` of the current variable scope: made if the
    scope's reuse mode allows (and it does not exist), found otherwise."""
    return get_variable_scope().get_variable(_get_default_variable_store(), name, shape=shape, dtype=dtype,
                                             initializer=initializer, regularizer=regularizer,
                                             trainable=trainable, collections=collections,
                                             caching_device=caching_device, partitioner=partitioner,
                                             validate_shape=validate_shape, use_resource=use_resource,
                                             custom_getter=custom_getter, constraint=constraint)


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=False,
                       collections=None, caching_device=None, partitioner=None, validate_shape=True,
                       use_resource=None, custom_getter=None, constraint=None, synchronization=None,
                       aggregation=None):
    if collections:
        collections = list(collections) + [ops.GraphKeys.LOCAL_VARIABLES]
    else:
        collections = [ops.GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                        trainable=False, collections=collections, caching_device=caching_device,
                        partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
                        custom_getter=custom_getter, constraint=constraint)


def variable(initial_value=None, trainable=None, collections=None, validate_shape=True, caching_device=None,
             name=None, dtype=None, constraint=None, use_resource=None, **kwargs):
    """variable_scope.variable: a plain tf.Variable (no store, no reuse)."""
    return variables.Variable(initial_value=initial_value, trainable=trainable, collections=collections,
                              validate_shape=validate_shape, caching_device=caching_device, name=name,
                              dtype=dtype, constraint=constraint, use_resource=use_resource)
