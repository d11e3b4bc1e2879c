"""tf.train.Saver over flowvm's checkpoints (SaveV2 / RestoreV2).

The graph part, under a "save" name scope, is TensorFlow's: the file name
is fed to "save/Const" (a PlaceholderWithDefault); "save/SaveV2" writes
every variable under its op name and "save/control_dependency" returns the
file name once written; "save/RestoreV2" reads them back, one
"save/Assign_N" per variable, grouped by "save/restore_all". A checkpoint
is `<prefix>.index` plus `<prefix>.data-00000-of-00001`, the same files
flowvm's C++ Saver writes, so `flowvm checkpoint PREFIX` and the C++ Saver
read them, and the Python Saver reads theirs.

save() also writes the graph as "<prefix>.meta" (a MetaGraphDef, see
meta_graph.py); import_meta_graph reads it back into a fresh graph and
returns a Saver over the imported save/restore nodes (its SaverDef).

Not supported: sharded saving writes a single shard (the checkpoint reads
the same), V1 checkpoints, and custom builders.
"""
import os
import time

from flowvm.tf.client import session as session_lib
from flowvm.tf.framework import errors
from flowvm.tf.framework import meta_graph
from flowvm.tf.framework import ops
from flowvm.tf.ops import gen_ops
from flowvm.tf.ops import state_ops
from flowvm.tf.ops import variables
from flowvm.tf.platform import tf_logging
from flowvm.tf.training import checkpoint_management
from flowvm.tf.training import training_util

__all__ = ["Saver", "latest_checkpoint", "get_checkpoint_state", "update_checkpoint_state", "checkpoint_exists",
           "get_checkpoint_mtimes", "remove_checkpoint", "export_meta_graph", "import_meta_graph"]


class CheckpointNotFoundError(errors.NotFoundError, ValueError):
    """restore() of a prefix with no checkpoint: a NotFoundError naming the
    path, and a ValueError as TensorFlow 1.15 raises there."""


from flowvm.saver_pb2 import SaverDef  # noqa: E402 - the names a Saver's graph part answers to


def _saveables(var_list):
    """(name, variable) pairs from a list (names: the ops') or a dict."""
    if var_list is None:
        var_list = variables.global_variables() + ops.get_collection(ops.GraphKeys.SAVEABLE_OBJECTS)
    if isinstance(var_list, dict):
        pairs = sorted(var_list.items(), key=lambda kv: kv[0])
    else:
        pairs = []
        for v in var_list:
            if isinstance(v, (list, tuple)):
                raise NotImplementedError("Saver: partitioned variables are not supported")
            if not isinstance(v, variables.Variable) and not isinstance(v, ops.Tensor):
                raise TypeError("Variable to save is not a Variable: %s" % v)
            pairs.append((v.op.name, v))
    seen = {}
    for name, v in pairs:
        if not isinstance(v, (variables.Variable, ops.Tensor)):
            raise TypeError("Variable to save is not a Variable: %s" % v)
        if isinstance(v, ops.Tensor) and not v.dtype._is_ref_dtype:
            raise TypeError("Saver: %s is a plain tensor; only variables (or their refs) can be restored" % v.name)
        if name in seen:
            raise ValueError("At least two variables have the same name: %s" % name)
        seen[name] = v
    return pairs


