"""Functions in the graph (TensorFlow 1.x's tensorflow.python.framework.function):
@Defun, Declare and the machinery that turns a Python function into a
FunctionDef of the graph's library.

    @function.Defun(tf.float32, tf.float32)
    def MulAdd(x, y):
        return x * y + 1.0

    z = MulAdd(a, b)          # a call node whose op is the function

The body is built once, in a graph of its own (_FuncGraph): one placeholder
per argument; tensors of enclosing graphs it uses are captured as extra
arguments, variables it creates live in the graph that calls it. flowvm's
C++ graph layer turns that graph into the FunctionDef; the runtime inlines
calls before placement, so a body is placed and partitioned like any other
nodes. tf.gradients differentiates calls through the body (SymbolicGradient),
a `grad_func` (a GradientDef), or a `python_grad_func`.
"""
import collections
import hashlib
import inspect
import itertools
import re

from flowvm import function_pb2
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import errors
from flowvm.tf.framework import ops
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import variable_scope as vs

__all__ = ["Defun", "Declare"]

_python_grad_ids = itertools.count()


def _make_argname_from_tensor_name(name):
    return re.sub(":0$", "", name).replace(":", "_o").replace("/", "_")


def _get_func_name(func):
    if callable(func):
        if inspect.isfunction(func):
            return func.__name__
        if inspect.ismethod(func):
            return "%s.%s" % (func.__self__.__class__.__name__, func.__name__)
        return type(func).__name__
    raise ValueError("Argument must be callable")


def _unique_names(names):
    """Names made unique with _1, _2, ... in order."""
    seen = collections.Counter()
    out = []
    for n in names:
        if seen[n]:
            candidate = "%s_%d" % (n, seen[n])
            while candidate in seen:
                seen[n] += 1
                candidate = "%s_%d" % (n, seen[n])
            seen[candidate] += 1
            out.append(candidate)
        else:
            out.append(n)
        seen[n] += 1
    return out


# Ops marked stateful only so that nothing prunes or folds them: a copy
# behaves as the original (capture by value).
_STATELESS_IN_EFFECT = frozenset(["Assert"])


