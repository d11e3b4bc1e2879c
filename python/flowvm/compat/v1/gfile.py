"""tf.gfile."""
from flowvm.tf.platform.gfile import (  # noqa: F401
    GFile, Open, FastGFile, Exists, IsDirectory, MakeDirs, MkDir, ListDirectory, Glob, Remove, DeleteRecursively,
    Copy, Rename, Stat, Walk)
