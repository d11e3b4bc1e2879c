"""MetaGraphDef export and import (TensorFlow's framework/meta_graph.py).

A MetaGraphDef is a GraphDef plus what Python knows about it: the Saver's
node names (SaverDef) and the graph's collections. Collections hold
Tensors and Operations (stored by name), ints, floats and strings (stored
by value), and objects with a registered proto function (Variables as
VariableDef, Savers as SaverDef), stored serialized. Anything else is left
out with a warning, as TensorFlow does.
"""
import os

from flowvm.tf.framework import errors
from flowvm.tf.framework import graph_io
from flowvm.tf.framework import importer
from flowvm.tf.framework import ops
from flowvm.tf.ops import variables
from flowvm.tf.platform import tf_logging as logging

# The TensorFlow API version written into meta_info_def.tensorflow_version
# (the one flowvm.compat.v1 implements); flowvm's own goes in the git field.
TENSORFLOW_API_VERSION = "1.15.0"

# The collections that hold Variables: their items share one Variable
# object per VariableDef on import.
_VARIABLE_COLLECTIONS = [
    ops.GraphKeys.GLOBAL_VARIABLES, ops.GraphKeys.LOCAL_VARIABLES, ops.GraphKeys.METRIC_VARIABLES,
    ops.GraphKeys.MODEL_VARIABLES, ops.GraphKeys.TRAINABLE_VARIABLES, ops.GraphKeys.MOVING_AVERAGE_VARIABLES,
    ops.GraphKeys.CONCATENATED_VARIABLES, ops.GraphKeys.TRAINABLE_RESOURCE_VARIABLES, ops.GraphKeys.GLOBAL_STEP,
]


def _variable_from_proto(variable_def, import_scope=None):
    return variables.Variable(variable_def=variable_def, import_scope=import_scope)


def _variable_to_proto(variable, export_scope=None):
    return variable.to_proto(export_scope=export_scope)


def _register_variable_collections():
    from flowvm import variable_pb2
    for key in _VARIABLE_COLLECTIONS:
        ops.register_proto_function(key, proto_type=variable_pb2.VariableDef, to_proto=_variable_to_proto,
                                    from_proto=_variable_from_proto)


_register_variable_collections()


def _in_scope(name, export_scope):
    if not export_scope:
        return True
    scope = export_scope[:-1] if export_scope.endswith("/") else export_scope
    return name.startswith(scope + "/")


# ---- reading ---------------------------------------------------------------------
def read_meta_graph_file(filename):
    """The MetaGraphDef in `filename`, binary or text. A missing file raises
    IOError (OSError) "File ... does not exist."; one that parses as neither
    raises IOError "Cannot parse file ...", as TensorFlow 1.x does."""
    from google.protobuf import message
    from google.protobuf import text_format
    from flowvm import meta_graph_pb2
    if not os.path.isfile(filename):
        raise IOError("File %s does not exist." % filename)
    with open(filename, "rb") as f:
        content = f.read()
    # Text first: binary parsing is lenient enough to accept some text as
    # unknown fields, while binary content essentially never parses as text.
    text_error = None
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None:
        meta_graph_def = meta_graph_pb2.MetaGraphDef()
        try:
            text_format.Merge(text, meta_graph_def)
            return meta_graph_def
        except text_format.ParseError as e:
            text_error = e
    meta_graph_def = meta_graph_pb2.MetaGraphDef()
    try:
        meta_graph_def.ParseFromString(content)
    except message.DecodeError as e:
        raise IOError("Cannot parse file %s: %s." % (filename, text_error or e))
    if not meta_graph_def.ListFields():
        # Bytes that parse only as fields a MetaGraphDef does not have (a
        # newer writer's extras alone would not make a usable file either).
        raise IOError("Cannot parse file %s: %s." % (filename, text_error or "not a MetaGraphDef"))
    return meta_graph_def


# ---- export ------------------------------------------------------------------------
def stripped_op_list_for_graph(graph_def):
    """The OpDefs of the op types `graph_def` uses, without documentation."""
    from flowvm import op_def_pb2
    used = sorted({nd.op for nd in graph_def.node})
    out = op_def_pb2.OpList()
    for op_type in used:
        try:
            op_def = ops.get_op_def(op_type)
        except errors.NotFoundError:
            continue  # an op this build lacks: nothing to describe it with
        d = out.op.add()
        d.CopyFrom(op_def)
        d.summary = ""
        d.description = ""
        for arg in list(d.input_arg) + list(d.output_arg):
            arg.description = ""
        for attr in d.attr:
            attr.description = ""
    return out


