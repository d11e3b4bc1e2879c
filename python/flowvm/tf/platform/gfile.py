"""tf.gfile: TensorFlow 1.x's file API over the local file system.

Failures raise tf.errors classes naming the path (NotFoundError,
AlreadyExistsError, PermissionDeniedError, FailedPreconditionError);
paths with a scheme other than file:// raise UnimplementedError.
"""
import errno
import glob as _glob
import os
import shutil

from flowvm.tf.framework import errors


def _local(path):
    if isinstance(path, bytes):
        path = path.decode("utf-8")
    path = os.fspath(path)
    if "://" in path:
        scheme, rest = path.split("://", 1)
        if scheme != "file":
            raise errors.UnimplementedError(None, None, "File system scheme '%s' not implemented (file: %s)"
                                            % (scheme, path))
        return rest
    return path


def _raise_os_error(e, path, what):
    msg = "%s: %s: %s" % (what, path, e.strerror or e)
    code = e.errno
    if code == errno.ENOENT:
        raise errors.NotFoundError(None, None, msg)
    if code == errno.EEXIST:
        raise errors.AlreadyExistsError(None, None, msg)
    if code in (errno.EACCES, errno.EPERM, errno.EROFS):
        raise errors.PermissionDeniedError(None, None, msg)
    if code in (errno.ENOTDIR, errno.EISDIR, errno.ENOTEMPTY):
        raise errors.FailedPreconditionError(None, None, msg)
    raise errors.UnknownError(None, None, msg)


class GFile(object):
    """A file: tf.gfile.GFile(name, mode='r'). Text modes read and write
    str, binary modes ('b') bytes; the file opens on first use."""

    def __init__(self, name, mode="r"):
        self._name = _local(name)
        self._path = name
        if not mode or mode[0] not in "rwa" or any(c not in "rwab+" for c in mode):
            raise errors.InvalidArgumentError(None, None, "mode '%s' is not one of r, rb, w, wb, a, ab (+)" % mode)
        self._mode = mode
        self._binary = "b" in mode
        self._f = None
        if "r" in mode and "+" not in mode and not os.path.exists(self._name):
            # TensorFlow reports a missing file when the file is first read; the
            # constructor check makes `with GFile(missing)` fail early too.
            raise errors.NotFoundError(None, None, "%s; No such file or directory" % self._path)

    @property
    def name(self):
        return self._path

    @property
    def mode(self):
        return self._mode

    def _file(self):
        if self._f is None:
            try:
                self._f = open(self._name, self._mode if self._binary else self._mode + "b")
            except OSError as e:
                _raise_os_error(e, self._path, "open")
        return self._f

    def _decode(self, data):
        return data if self._binary else data.decode("utf-8")

    def _encode(self, data):
        if isinstance(data, str):
            return data.encode("utf-8")
        return bytes(data)

    def size(self):
        return stat(self._path).length

    def read(self, n=-1):
        return self._decode(self._file().read(-1 if n is None else n))

    def readline(self):
        return self._decode(self._file().readline())

    def readlines(self):
        return [self._decode(line) for line in self._file().readlines()]

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def write(self, file_content):
        if "r" in self._mode and "+" not in self._mode:
            raise errors.PermissionDeniedError(None, None, "File isn't open for writing: %s" % self._path)
        self._file().write(self._encode(file_content))

    def seek(self, offset=None, whence=0, position=None):
        if position is not None:
            offset = position
        self._file().seek(offset, whence)

    def tell(self):
        return self._file().tell()

    def flush(self):
        if self._f is not None:
            self._f.flush()

    def close(self):
        if self._f is not None:
            self._f.close()
            self._f = None

    def seekable(self):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: B902 - never raise from a finalizer
            pass


Open = GFile
FastGFile = GFile


class FileStatistics(object):
    def __init__(self, length=None, mtime_nsec=None, is_directory=None):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory


def Exists(filename):  # noqa: N802 - TensorFlow's names
    return os.path.exists(_local(filename))


def IsDirectory(dirname):  # noqa: N802
    return os.path.isdir(_local(dirname))


def MakeDirs(dirname):  # noqa: N802
    path = _local(dirname)
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        _raise_os_error(e, dirname, "MakeDirs")


def MkDir(dirname):  # noqa: N802
    path = _local(dirname)
    try:
        os.mkdir(path)
    except OSError as e:
        _raise_os_error(e, dirname, "MkDir")


def ListDirectory(dirname):  # noqa: N802
    path = _local(dirname)
    if not os.path.isdir(path):
        raise errors.NotFoundError(None, None, "Could not find directory %s" % dirname)
    try:
        return sorted(os.listdir(path))
    except OSError as e:
        _raise_os_error(e, dirname, "ListDirectory")


def Glob(filename):  # noqa: N802
    if isinstance(filename, (list, tuple)):
        out = []
        for f in filename:
            out.extend(Glob(f))
        return out
    return sorted(_glob.glob(_local(filename)))


def Remove(filename):  # noqa: N802
    path = _local(filename)
    if os.path.isdir(path):
        raise errors.FailedPreconditionError(None, None, "Remove: %s is a directory" % filename)
    try:
        os.remove(path)
    except OSError as e:
        _raise_os_error(e, filename, "Remove")


def DeleteRecursively(dirname):  # noqa: N802
    path = _local(dirname)
    if not os.path.exists(path):
        raise errors.NotFoundError(None, None, "DeleteRecursively: %s does not exist" % dirname)
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    except OSError as e:
        _raise_os_error(e, dirname, "DeleteRecursively")


def Copy(oldpath, newpath, overwrite=False):  # noqa: N802
    src, dst = _local(oldpath), _local(newpath)
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "Copy: file already exists: %s" % newpath)
    try:
        shutil.copyfile(src, dst)
    except OSError as e:
        _raise_os_error(e, oldpath, "Copy")


def Rename(oldname, newname, overwrite=False):  # noqa: N802
    src, dst = _local(oldname), _local(newname)
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "Rename: file already exists: %s" % newname)
    try:
        os.replace(src, dst)
    except OSError as e:
        _raise_os_error(e, oldname, "Rename")


def Stat(filename):  # noqa: N802
    try:
        st = os.stat(_local(filename))
    except OSError as e:
        _raise_os_error(e, filename, "Stat")
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(_local(filename)))


stat = Stat


def Walk(top, in_order=True):  # noqa: N802
    """Yields (dirname, subdirectory names, file names), parents first when
    in_order is true; a missing top yields nothing."""
    path = _local(top)
    if not os.path.isdir(path):
        return
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return
    subdirs = [n for n in names if os.path.isdir(os.path.join(path, n))]
    files = [n for n in names if n not in subdirs]
    here = (top, subdirs, files)
    if in_order:
        yield here
    for d in subdirs:
        for item in Walk(os.path.join(top, d), in_order):
            yield item
    if not in_order:
        yield here
