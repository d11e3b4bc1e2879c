"""Module aliases: one module object importable under a second name.

flowvm.compat.v1.python.<X> is flowvm.tf.<X> (the implementation modules
under TensorFlow's internal paths: tensorflow.python.framework.ops, ...),
and the runner (flowvm.tf1) makes tensorflow.<X> flowvm.compat.v1.<X>.
The import system gets the module itself under the alias, so sys.modules
holds one object under both names: isinstance checks and module state agree
whichever name a program imported first.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys


class AliasLoader(importlib.abc.Loader):
    """Hands out the module `target` itself for the alias being imported."""

    def __init__(self, target):
        self._target = target
        self._saved = {}

    def create_module(self, spec):
        module = importlib.import_module(self._target)
        # The import system overwrites __spec__ (and would keep the alias's
        # name in it); exec_module puts the module's own back.
        self._saved = {k: getattr(module, k) for k in ("__spec__", "__loader__") if hasattr(module, k)}
        return module

    def exec_module(self, module):
        for k, v in self._saved.items():
            setattr(module, k, v)


def alias_spec(fullname, target):
    """A spec that imports `target` under the name `fullname`, or None when
    there is no module `target` (the import fails as a plain
    ModuleNotFoundError)."""
    try:
        found = importlib.util.find_spec(target)
    except (ImportError, ValueError):
        found = None
    if found is None:
        return None
    return importlib.machinery.ModuleSpec(fullname, AliasLoader(target),
                                          is_package=found.submodule_search_locations is not None)


class PrefixAliasFinder(importlib.abc.MetaPathFinder):
    """Resolves `alias` and `alias.<rest>` to `target` and `target.<rest>`.

    It must come before the path finder on sys.meta_path: the alias of a
    package has the package's __path__, where the path finder would load a
    second copy of each submodule under the alias's name."""

    def __init__(self, alias, target):
        self.alias = alias
        self.target = target

    def find_spec(self, fullname, path=None, target=None):
        if fullname == self.alias:
            name = self.target
        elif fullname.startswith(self.alias + "."):
            name = self.target + fullname[len(self.alias):]
        else:
            return None
        return alias_spec(fullname, name)


def install_prefix_alias(alias, target):
    """Makes `alias.<rest>` import `target.<rest>` in this process (once)."""
    for f in sys.meta_path:
        if isinstance(f, PrefixAliasFinder) and f.alias == alias:
            return
    sys.meta_path.insert(0, PrefixAliasFinder(alias, target))
