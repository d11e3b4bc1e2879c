"""tf.import_graph_def (TensorFlow's framework/importer.py)."""
from flowvm.tf.framework import ops


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """Adds the nodes of `graph_def` to the default graph under the name
    scope `name` ("import" by default; "" for none). `input_map` maps input
    names of the GraphDef ("x:0", "x") to existing Tensors; the named
    `return_elements` come back as Tensors ("x:0") or Operations ("x")."""
    from flowvm import graph_pb2
    if isinstance(graph_def, (bytes, bytearray)):
        gd = graph_pb2.GraphDef()
        gd.ParseFromString(bytes(graph_def))
        graph_def = gd
    g = ops.get_default_graph()
    input_map = dict(input_map or {})
    for k, v in input_map.items():
        if not isinstance(v, ops.Tensor):
            raise TypeError("input_map values must be Tensors, got %r for %r" % (v, k))
        if v.graph is not g:
            raise ValueError("input_map value %s is not in the default graph" % v.name)
    known = {nd.name for nd in graph_def.node}
    for k in input_map:
        node = k.lstrip("^").split(":")[0]
        if node not in known:
            raise ValueError("Attempted to map inputs that were not found in graph_def: [%s]" % k)
    with g.name_scope(name or "import" if name != "" else None) as scope:
        prefix = scope
    if name == "":
        prefix = ""

    def mapped(inp):
        if inp.startswith("^"):
            node = inp[1:]
            if node in input_map:
                return "^" + input_map[node].op.name
            return "^" + prefix + node
        node, _, port = inp.partition(":")
        full = inp if port else node + ":0"
        if full in input_map:
            return input_map[full].name
        if not port and node in input_map:
            return input_map[node].name
        return prefix + inp

    out = graph_pb2.GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    out.library.CopyFrom(graph_def.library)
    for nd in graph_def.node:
        new = out.node.add()
        new.CopyFrom(nd)
        new.name = prefix + nd.name
        del new.input[:]
        for inp in nd.input:
            new.input.append(mapped(inp))
        if "_class" in nd.attr:
            cls = [c.replace(b"loc:@", b"loc:@" + prefix.encode()) for c in nd.attr["_class"].list.s]
            del new.attr["_class"].list.s[:]
            new.attr["_class"].list.s.extend(cls)
    first = g._c.num_node_ids()
    ids = g._c.import_graph_def(out.SerializeToString())
    g._adopt_new_nodes(first)
    del ids
    if return_elements is None:
        return None
    result = []
    for el in return_elements:
        full = prefix + el
        result.append(g.as_graph_element(full, allow_tensor=True, allow_operation=True))
    return result