class _FuncGraph(ops.Graph):
    """The graph a function's body is built in. Tensors of the graphs around
    it are captured: each becomes a placeholder here and an extra argument
    of the function, which calls pass from the calling graph. Variables the
    body creates are created in the calling graph (TensorFlow's
    capture-by-reference), and read where the body uses them."""

    def __init__(self, name, outer_graph, capture_by_value=False):
        super(_FuncGraph, self).__init__()
        self._func_name = name
        self._outer_graph = outer_graph
        self._capture_by_value = capture_by_value
        self._captured = collections.OrderedDict()  # id(outer tensor) -> (outer tensor, placeholder)
        self._copied_ops = {}  # (id(graph), op name) -> the copy made here (capture by value)
        self.extra_inputs = []  # outer tensors, in the order their placeholders were made
        self.extra_args = []  # the placeholders
        self.seed = outer_graph.seed
        # The body continues the caller's variable scope (its names, reuse
        # and getters): both graphs share the store of scopes.
        with outer_graph.as_default():
            vs.get_variable_scope_store()
        self._collections[vs._VARSCOPESTORE_KEY] = outer_graph._collections[vs._VARSCOPESTORE_KEY]

    @property
    def building_function(self):
        return True

    @property
    def outer_graph(self):
        return self._outer_graph

    def getvar(self, getter, name, shape=None, dtype=None, initializer=None, reuse=None, trainable=True,
               collections=None, use_resource=None, **kwargs):  # noqa: A002 - TF's signature
        """A custom getter: variables live in the calling graph."""
        # The variable's name is already scoped: create it at the top of the
        # calling graph's name scopes.
        with self._outer_graph.as_default(), self._outer_graph.name_scope(None):
            return getter(name, shape=shape, dtype=dtype, initializer=initializer, reuse=reuse,
                          trainable=trainable, collections=collections, use_resource=use_resource, **kwargs)

    def capture(self, tensor):
        """The placeholder standing for `tensor` of an enclosing graph."""
        if tensor.graph is self:
            return tensor
        key = id(tensor)
        hit = self._captured.get(key)
        if hit is not None:
            return hit[1]
        if self._capture_by_value:
            return self._add_tensor_and_parents(tensor)
        outer = tensor
        if isinstance(self._outer_graph, _FuncGraph) and tensor.graph is not self._outer_graph:
            outer = self._outer_graph.capture(tensor)  # through every function in between
        elif tensor.graph is not self._outer_graph:
            raise ValueError("Tensor %s used in function '%s' is from a graph that does not enclose it"
                             % (tensor.name, self._func_name))
        with self.as_default(), self.name_scope(None):
            placeholder = array_ops.placeholder(tensor.dtype.base_dtype, shape=tensor.shape,
                                                name=_make_argname_from_tensor_name(tensor.name))
        self._captured[key] = (tensor, placeholder)
        self.extra_inputs.append(outer)
        self.extra_args.append(placeholder)
        return placeholder

    def _add_tensor_and_parents(self, tensor):
        op = self._add_op_and_parents(tensor.op)
        return op.outputs[tensor.value_index]

    def _add_op_and_parents(self, op):
        """A copy of `op` (of an enclosing graph) and of the ops it depends
        on, made in this graph: capture by value. Constants and pure ops
        copy; placeholders and stateful ops (variables, queues, random
        numbers) cannot, except the ops that make datasets (their
        `variant` is a description, not state)."""
        key = (id(op.graph), op.name)
        copied = self._copied_ops.get(key)
        if copied is not None:
            return copied
        if op.type in ("Placeholder", "PlaceholderV2", "PlaceholderWithDefault"):
            raise ValueError("Cannot capture a placeholder (name:%s, type:%s) by value." % (op.name, op.type))
        op_def = op.op_def
        makes_datasets = op.outputs and all(t.dtype == dtypes.variant for t in op.outputs)
        if op_def.is_stateful and not makes_datasets and op.type not in _STATELESS_IN_EFFECT:
            raise ValueError("Cannot capture a stateful node (name:%s, type:%s) by value." % (op.name, op.type))
        inputs = [self._add_tensor_and_parents(t) for t in op.inputs]
        for attr in op_def.attr:
            if attr.type in ("func", "list(func)"):
                names = op.get_attr(attr.name)
                for fname in (names if isinstance(names, list) else [names]):
                    f = op.graph._get_function(fname)
                    if f is not None:
                        f.add_to_graph(self)
        grouped, i = [], 0
        for arg in op_def.input_arg:
            if arg.number_attr:
                n = op.get_attr(arg.number_attr)
            elif arg.type_list_attr:
                n = len(op.get_attr(arg.type_list_attr))
            else:
                grouped.append(inputs[i])
                i += 1
                continue
            grouped.append(inputs[i:i + n])
            i += n
        controls = [self._add_op_and_parents(c) for c in op.control_inputs]
        with self.as_default(), self.name_scope(None), self.control_dependencies(controls):
            new_op = self._create_op(op.type, grouped, {}, name=op.name, compute_device=False, _copy_of=op)
        self._copied_ops[key] = new_op
        return new_op

    def _capture_inputs(self, inputs):
        out = []
        for arg in inputs:
            if isinstance(arg, (list, tuple)):
                out.append([self._capture_one(t) for t in arg])
            else:
                out.append(self._capture_one(arg))
        return out

    def _capture_one(self, t):
        if isinstance(t, ops.Tensor) and t.graph is not self:
            return self.capture(t)
        return t

    def _create_op(self, op_type, inputs, attrs, name=None, compute_device=True, _unique=True, _copy_of=None):
        return super(_FuncGraph, self)._create_op(op_type, self._capture_inputs(inputs), attrs, name=name,
                                                  compute_device=compute_device, _unique=_unique, _copy_of=_copy_of)

    def _current_control_dependencies(self, input_ops):
        # Control dependencies on ops of an enclosing graph cannot cross into
        # the body; TensorFlow drops them too.
        return [op for op in super(_FuncGraph, self)._current_control_dependencies(input_ops) if op.graph is self]


