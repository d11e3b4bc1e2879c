"""The "checkpoint" state file of a checkpoint directory, in TensorFlow's
text format, and checkpoint files by prefix.

    model_checkpoint_path: "model.ckpt-20"
    all_model_checkpoint_paths: "model.ckpt-10"
    all_model_checkpoint_paths: "model.ckpt-20"

Paths inside the directory are written relative to it (TensorFlow's
save_relative_paths), which is also what flowvm's C++ Saver and `flowvm
checkpoint` read; readers join them with the directory. The file is
replaced atomically (a temporary file renamed over it).
"""
import glob
import os

from flowvm.tf.framework import errors

__all__ = ["CheckpointState", "get_checkpoint_state", "update_checkpoint_state", "latest_checkpoint",
           "checkpoint_exists", "get_checkpoint_mtimes", "remove_checkpoint", "meta_graph_filename"]

_LATEST = "model_checkpoint_path"
_ALL = "all_model_checkpoint_paths"


class CheckpointState(object):
    """TensorFlow's CheckpointState message: model_checkpoint_path (the
    newest) and all_model_checkpoint_paths (oldest first)."""

    def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=()):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)

    def __eq__(self, other):
        return (isinstance(other, CheckpointState) and self.model_checkpoint_path == other.model_checkpoint_path
                and self.all_model_checkpoint_paths == other.all_model_checkpoint_paths)

    def __str__(self):
        lines = ['%s: "%s"' % (_LATEST, _escape(self.model_checkpoint_path))]
        lines += ['%s: "%s"' % (_ALL, _escape(p)) for p in self.all_model_checkpoint_paths]
        return "\n".join(lines) + "\n"

    __repr__ = __str__


def _escape(s):
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            i += 1
        out.append(s[i])
        i += 1
    return "".join(out)


def _parse(text, path):
    state = CheckpointState()
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        value = value.strip()
        if not sep or len(value) < 2 or value[0] != '"' or value[-1] != '"':
            raise errors.DataLossError(None, None, "%s:%d: malformed line %r" % (path, n, line))
        value = _unescape(value[1:-1])
        key = key.strip()
        if key == _LATEST:
            state.model_checkpoint_path = value
        elif key == _ALL:
            state.all_model_checkpoint_paths.append(value)
        elif key not in ("all_model_checkpoint_timestamps", "last_preserved_timestamp"):
            raise errors.DataLossError(None, None, "%s:%d: unknown field %r" % (path, n, key))
    return state


def _state_path(checkpoint_dir, latest_filename):
    return os.path.join(checkpoint_dir, latest_filename or "checkpoint")


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The directory's CheckpointState with paths joined to the directory,
    or None if it has no state file or the file cannot be parsed."""
    path = _state_path(checkpoint_dir, latest_filename)
    try:
        with open(path, "r") as f:
            text = f.read()
    except (IOError, OSError):
        return None
    try:
        state = _parse(text, path)
    except errors.DataLossError:
        return None
    if not state.model_checkpoint_path:
        return None

    def full(p):
        return p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)
    state.model_checkpoint_path = full(state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [full(p) for p in state.all_model_checkpoint_paths]
    return state


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None):
    """Writes the state file: model_checkpoint_path the newest, also last in
    all_model_checkpoint_paths."""
    all_paths = list(all_model_checkpoint_paths or [])
    if not all_paths or all_paths[-1] != model_checkpoint_path:
        all_paths.append(model_checkpoint_path)
    base = os.path.abspath(save_dir or ".")

    def rel(p):
        if os.path.dirname(os.path.abspath(p)) == base:
            return os.path.basename(p)
        return p
    state = CheckpointState(rel(model_checkpoint_path), [rel(p) for p in all_paths])
    path = _state_path(save_dir, latest_filename)
    if os.path.basename(path) and os.path.abspath(path) == os.path.abspath(model_checkpoint_path):
        raise RuntimeError("Save path '%s' conflicts with path used for checkpoint state.  Please use a different "
                           "save path." % model_checkpoint_path)
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write(str(state))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The newest checkpoint's prefix, or None if there is none (or its files are gone)."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is not None and checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    return None


def checkpoint_exists(checkpoint_prefix):
    """Whether a checkpoint with this prefix exists (its .index file)."""
    return os.path.exists(checkpoint_prefix + ".index")


def get_checkpoint_mtimes(checkpoint_prefixes):
    out = []
    for p in checkpoint_prefixes:
        try:
            out.append(os.path.getmtime(p + ".index"))
        except OSError:
            pass
    return out


def meta_graph_filename(checkpoint_filename, meta_graph_suffix="meta"):
    base = checkpoint_filename
    for s in ("-?????-of-?????",):
        if base.endswith(s):
            base = base[:-len(s)]
    return ".".join([base, meta_graph_suffix])


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=None, meta_graph_suffix="meta"):
    """Deletes a checkpoint's files: .index, every .data shard, and .meta."""
    prefix = glob.escape(checkpoint_prefix)
    doomed = glob.glob(prefix + ".index") + glob.glob(prefix + ".data-?????-of-?????")
    doomed += glob.glob(prefix + "." + meta_graph_suffix)
    for path in doomed:
        try:
            os.remove(path)
        except OSError:
            pass