class Saver(object):
    """tf.train.Saver(var_list=None, reshape=False, sharded=False, max_to_keep=5,
    keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
    saver_def=None, builder=None, defer_build=False, allow_empty=False,
    write_version=V2, pad_step_number=False, save_relative_paths=False, filename=None)."""

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False, saver_def=None,
                 builder=None, defer_build=False, allow_empty=False, write_version=SaverDef.V2,
                 pad_step_number=False, save_relative_paths=False, filename=None):
        if reshape:
            raise NotImplementedError("Saver(reshape=True) is not supported by flowvm")
        if builder is not None:
            raise NotImplementedError("Saver(builder=...) is not supported by flowvm")
        if saver_def is None and write_version != SaverDef.V2:
            raise NotImplementedError("Saver: flowvm writes V2 checkpoints only")
        self._var_list = var_list
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_every_n_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._allow_empty = allow_empty
        self._pad_step_number = pad_step_number
        self._filename = filename
        self._last_checkpoints = []  # (prefix, time saved), oldest first
        self._next_checkpoint_time = time.time() + keep_checkpoint_every_n_hours * 3600
        self._is_built = False
        self._is_empty = False
        self.saver_def = None
        if saver_def is not None:
            self._init_from_saver_def(saver_def)
        elif not defer_build:
            self.build()

    def _init_from_saver_def(self, saver_def):
        # The graph part exists already (an imported graph's); `name` is the
        # scope it was imported under, as in TensorFlow.
        if not isinstance(saver_def, SaverDef):
            raise ValueError("saver_def must be a saver_pb2.SaverDef: %s" % saver_def)
        d = SaverDef()
        d.CopyFrom(saver_def)
        if self._name:
            for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
                setattr(d, field, ops.prepend_name_scope(getattr(d, field), self._name))
        for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
            if not getattr(d, field):
                raise ValueError("saver_def must specify the %s: %s" % (field, saver_def))
        if d.version != SaverDef.V2:
            raise NotImplementedError("Saver: saver_def has checkpoint version %s; flowvm reads and writes V2 only"
                                      % SaverDef.CheckpointFormatVersion.Name(d.version))
        self.saver_def = d
        self._max_to_keep = d.max_to_keep
        self._sharded = d.sharded
        self._keep_every_n_hours = d.keep_checkpoint_every_n_hours
        self._next_checkpoint_time = time.time() + d.keep_checkpoint_every_n_hours * 3600
        self._graph = ops.get_default_graph()
        self._is_built = True

    def build(self):
        if self._is_built:
            return
        pairs = _saveables(self._var_list)
        if not pairs:
            if self._allow_empty:
                self._is_empty = True
                self._is_built = True
                return
            raise ValueError("No variables to save")
        g = ops.get_default_graph()
        with ops.control_dependencies(None), ops.name_scope(self._name, "save"):
            # Inputs given as values become constants inside each op's own
            # scope ("save/filename/input", "save/SaveV2/tensor_names").
            filename = gen_ops.placeholder_with_default(self._filename or "model", shape=[], name="filename")
            filename = gen_ops.placeholder_with_default(filename, shape=[], name="Const")
            names = [n for n, _ in pairs]
            refs = [v._ref() if isinstance(v, variables.Variable) else v for _, v in pairs]
            dts = [r.dtype.base_dtype for r in refs]
            save = gen_ops.save_v2(filename, names, [""] * len(names), refs, name="SaveV2")
            with ops.control_dependencies([save]):
                saved = gen_ops.identity(filename, name="control_dependency")
            restored = gen_ops.restore_v2(filename, names, [""] * len(names), dts, name="RestoreV2")
            if not isinstance(restored, (list, tuple)):
                restored = [restored]
            assigns = []
            for ref, value in zip(refs, restored):
                # Each Assign goes where its variable is: it takes it by reference.
                with g.colocate_with(ref.op):
                    shape = ref.shape
                    assigns.append(state_ops.assign(ref, value, validate_shape=shape.is_fully_defined(),
                                                    name="Assign"))
            restore_all = state_ops.group(assigns, name="restore_all")
        self.saver_def = SaverDef(filename_tensor_name=filename.name, save_tensor_name=saved.name,
                                  restore_op_name=restore_all.name, max_to_keep=self._max_to_keep,
                                  sharded=self._sharded, keep_checkpoint_every_n_hours=self._keep_every_n_hours,
                                  version=SaverDef.V2)
        self._graph = g
        self._is_built = True

    # -- the kept checkpoints
    @property
    def last_checkpoints(self):
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints):
        self._last_checkpoints = [(p, None) for p in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        self._last_checkpoints = list(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths):
        mtimes = checkpoint_management.get_checkpoint_mtimes(checkpoint_paths)
        self.set_last_checkpoints_with_time(list(zip(checkpoint_paths, mtimes)))

    def _record(self, prefix):
        """The newest checkpoint is `prefix`; returns those to delete."""
        if not self._max_to_keep:
            return []
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != prefix]
        self._last_checkpoints.append((prefix, time.time()))
        doomed = []
        while len(self._last_checkpoints) > self._max_to_keep:
            p, t = self._last_checkpoints.pop(0)
            # keep_checkpoint_every_n_hours: one checkpoint per period survives.
            if t is not None and t > self._next_checkpoint_time:
                self._next_checkpoint_time += self._keep_every_n_hours * 3600
                continue
            doomed.append(p)
        return doomed

    # -- save / restore
    def save(self, sess, save_path, global_step=None, latest_filename=None, meta_graph_suffix="meta",
             write_meta_graph=True, write_state=True, strip_default_attrs=False, save_debug_info=False):
        """Writes the checkpoint `save_path` (`save_path-<global_step>` when
        given) and returns its prefix; lists it in the directory's state file
        and deletes checkpoints beyond max_to_keep. With write_meta_graph the
        session's graph goes to "<prefix>.<meta_graph_suffix>" (binary)."""
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        if latest_filename is None:
            latest_filename = "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        if not isinstance(sess, session_lib.BaseSession):
            raise TypeError("'sess' must be a Session; %s" % sess)
        if global_step is not None:
            if not isinstance(global_step, int):
                global_step = training_util.global_step(sess, global_step)
            checkpoint_file = ("%s-%08d" if self._pad_step_number else "%s-%d") % (save_path, global_step)
        else:
            checkpoint_file = save_path
            if os.path.basename(save_path) == latest_filename and not self._sharded:
                raise ValueError("'latest_filename' collides with 'save_path': '%s' and '%s'"
                                 % (latest_filename, save_path))
        if self._is_empty:
            return None
        parent = os.path.dirname(save_path)
        if parent and not os.path.isdir(parent):
            raise ValueError("Parent directory of {} doesn't exist, can't save.".format(save_path))
        prefix = sess.run(self.saver_def.save_tensor_name, {self.saver_def.filename_tensor_name: checkpoint_file})
        prefix = prefix.decode("utf-8") if isinstance(prefix, bytes) else str(prefix)
        if write_meta_graph:
            meta_file = checkpoint_management.meta_graph_filename(checkpoint_file, meta_graph_suffix)
            with sess.graph.as_default():
                self.export_meta_graph(meta_file, strip_default_attrs=strip_default_attrs,
                                       save_debug_info=save_debug_info)
        if write_state:
            doomed = self._record(prefix)
            checkpoint_management.update_checkpoint_state(parent, prefix, self.last_checkpoints,
                                                          latest_filename=latest_filename)
            for p in doomed:
                checkpoint_management.remove_checkpoint(p, SaverDef.V2, meta_graph_suffix)
        return prefix

    def restore(self, sess, save_path):
        """Assigns every saved variable its value from checkpoint `save_path`."""
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        if not checkpoint_management.checkpoint_exists(save_path):
            raise CheckpointNotFoundError(None, None, "The passed save_path is not a valid checkpoint: %s "
                                          "(%s.index does not exist)" % (save_path, save_path))
        sess.run(self.saver_def.restore_op_name, {self.saver_def.filename_tensor_name: save_path})

    def as_saver_def(self):
        return self.saver_def

    def to_proto(self, export_scope=None):
        """This Saver's SaverDef, names relative to `export_scope` (None
        when its nodes are outside it)."""
        if self.saver_def is None:
            return None
        if export_scope is None:
            d = SaverDef()
            d.CopyFrom(self.saver_def)
            return d
        if not self.saver_def.filename_tensor_name.startswith(export_scope):
            return None
        d = SaverDef()
        d.CopyFrom(self.saver_def)
        for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
            setattr(d, field, ops.strip_name_scope(getattr(d, field), export_scope))
        return d

    @staticmethod
    def from_proto(saver_def, import_scope=None):
        return Saver(saver_def=saver_def, name=import_scope)

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False, export_scope=None,
                          clear_devices=False, clear_extraneous_savers=False, strip_default_attrs=False,
                          save_debug_info=False):
        """export_meta_graph of the default graph with this Saver's SaverDef."""
        return export_meta_graph(filename=filename, graph_def=ops.get_default_graph().as_graph_def(add_shapes=True),
                                 saver_def=self.saver_def, collection_list=collection_list, as_text=as_text,
                                 export_scope=export_scope, clear_devices=clear_devices,
                                 clear_extraneous_savers=clear_extraneous_savers,
                                 strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info)