class _DefinedFunction(object):
    """A Python function made a function of the graph: its definition (a
    FunctionDef), built the first time it is needed, and its properties.

    Attributes:
      name: the function's name.
      definition: its FunctionDef.
      grad_func_name: the name of its gradient function, if it has one.
      python_grad_func: a Python function computing its gradient, if given.
    """

    def __init__(self, func, argnames, input_types, func_name=None, grad_func=None, python_grad_func=None,
                 out_names=None, shape_func=None, capture_by_value=False, **kwargs):
        self._func = func
        self._input_types = input_types
        self._func_name = func_name
        if grad_func is not None and not isinstance(grad_func, _DefinedFunction):
            raise ValueError("grad_func must be a function made by Defun, not %r" % (grad_func,))
        if grad_func is not None and python_grad_func is not None:
            raise ValueError("At most one of grad_func and python_grad_func can be given")
        self._grad_func = grad_func
        self._python_grad_func = python_grad_func
        self._out_names = out_names
        self._shape_func = shape_func
        self._capture_by_value = capture_by_value
        self._extra_kwargs = kwargs
        self._definition = None
        self._sub_functions = collections.OrderedDict()
        self._extra_inputs = []
        self._python_grad_name = None
        self._args = []
        for i, argtype in enumerate(input_types):
            argname = argnames[i] if i < len(argnames) else "arg%d" % i
            self._args.append((argname, dtypes.as_dtype(argtype)))

    @property
    def name(self):
        self._create_definition_if_needed()
        return self._func_name

    @property
    def definition(self):
        self._create_definition_if_needed()
        return self._definition

    @property
    def captured_inputs(self):
        self._create_definition_if_needed()
        return list(self._extra_inputs)

    @property
    def grad_func_name(self):
        return self._grad_func.name if self._grad_func else None

    @property
    def python_grad_func(self):
        return self._python_grad_func

    @property
    def declared_input_types(self):
        return tuple(t for _, t in self._args)

    def _create_definition_if_needed(self):
        if self._definition is not None:
            return
        outer = ops.get_default_graph()
        temp = _FuncGraph(_get_func_name(self._func), outer, self._capture_by_value)
        with temp.as_default(), vs.variable_scope(vs.get_variable_scope(), custom_getter=temp.getvar):
            inputs = [array_ops.placeholder(argtype, name=argname) for argname, argtype in self._args]
            outputs = self._func(*inputs)
            if outputs is None:
                outputs = []
            elif isinstance(outputs, ops.Operation):
                outputs = []
            elif not isinstance(outputs, (list, tuple)):
                outputs = [outputs]
            if any(o is None for o in outputs):
                raise ValueError("Function %s can not return None." % _get_func_name(self._func))
            outputs = [ops.convert_to_tensor(o) for o in outputs]
            outputs = [temp.capture(o) if o.graph is not temp else o for o in outputs]
        self._extra_inputs = list(temp.extra_inputs)
        args = inputs + list(temp.extra_args)
        arg_names = _unique_names([argname for argname, _ in self._args] +
                                  [p.op.name for p in temp.extra_args])
        if self._out_names is not None:
            if len(self._out_names) != len(outputs):
                raise ValueError("Length of out_names (%d) does not match number of outputs (%d): %s" %
                                 (len(self._out_names), len(outputs), ", ".join(self._out_names)))
            out_names = list(self._out_names)
        else:
            out_names = _unique_names([_make_argname_from_tensor_name(o.name) for o in outputs])
        try:
            raw = temp._c.to_function_def("_", [t._ref() for t in args], arg_names,
                                          [t._ref() for t in outputs], out_names, [], [], False)
        except errors.OpError as e:
            raise ValueError("Function %s: %s" % (_get_func_name(self._func), e.message))
        fdef = function_pb2.FunctionDef()
        fdef.ParseFromString(raw)

        # The functions the body calls (defined in the temporary graph).
        self._sub_functions = collections.OrderedDict(temp._functions)
        hasher = hashlib.sha1()
        hasher.update(fdef.SerializeToString(deterministic=True))
        for subname in sorted(self._sub_functions):
            hasher.update(self._sub_functions[subname]._hash_str.encode("utf-8"))
        self._hash_str = hasher.hexdigest()[:8]
        if not self._func_name:
            self._func_name = "_".join([_get_func_name(self._func), self._hash_str])
        fdef.signature.name = self._func_name
        if self._func.__doc__:
            fdef.signature.description = self._func.__doc__
        self._definition = fdef

    def _library_proto(self):
        """This function with the functions it calls and its gradient
        function, as a FunctionDefLibrary."""
        lib = function_pb2.FunctionDefLibrary()
        seen = set()

        def add(f):
            if f.name in seen:
                return
            seen.add(f.name)
            for sub in f._sub_functions.values():
                add(sub)
            if f._grad_func is not None:
                add(f._grad_func)
                g = lib.gradient.add()
                g.function_name = f.name
                g.gradient_func = f._grad_func.name
            lib.function.add().CopyFrom(f.definition)

        add(self)
        return lib

    def add_to_graph(self, g):
        """Adds this function (and what it calls) to the library of g."""
        self._create_definition_if_needed()
        if g._get_function(self._func_name) is self:
            return
        g._add_function(self)

    def __hash__(self):
        self._create_definition_if_needed()
        return int(self._hash_str, 16)

    def __call__(self, *args, **kwargs):
        g = ops.get_default_graph()
        self.add_to_graph(g)
        if len(args) != len(self._args):
            raise ValueError("Expected number of arguments: %d, received: %d" % (len(self._args), len(args)))
        converted = []
        for (argname, argtype), a in zip(self._args, args):
            converted.append(ops.convert_to_tensor(a, dtype=argtype, name=argname))
        converted += self._extra_inputs
        options = dict(self._extra_kwargs)
        options.update(kwargs)
        name = options.pop("name", None)
        attrs = {}
        noinline = options.pop("noinline", None)
        if noinline is not None:
            attrs["_noinline"] = bool(noinline)
        for key in ("compiled", "separate_compiled_gradients"):
            options.pop(key, None)  # XLA's: flowvm has no XLA
        for key in list(options):
            if key.startswith("experimental_"):
                options.pop(key)
        if options:
            raise ValueError("Unknown keyword arguments: %s" % sorted(options))
        if self._python_grad_func is not None:
            if self._python_grad_name is None:
                self._python_grad_name = "%s_PythonGrad_%d" % (self._func_name, next(_python_grad_ids))
                ops.RegisterGradient(self._python_grad_name)(self._python_grad_func)
            attrs["_gradient_op_type"] = self._python_grad_name
        with ops.name_scope(name, self._func_name, converted) as scope:
            op = g._create_op(self._func_name, converted, attrs, name=scope)
        op._defun = self
        if self._shape_func is not None:
            shapes = self._shape_func(op)
            if len(shapes) != len(op.outputs):
                raise ValueError("shape_func produced %d shapes for %d outputs" % (len(shapes), len(op.outputs)))
            for t, shape in zip(op.outputs, shapes):
                t.set_shape(shape)
        if not op.outputs:
            return op
        if len(op.outputs) == 1:
            return op.outputs[0]
        return tuple(op.outputs)