def _strip_default_attrs(graph_def):
    for nd in graph_def.node:
        try:
            op_def = ops.get_op_def(nd.op)
        except errors.NotFoundError:
            continue
        for attr_def in op_def.attr:
            if attr_def.HasField("default_value") and attr_def.name in nd.attr and \
                    nd.attr[attr_def.name] == attr_def.default_value:
                del nd.attr[attr_def.name]


def _scoped_graph_def(graph_def, export_scope):
    """The nodes under `export_scope`, named relative to it."""
    from flowvm import graph_pb2
    out = graph_pb2.GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    out.library.CopyFrom(graph_def.library)
    for nd in graph_def.node:
        if not _in_scope(nd.name, export_scope):
            continue
        new = out.node.add()
        new.CopyFrom(nd)
        new.name = ops.strip_name_scope(nd.name, export_scope)
        del new.input[:]
        for inp in nd.input:
            if not _in_scope(inp.lstrip("^"), export_scope):
                raise ValueError("export_meta_graph: node '%s' reads '%s', which is outside export_scope '%s' "
                                 "(flowvm does not export unbound inputs)" % (nd.name, inp, export_scope))
            new.input.append(ops.strip_name_scope(inp, export_scope))
        if "_class" in nd.attr:
            cls = [ops.strip_name_scope(c.decode("utf-8"), export_scope).encode("utf-8")
                   for c in nd.attr["_class"].list.s]
            del new.attr["_class"].list.s[:]
            new.attr["_class"].list.s.extend(cls)
    return out


def _kind_of(item):
    if isinstance(item, (str, bytes)):
        return "bytes_list"
    if isinstance(item, bool):
        return None  # TensorFlow's int64_list would take it; a bool is rarely meant as a number
    if isinstance(item, int):
        return "int64_list"
    if isinstance(item, float):
        return "float_list"
    if isinstance(item, (ops.Tensor, ops.Operation, variables.Variable)):
        # A Variable in a collection without proto functions goes by its
        # ref tensor's name, and comes back as that tensor (as in TensorFlow).
        return "node_list"
    from google.protobuf import any_pb2
    if isinstance(item, any_pb2.Any):
        return "any_list"
    return None


def add_collection_def(meta_graph_def, key, graph=None, export_scope=None):
    """Adds collection `key` of `graph` to `meta_graph_def`; a collection
    whose items cannot be written is left out with a warning."""
    if graph is None:
        graph = ops.get_default_graph()
    if not isinstance(key, str):
        logging.warning("Only collections with string type keys will be serialized. This key has %s", type(key))
        return
    items = graph.get_collection(key)
    if export_scope:
        items = [x for x in items if _in_scope(getattr(x, "name", "") or "", export_scope)
                 or not hasattr(x, "name")]
    if not items:
        return
    col_def = meta_graph_def.collection_def[key]
    try:
        to_proto = ops.get_to_proto_function(key)
        proto_type = ops.get_collection_proto_type(key)
        if to_proto is not None:
            for x in items:
                proto = to_proto(x, export_scope=export_scope)
                if proto is None:
                    continue
                if proto_type is not None and not isinstance(proto, proto_type):
                    raise TypeError("%r is not a %s" % (proto, proto_type.__name__))
                col_def.bytes_list.value.append(proto.SerializeToString())
        else:
            kind = _kind_of(items[0])
            if kind is None:
                raise TypeError("items of type %s cannot be written to a MetaGraphDef" % type(items[0]).__name__)
            for x in items:
                if _kind_of(x) != kind:
                    raise TypeError("the collection mixes %s and %s items" % (kind, type(x).__name__))
            if kind == "node_list":
                col_def.node_list.value.extend([ops.strip_name_scope(x.name, export_scope) for x in items])
            elif kind == "bytes_list":
                col_def.bytes_list.value.extend([x.encode("utf-8") if isinstance(x, str) else x for x in items])
            elif kind == "any_list":
                for x in items:
                    col_def.any_list.value.add().CopyFrom(x)
            else:
                getattr(col_def, kind).value.extend(items)
    except Exception as e:  # noqa: BLE001 - TensorFlow skips what it cannot write, with a warning
        logging.warning("Issue encountered when serializing: %s.\n%s", key, str(e))
        del meta_graph_def.collection_def[key]


