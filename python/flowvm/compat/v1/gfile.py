"""tf.gfile."""
from flowvm.tf.gfile import (GFile, Open, FastGFile, Exists, IsDirectory, MakeDirs, MkDir, ListDirectory,  # noqa: F401
                             Glob, Remove, DeleteRecursively, Copy, Rename, Stat, Walk)