_DTYPE_TO_STR = {
    dtypes.float16: "f16", dtypes.float32: "f32", dtypes.float64: "f64", dtypes.int32: "i32",
    dtypes.uint8: "i8", dtypes.uint16: "u16", dtypes.uint32: "u32", dtypes.uint64: "u64", dtypes.int16: "i16",
    dtypes.int8: "i8", dtypes.string: "s", dtypes.complex64: "c64", dtypes.complex128: "c128",
    dtypes.int64: "i64", dtypes.bool: "b", dtypes.qint8: "qi8", dtypes.quint8: "qu8", dtypes.qint16: "qi16",
    dtypes.quint16: "qu16", dtypes.qint32: "qi32", dtypes.bfloat16: "b16",
}


def _type_list_to_str(types):
    if any(t not in _DTYPE_TO_STR for t in types):
        raise ValueError("Unsupported dtypes: %s" % (types,))
    return "".join(_DTYPE_TO_STR[t] for t in types)


class _OverloadedFunction(object):
    """A Defun without input types: one function per combination of the
    argument types it is called with."""

    def __init__(self, func, argnames, func_name=None, grad_func=None, python_grad_func=None, out_names=None,
                 **kwargs):
        self._func = func
        self._argnames = argnames
        self._func_name = func_name
        if grad_func is not None and not isinstance(grad_func, _OverloadedFunction):
            raise ValueError("The gradient of an overloaded function must be overloaded too")
        self._grad_func = grad_func
        self._python_grad_func = python_grad_func
        self._out_names = out_names
        self._extra_kwargs = kwargs
        self._overload = {}

    def instantiate(self, input_types):
        key = _type_list_to_str(input_types)
        defined = self._overload.get(key)
        if defined is None:
            name = self._func_name
            if name is not None:
                name = "_".join([name, key])
            defined = _DefinedFunction(self._func, self._argnames, input_types, name, None, self._python_grad_func,
                                       out_names=self._out_names, **self._extra_kwargs)
            _ = defined.name  # build it now
            if self._grad_func:
                output_types = [dtypes.DType(a.type) for a in defined.definition.signature.output_arg]
                defined._grad_func = self._grad_func.instantiate(list(input_types) + output_types)
            self._overload[key] = defined
        return defined

    def __call__(self, *args, **kwargs):
        input_types = []
        args = list(args)
        for i, x in enumerate(args):
            x = ops.convert_to_tensor(x)
            if not isinstance(x, ops.Tensor):
                raise ValueError("Expect a Tensor but get ", x)
            input_types.append(x.dtype.base_dtype)
            args[i] = x
        return self.instantiate(input_types)(*args, **kwargs)


