"""apply_op: adds one node from an op definition and Python arguments, as
TensorFlow's op_def_library does: converts Python and NumPy values to
constants of the type the op needs, infers type attrs from the inputs,
checks them, and returns the outputs grouped by output argument."""
import collections

from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_shape


GraphConstructionError = ops.GraphConstructionError


_output_tuples = {}


def _output_tuple(op_def):
    t = _output_tuples.get(op_def.name)
    if t is None:
        t = collections.namedtuple(op_def.name, [a.name for a in op_def.output_arg])
        _output_tuples[op_def.name] = t
    return t


def _find_graph(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            g = _find_graph(v)
            if g is not None:
                return g
        elif isinstance(v, (ops.Tensor, ops.Operation)):
            return v.graph
        else:
            g = getattr(v, "graph", None)
            if isinstance(g, ops.Graph):
                return g
    return None


def _encloses(outer, graph):
    """Whether `graph` is a function body built inside `outer`."""
    g = getattr(graph, "outer_graph", None)
    while g is not None:
        if g is outer:
            return True
        g = getattr(g, "outer_graph", None)
    return False


def _attr_default(op_def, attr_name):
    for a in op_def.attr:
        if a.name == attr_name and a.HasField("default_value") and a.default_value.WhichOneof("value") == "type":
            return dtypes.as_dtype(a.default_value.type)
    return None


def _convert(value, dtype, arg_name, op_type, preferred=None, as_ref=False):
    try:
        return ops.convert_to_tensor(value, dtype=dtype, preferred_dtype=preferred, as_ref=as_ref,
                                     name=arg_name)
    except ValueError as e:
        if isinstance(value, ops.Tensor) and dtype is not None:
            raise TypeError("Input '%s' of '%s' Op has type %s that does not match expected type of %s."
                            % (arg_name, op_type, value.dtype.name, dtype.name))
        raise e if dtype is None else TypeError("Expected %s passed to parameter '%s' of op '%s', got %r of type "
                                                "'%s' instead. Error: %s" % (dtype.name, arg_name, op_type, value,
                                                                               type(value).__name__, e))


def apply_op(op_type, inputs, attrs, name):
    """inputs: input arg name -> value; attrs: attr name -> value (None: the
    op's default, or inferred)."""
    op_def = ops.get_op_def(op_type)
    g = _find_graph(list(inputs.values()))
    default = ops.get_default_graph()
    if g is None or _encloses(g, default):
        # In a function's body, tensors of the graphs around it are captured.
        g = default
    with g.as_default(), g.name_scope(name or op_type) as scope:
        type_attrs = {}
        for k, v in attrs.items():
            if v is not None and any(a.name == k and a.type == "type" for a in op_def.attr):
                type_attrs[k] = dtypes.as_dtype(v)
        grouped = []
        final_attrs = {}
        for arg in op_def.input_arg:
            value = inputs[arg.name]
            as_ref = arg.is_ref
            if arg.number_attr:
                if not isinstance(value, (list, tuple)):
                    raise TypeError("Expected list for '%s' argument to '%s' Op, not %r." % (arg.name, op_type, value))
                dtype = type_attrs.get(arg.type_attr) if arg.type_attr else dtypes.as_dtype(arg.type)
                if dtype is None:
                    # The first tensor in the list decides, as TensorFlow does.
                    for v in value:
                        if isinstance(v, ops.Tensor):
                            dtype = v.dtype.base_dtype
                            break
                        conv = getattr(v, "dtype", None)
                        if conv is not None and isinstance(conv, dtypes.DType):
                            dtype = conv.base_dtype
                            break
                ts = [_convert(v, dtype, arg.name, op_type, _attr_default(op_def, arg.type_attr), as_ref)
                      for v in value]
                if arg.type_attr and ts:
                    base = ts[0].dtype.base_dtype
                    for t in ts:
                        if t.dtype.base_dtype != base:
                            raise TypeError("%s that don't all match." % ("Tensors in list passed to '%s' of '%s' Op "
                                                                          "have types %s" % (arg.name, op_type,
                                                                                             [x.dtype.name for x in ts])))
                    type_attrs.setdefault(arg.type_attr, base)
                final_attrs[arg.number_attr] = len(ts)
                grouped.append(list(ts))
            elif arg.type_list_attr:
                if not isinstance(value, (list, tuple)):
                    raise TypeError("Expected list for '%s' argument to '%s' Op, not %r." % (arg.name, op_type, value))
                given = attrs.get(arg.type_list_attr)
                ts = []
                for i, v in enumerate(value):
                    dt = dtypes.as_dtype(given[i]) if given else None
                    ts.append(_convert(v, dt, arg.name, op_type, as_ref=as_ref))
                grouped.append(ts)
            elif arg.type_attr:
                dtype = type_attrs.get(arg.type_attr)
                preferred = _attr_default(op_def, arg.type_attr) if dtype is None else None
                t = _convert(value, dtype, arg.name, op_type, preferred, as_ref)
                if dtype is not None and t.dtype.base_dtype != dtype:
                    raise TypeError("Input '%s' of '%s' Op has type %s that does not match type %s of argument '%s'."
                                    % (arg.name, op_type, t.dtype.base_dtype.name, dtype.name,
                                       _first_arg_with_attr(op_def, arg.type_attr)))
                type_attrs.setdefault(arg.type_attr, t.dtype.base_dtype)
                grouped.append(t)
            else:
                dtype = dtypes.as_dtype(arg.type)
                t = _convert(value, dtype, arg.name, op_type, as_ref=as_ref)
                grouped.append(t)
            if as_ref:
                ts = grouped[-1] if isinstance(grouped[-1], list) else [grouped[-1]]
                for t in ts:
                    if not t.dtype._is_ref_dtype:
                        raise TypeError("'%s' Op requires that input '%s' be a mutable tensor (e.g.: a tf.Variable)"
                                        % (op_type, arg.name))
        attr_types = {a.name: a.type for a in op_def.attr}
        for k, v in attrs.items():
            if v is None or k in final_attrs:
                continue
            if attr_types.get(k) == "type":
                v = _as_dtype_for(op_type, k, v)
            elif attr_types.get(k) == "list(type)":
                v = [_as_dtype_for(op_type, k, x) for x in v]
            final_attrs[k] = _attr_to_python(v)
        for k, v in type_attrs.items():
            if k not in final_attrs:
                final_attrs[k] = v.as_datatype_enum
        op = g._create_op(op_type, grouped, final_attrs, name=scope[:-1], _unique=False)
        return _outputs(op, op_def)


def _as_dtype_for(op_type, attr, value):
    try:
        return dtypes.as_dtype(value)
    except TypeError:
        raise TypeError("Value passed to attr '%s' of '%s' Op is %r, not a type" % (attr, op_type, value))


def _first_arg_with_attr(op_def, attr):
    for a in op_def.input_arg:
        if a.type_attr == attr:
            return a.name
    return attr


def _attr_to_python(v):
    if isinstance(v, dtypes.DType):
        return v.as_datatype_enum
    if isinstance(v, tensor_shape.TensorShape):
        return v._as_flowvm()
    if isinstance(v, tensor_shape.Dimension):
        return v.value
    if isinstance(v, (list, tuple)):
        return [_attr_to_python(x) for x in v]
    return v


def _outputs(op, op_def):
    outs = op.outputs
    if not op_def.output_arg:
        return op
    groups = []
    i = 0
    for arg in op_def.output_arg:
        if arg.number_attr:
            n = op.get_attr(arg.number_attr)
            groups.append(outs[i:i + n])
            i += n
        elif arg.type_list_attr:
            n = len(op.get_attr(arg.type_list_attr))
            groups.append(outs[i:i + n])
            i += n
        else:
            groups.append(outs[i])
            i += 1
    if len(groups) == 1:
        return groups[0]
    return _output_tuple(op_def)(*groups)