def create_meta_graph_def(meta_info_def=None, graph_def=None, saver_def=None, collection_list=None, graph=None,
                          export_scope=None, strip_default_attrs=False):
    """A MetaGraphDef of `graph` (the default one) with the given parts."""
    import flowvm
    from flowvm import graph_pb2
    from flowvm import meta_graph_pb2
    from flowvm import saver_pb2
    if meta_info_def is not None and not isinstance(meta_info_def, meta_graph_pb2.MetaGraphDef.MetaInfoDef):
        raise TypeError("meta_info_def must be a MetaGraphDef.MetaInfoDef, not %s" % type(meta_info_def).__name__)
    if graph_def is not None and not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError("graph_def must be a GraphDef proto.")
    if saver_def is not None and not isinstance(saver_def, saver_pb2.SaverDef):
        raise TypeError("saver_def must be a SaverDef proto.")
    if graph is None:
        graph = ops.get_default_graph()
    m = meta_graph_pb2.MetaGraphDef()
    if meta_info_def is not None:
        m.meta_info_def.MergeFrom(meta_info_def)
    m.meta_info_def.tensorflow_version = TENSORFLOW_API_VERSION
    m.meta_info_def.tensorflow_git_version = "flowvm-" + flowvm.__version__
    if graph_def is None:
        graph_def = graph.as_graph_def(add_shapes=True)
    if export_scope:
        graph_def = _scoped_graph_def(graph_def, export_scope)
    m.graph_def.MergeFrom(graph_def)
    if not m.meta_info_def.stripped_op_list.op:
        m.meta_info_def.stripped_op_list.MergeFrom(stripped_op_list_for_graph(m.graph_def))
    if strip_default_attrs:
        _strip_default_attrs(m.graph_def)
        m.meta_info_def.stripped_default_attrs = True
    if saver_def is not None:
        m.saver_def.MergeFrom(saver_def)
        if export_scope:
            for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
                setattr(m.saver_def, field, ops.strip_name_scope(getattr(m.saver_def, field), export_scope))
    if collection_list is None:
        # Internal stores (variable scopes) sit under non-string keys.
        keys = [k for k in graph.get_all_collection_keys() if isinstance(k, str)]
    else:
        keys = collection_list
    for key in keys:
        add_collection_def(m, key, graph=graph, export_scope=export_scope)
    return m


def export_scoped_meta_graph(filename=None, graph_def=None, graph=None, export_scope=None, as_text=False,
                             unbound_inputs_col_name="unbound_inputs", clear_devices=False, saver_def=None,
                             clear_extraneous_savers=False, strip_default_attrs=False, save_debug_info=False,
                             meta_info_def=None, collection_list=None):
    """(MetaGraphDef, {name: Variable}) of `graph`, written to `filename`
    (text or binary) when one is given."""
    if clear_extraneous_savers:
        raise NotImplementedError("export_meta_graph(clear_extraneous_savers=True) is not supported by flowvm")
    if save_debug_info:
        raise NotImplementedError("export_meta_graph(save_debug_info=True): flowvm writes no GraphDebugInfo file")
    if graph is None:
        graph = ops.get_default_graph()
    if graph_def is None:
        graph_def = graph.as_graph_def(add_shapes=True)
    else:
        from flowvm import graph_pb2
        if not isinstance(graph_def, graph_pb2.GraphDef):
            raise TypeError("graph_def must be a GraphDef proto.")
    if clear_devices:
        copy = type(graph_def)()
        copy.CopyFrom(graph_def)
        for nd in copy.node:
            nd.device = ""
        graph_def = copy
    m = create_meta_graph_def(meta_info_def=meta_info_def, graph_def=graph_def, saver_def=saver_def,
                              collection_list=collection_list, graph=graph, export_scope=export_scope,
                              strip_default_attrs=strip_default_attrs)
    if filename:
        graph_io.write_graph(m, os.path.dirname(filename), os.path.basename(filename), as_text=as_text)
    var_list = {}
    for v in graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES):
        if _in_scope(v.name, export_scope):
            var_list[ops.strip_name_scope(v.name, export_scope)] = v
    return m, var_list


# ---- import ----------------------------------------------------------------------------
def import_scoped_meta_graph(meta_graph_or_file, clear_devices=False, graph=None, import_scope=None,
                             input_map=None, unbound_inputs_col_name="unbound_inputs",
                             restore_collections_predicate=(lambda key: True)):
    """Imports a MetaGraphDef (or a file holding one); returns {name: Variable}
    of the imported variables, names relative to the import scope."""
    return import_scoped_meta_graph_with_return_elements(
        meta_graph_or_file, clear_devices=clear_devices, graph=graph, import_scope=import_scope,
        input_map=input_map, unbound_inputs_col_name=unbound_inputs_col_name,
        restore_collections_predicate=restore_collections_predicate)[0]


def import_scoped_meta_graph_with_return_elements(meta_graph_or_file, clear_devices=False, graph=None,
                                                  import_scope=None, input_map=None,
                                                  unbound_inputs_col_name="unbound_inputs",
                                                  restore_collections_predicate=(lambda key: True),
                                                  return_elements=None):
    """Imports the graph and collections of a MetaGraphDef (or a file
    holding one) into `graph` (the default one) under `import_scope`.
    Returns ({name: Variable} of the imported variables, the requested
    return elements or None)."""
    var_list, returned, _ = _import(meta_graph_or_file, clear_devices, graph, import_scope, input_map,
                                    unbound_inputs_col_name, restore_collections_predicate, return_elements)
    return var_list, returned