ops.register_proto_function(ops.GraphKeys.SAVERS, proto_type=SaverDef, to_proto=Saver.to_proto,
                            from_proto=Saver.from_proto)


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None, collection_list=None,
                      as_text=False, graph=None, export_scope=None, clear_devices=False,
                      clear_extraneous_savers=False, strip_default_attrs=False, save_debug_info=False, **kwargs):
    """tf.train.export_meta_graph: the MetaGraphDef of `graph` (the default
    one) with its collections and `saver_def`, written to `filename` when
    given (binary, or text with as_text)."""
    if kwargs:
        raise TypeError("export_meta_graph() got unexpected keyword arguments: %s" % ", ".join(sorted(kwargs)))
    if graph is not None and not isinstance(graph, ops.Graph):
        raise ValueError("graph must be a Graph, not %s" % type(graph).__name__)
    m, _ = meta_graph.export_scoped_meta_graph(filename=filename, meta_info_def=meta_info_def, graph_def=graph_def,
                                               saver_def=saver_def, collection_list=collection_list, as_text=as_text,
                                               graph=graph, export_scope=export_scope, clear_devices=clear_devices,
                                               clear_extraneous_savers=clear_extraneous_savers,
                                               strip_default_attrs=strip_default_attrs,
                                               save_debug_info=save_debug_info)
    return m


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """tf.train.import_meta_graph: adds the graph and collections of a
    MetaGraphDef (or a .meta file) to the default graph and returns a Saver
    over its save/restore nodes; None when it has no saver and no variables.
    kwargs: input_map, restore_collections_predicate, graph,
    unbound_inputs_col_name."""
    allowed = {"input_map", "restore_collections_predicate", "graph", "unbound_inputs_col_name"}
    unknown = set(kwargs) - allowed
    if unknown:
        raise TypeError("import_meta_graph() got unexpected keyword arguments: %s" % ", ".join(sorted(unknown)))
    graph = kwargs.pop("graph", None) or ops.get_default_graph()
    imported_vars, _, m = meta_graph._import(  # noqa: SLF001 - the MetaGraphDef read, for its SaverDef
        meta_graph_or_file, clear_devices, graph, import_scope, kwargs.get("input_map"),
        kwargs.get("unbound_inputs_col_name", "unbound_inputs"),
        kwargs.get("restore_collections_predicate", lambda key: True), None)
    saver_def = m.saver_def
    with graph.as_default():
        if m.HasField("saver_def"):
            scope = import_scope
            if imported_vars:
                # The scope the variables really landed under (import_scope made unique).
                key = sorted(imported_vars)[0]
                scope = imported_vars[key].name[:-len(key)]
            return Saver(saver_def=saver_def, name=scope)
        if variables.global_variables(import_scope) + ops.get_collection(ops.GraphKeys.SAVEABLE_OBJECTS,
                                                                          import_scope):
            return Saver()
        tf_logging.info("Saver not created because there are no variables in the graph to restore")
        return None


latest_checkpoint = checkpoint_management.latest_checkpoint
get_checkpoint_state = checkpoint_management.get_checkpoint_state
update_checkpoint_state = checkpoint_management.update_checkpoint_state
checkpoint_exists = checkpoint_management.checkpoint_exists
get_checkpoint_mtimes = checkpoint_management.get_checkpoint_mtimes
remove_checkpoint = checkpoint_management.remove_checkpoint