class Defun(object):
    """Decorator defining a function of the graph (TensorFlow 1.x's
    tf.contrib.eager-free `function.Defun`).

        @Defun(tf.float32, tf.float32)
        def MyFunc(x, y):
            return x + y, x - y

        c, d = MyFunc(a, b, name="mycall")

    Keyword arguments: func_name, grad_func (a Defun computing the gradient
    from the inputs and the output gradients), python_grad_func (called as
    python_grad_func(op, *grads), as a registered gradient is), out_names,
    shape_func, capture_by_value, noinline. Without input types the function
    is instantiated for the types of each call's arguments.
    """

    def __init__(self, *input_types, **kwargs):
        self._input_types = input_types
        self._func_name = kwargs.pop("func_name", None)
        self._grad_func = kwargs.pop("grad_func", None)
        self._python_grad_func = kwargs.pop("python_grad_func", None)
        self._out_names = kwargs.pop("out_names", None)
        self._extra_kwargs = kwargs

    def __call__(self, func):
        if not callable(func):
            raise ValueError("function %s must be callable" % func)
        spec = inspect.getfullargspec(func)
        if spec.varkw or spec.defaults or spec.kwonlyargs:
            raise ValueError("Functions with argument defaults or keywords arguments are not supported. %s has "
                             "defaults %s and keywords %s." % (_get_func_name(func), spec.defaults, spec.varkw))
        min_args = len(spec.args)
        max_args = 1000000 if spec.varargs else min_args
        argnames = spec.args
        if inspect.ismethod(func):
            min_args -= 1
            max_args -= 1
            argnames = argnames[1:]
        if self._input_types:
            num = len(self._input_types)
            if num < min_args or num > max_args:
                raise ValueError("The function has fewer arguments than the number of specified input types.")
            return _DefinedFunction(func, argnames, self._input_types, self._func_name, self._grad_func,
                                    self._python_grad_func, out_names=self._out_names, **self._extra_kwargs)
        if min_args == 0 and max_args == 0:
            return _DefinedFunction(func, [], [], self._func_name, self._grad_func, self._python_grad_func,
                                    out_names=self._out_names, **self._extra_kwargs)
        return _OverloadedFunction(func, argnames, self._func_name, self._grad_func, self._python_grad_func,
                                   out_names=self._out_names, **self._extra_kwargs)


class Declare(object):
    """A function declared before it is defined, so that a body can call it
    (a recursive function, or one defined later):

        fact = Declare("Fact", [("n", tf.float32)], [("f", tf.float32)])

        @Defun(tf.float32, func_name="Fact")
        def Fact(n):
            return tf.cond(n <= 1, lambda: tf.ones_like(n), lambda: n * fact(n - 1))
    """

    def __init__(self, func_name, inputs, outputs):
        self._name = func_name
        from flowvm import op_def_pb2
        self._sig = op_def_pb2.OpDef()
        self._sig.name = func_name
        for name, t in inputs:
            self._sig.input_arg.add(name=name, type=dtypes.as_dtype(t).as_datatype_enum)
        for name, t in outputs:
            self._sig.output_arg.add(name=name, type=dtypes.as_dtype(t).as_datatype_enum)

    def __call__(self, *inputs, **kwargs):
        g = ops.get_default_graph()
        if len(inputs) != len(self._sig.input_arg):
            raise ValueError("Expected number of arguments: %d, received: %d" %
                             (len(self._sig.input_arg), len(inputs)))
        try:
            g._c.declare_function(self._sig.SerializeToString())
        except errors.OpError as e:
            raise ValueError(e.message)
        converted = [ops.convert_to_tensor(x, dtype=dtypes.DType(a.type), name=a.name)
                     for x, a in zip(inputs, self._sig.input_arg)]
        name = kwargs.pop("name", None)
        with ops.name_scope(name, self._name, converted) as scope:
            op = g._create_op(self._name, converted, {}, name=scope)
        if not op.outputs:
            return op
        return op.outputs[0] if len(op.outputs) == 1 else tuple(op.outputs)