def _import(meta_graph_or_file, clear_devices, graph, import_scope, input_map, unbound_inputs_col_name,
            restore_collections_predicate, return_elements):
    from flowvm import meta_graph_pb2
    if isinstance(meta_graph_or_file, meta_graph_pb2.MetaGraphDef):
        meta_graph_def = meta_graph_or_file
    elif isinstance(meta_graph_or_file, (str, bytes, os.PathLike)):
        meta_graph_def = read_meta_graph_file(os.fsdecode(meta_graph_or_file))
    else:
        raise TypeError("import_meta_graph takes a MetaGraphDef or a file name, not %s"
                        % type(meta_graph_or_file).__name__)
    if unbound_inputs_col_name and unbound_inputs_col_name in meta_graph_def.collection_def:
        col = meta_graph_def.collection_def[unbound_inputs_col_name]
        unbound = list(col.bytes_list.value) + list(col.node_list.value)
        unbound = [u.decode("utf-8") if isinstance(u, bytes) else u for u in unbound]
        if unbound and (not input_map or set(unbound) - set(input_map)):
            raise ValueError("Graph contains unbound inputs: %s. Must provide these inputs through input_map."
                             % ",".join(unbound))
    graph = graph or ops.get_default_graph()
    with graph.as_default():
        graph_def = meta_graph_def.graph_def
        if clear_devices:
            graph_def = type(graph_def)()
            graph_def.CopyFrom(meta_graph_def.graph_def)
            for nd in graph_def.node:
                nd.device = ""
        if import_scope:
            scope = graph.unique_name(import_scope, mark_as_used=False)
        else:
            scope = ""
        producer_op_list = None
        if meta_graph_def.HasField("meta_info_def") and meta_graph_def.meta_info_def.HasField("stripped_op_list"):
            producer_op_list = meta_graph_def.meta_info_def.stripped_op_list
        # The same scope import_graph_def's name scope makes unique.
        returned = importer.import_graph_def(graph_def, name=import_scope or "", input_map=input_map,
                                             producer_op_list=producer_op_list, return_elements=return_elements)
        variable_objects = {}
        for key, col_def in sorted(meta_graph_def.collection_def.items()):
            if not restore_collections_predicate(key):
                continue
            if key == unbound_inputs_col_name:
                continue
            _import_collection(graph, key, col_def, scope, variable_objects)
        var_list = {}
        for v in graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope or None):
            var_list[ops.strip_name_scope(v.name, scope)] = v
    return var_list, returned, meta_graph_def


def _import_collection(graph, key, col_def, scope, variable_objects):
    from google.protobuf import message
    kind = col_def.WhichOneof("kind")
    if kind is None:
        logging.error("Cannot identify data type for collection %s. Skipping.", key)
        return
    from_proto = ops.get_from_proto_function(key)
    if key == ops.GraphKeys.METRIC_VARIABLES:
        from_proto = ops.get_from_proto_function(ops.GraphKeys.GLOBAL_VARIABLES)
    if from_proto is not None and kind == "bytes_list":
        proto_type = ops.get_collection_proto_type(key)
        for value in col_def.bytes_list.value:
            # One object per serialized proto, shared by every collection
            # that lists it (a variable is global and trainable).
            item = variable_objects.get(value) if key in _VARIABLE_COLLECTIONS else None
            if item is None:
                proto = proto_type()
                try:
                    proto.ParseFromString(value)
                except message.DecodeError as e:
                    raise ValueError("collection '%s': an item is not a serialized %s: %s"
                                     % (key, proto_type.__name__, e))
                item = from_proto(proto, import_scope=scope)
                if key in _VARIABLE_COLLECTIONS:
                    variable_objects[value] = item
            graph.add_to_collection(key, item)
        return
    field = getattr(col_def, kind)
    if kind == "node_list":
        for value in field.value:
            graph.add_to_collection(key, graph.as_graph_element(ops.prepend_name_scope(value, scope)))
    elif kind == "int64_list":
        for value in field.value:
            graph.add_to_collection(key, int(value))
    elif kind == "float_list":
        for value in field.value:
            graph.add_to_collection(key, float(value))
    elif kind == "bytes_list":
        # TensorFlow names strings after the scope too (they are usually names).
        for value in field.value:
            graph.add_to_collection(key, ops.prepend_name_scope(value, scope) if scope else value)
    else:
        for value in field.value:
            graph.add_to_collection(key, value)
