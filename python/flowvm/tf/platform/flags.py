"""tf.flags (tf.app.flags): absl-style command-line flags.

Flags are defined at import time (DEFINE_string, ...) and parsed from
sys.argv: explicitly by FLAGS(argv) or tf.app.run (unknown flags are an
error there), or lazily on the first attribute read (unknown flags are
left alone then, as TensorFlow 1.x's wrapper does). Accepted forms:
--name=value, --name value, -name=value; booleans also --name, --noname;
"--" ends the flags.
"""
import sys


class Error(Exception):
    """Base class of the flag errors."""


class UnrecognizedFlagError(Error):
    def __init__(self, flagname, flagvalue="", suggestions=None):
        self.flagname = flagname
        self.flagvalue = flagvalue
        super(UnrecognizedFlagError, self).__init__("Unknown command line flag '%s'" % flagname)


class IllegalFlagValueError(Error):
    pass


class DuplicateFlagError(Error):
    pass


class UnparsedFlagAccessError(Error):
    pass


class ValidationError(Error):
    pass


class Flag(object):
    """One flag: name, default, help and the parsed value."""

    def __init__(self, name, default, help_string, parse, type_name, short_name=None, boolean=False):
        self.name = name
        self.help = help_string or ""
        self.short_name = short_name
        self.boolean = boolean
        self.flag_type_name = type_name
        self._parse = parse
        self.present = 0
        self.using_default_value = True
        self.default = None if default is None else self.parse_value(default)
        self.value = self.default

    def parse_value(self, argument):
        try:
            return self._parse(argument)
        except (TypeError, ValueError) as e:
            raise IllegalFlagValueError("flag --%s=%s: %s" % (self.name, argument, e))

    def parse(self, argument):
        self.value = self.parse_value(argument)
        self.present += 1
        self.using_default_value = False

    def unparse(self):
        self.value = self.default
        self.present = 0
        self.using_default_value = True

    def __repr__(self):
        return "<Flag --%s=%r>" % (self.name, self.value)


def _parse_bool(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)) and v in (0, 1):
        return bool(v)
    s = str(v).strip().lower()
    if s in ("true", "t", "1", "yes", "y"):
        return True
    if s in ("false", "f", "0", "no", "n"):
        return False
    raise ValueError("Non-boolean argument to boolean flag: %r" % (v,))


def _parse_int(v):
    if isinstance(v, bool):
        raise ValueError("Expect argument to be a string or int, found bool")
    if isinstance(v, int):
        return v
    s = str(v).strip()
    base = 16 if s.lower().startswith(("0x", "-0x")) else 10
    return int(s, base)


def _parse_float(v):
    if isinstance(v, bool):
        raise ValueError("Expect argument to be a string or float, found bool")
    return float(v)


def _parse_string(v):
    return v if isinstance(v, str) else str(v)


def _parse_list(v):
    if isinstance(v, (list, tuple)):
        return [str(x) for x in v]
    s = str(v).strip()
    return [x.strip() for x in s.split(",")] if s else []


class FlagValues(object):
    """A registry of flags; attribute access reads a flag's value."""

    def __init__(self):
        self.__dict__["_flags"] = {}
        self.__dict__["_parsed"] = False
        self.__dict__["_validators"] = []

    # -- defining
    def _register(self, flag):
        flags = self.__dict__["_flags"]
        for n in (flag.name, flag.short_name):
            if n is None:
                continue
            if n in flags:
                raise DuplicateFlagError("The flag '%s' is defined twice." % n)
        flags[flag.name] = flag
        if flag.short_name:
            flags[flag.short_name] = flag
        return flag

    def __contains__(self, name):
        return name in self.__dict__["_flags"]

    def __getitem__(self, name):
        return self.__dict__["_flags"][name]

    def __iter__(self):
        return iter(list(self.__dict__["_flags"]))

    def __len__(self):
        return len(self.__dict__["_flags"])

    def __delattr__(self, name):
        flags = self.__dict__["_flags"]
        if name not in flags:
            raise AttributeError(name)
        flag = flags.pop(name)
        for k in [k for k, v in flags.items() if v is flag]:
            del flags[k]

    # -- values
    def __getattr__(self, name):
        flags = self.__dict__["_flags"]
        if name not in flags:
            raise AttributeError(name)
        if not self.__dict__["_parsed"]:
            # TensorFlow 1.x's FLAGS parse sys.argv on first use, ignoring flags
            # defined elsewhere (a script may read FLAGS before tf.app.run).
            self._parse_args(list(sys.argv), known_only=True)
        return flags[name].value

    def __setattr__(self, name, value):
        flags = self.__dict__["_flags"]
        if name not in flags:
            raise AttributeError("Unknown flag: %s (define it with DEFINE_*)" % name)
        flag = flags[name]
        flag.value = value
        flag.present += 1
        flag.using_default_value = False

    def is_parsed(self):
        return self.__dict__["_parsed"]

    def mark_as_parsed(self):
        self.__dict__["_parsed"] = True

    def unparse_flags(self):
        for flag in set(self.__dict__["_flags"].values()):
            flag.unparse()
        self.__dict__["_parsed"] = False

    def flag_values_dict(self):
        return {name: flag.value for name, flag in self.__dict__["_flags"].items() if name == flag.name}

    def get_flag_value(self, name, default):
        flag = self.__dict__["_flags"].get(name)
        return default if flag is None else flag.value

    # -- parsing
    def __call__(self, argv, known_only=False):
        if isinstance(argv, str):
            raise TypeError("argv should be a tuple/list of strings, not bytes or string.")
        if not argv:
            raise ValueError("argv cannot be an empty list, and must contain the program name as the first element.")
        return self._parse_args(list(argv), known_only=known_only)

    def _parse_args(self, argv, known_only):
        flags = self.__dict__["_flags"]
        out = [argv[0]]
        args = argv[1:]
        i = 0
        unknown = []
        while i < len(args):
            arg = args[i]
            i += 1
            if arg == "--":
                out.extend(args[i:])
                break
            if not arg.startswith("-") or arg == "-":
                out.append(arg)
                continue
            body = arg[2:] if arg.startswith("--") else arg[1:]
            name, eq, value = body.partition("=")
            flag = flags.get(name)
            if flag is None and not eq and name.startswith("no") and name[2:] in flags and flags[name[2:]].boolean:
                flags[name[2:]].parse(False)
                continue
            if flag is None:
                if name in ("help", "helpfull", "h", "?") and not known_only:
                    sys.stdout.write(self.help_text(argv[0]) + "\n")
                    sys.exit(0)
                unknown.append(arg)
                if known_only:
                    out.append(arg)
                continue
            if not eq:
                if flag.boolean:
                    flag.parse(True)
                    continue
                if i >= len(args):
                    raise Error("Missing value for flag %s" % arg)
                value = args[i]
                i += 1
            flag.parse(value)
        if unknown and not known_only:
            name = unknown[0].lstrip("-").split("=", 1)[0]
            raise UnrecognizedFlagError(name, unknown[0])
        self.__dict__["_parsed"] = True
        for check in self.__dict__["_validators"]:
            check()
        return out

    def help_text(self, program=""):
        lines = ["USAGE: %s [flags]" % program, "flags:"]
        seen = set()
        for name in sorted(self.__dict__["_flags"]):
            flag = self.__dict__["_flags"][name]
            if flag.name in seen:
                continue
            seen.add(flag.name)
            lines.append("  --%s: %s\n    (default: %r)" % (flag.name, flag.help, flag.default))
        return "\n".join(lines)

    def main_module_help(self):
        return self.help_text(sys.argv[0] if sys.argv else "")


FLAGS = FlagValues()


def _define(parse, type_name, name, default, help, flag_values=None, short_name=None, boolean=False):  # noqa: A002
    fv = FLAGS if flag_values is None else flag_values
    flag = fv._register(Flag(name, default, help, parse, type_name, short_name, boolean))
    return _FlagHolder(fv, flag)


class _FlagHolder(object):
    """What DEFINE_* returns (absl's FlagHolder): .value reads the flag."""

    def __init__(self, flag_values, flag):
        self._fv = flag_values
        self._flag = flag

    @property
    def name(self):
        return self._flag.name

    @property
    def value(self):
        return getattr(self._fv, self._flag.name)

    @property
    def default(self):
        return self._flag.default

    @property
    def present(self):
        return bool(self._flag.present)


def DEFINE_string(name, default, help, flag_values=None, short_name=None, **kwargs):  # noqa: N802,A002
    return _define(_parse_string, "string", name, default, help, flag_values, short_name)


def DEFINE_integer(name, default, help, lower_bound=None, upper_bound=None, flag_values=None,  # noqa: N802,A002
                   short_name=None, **kwargs):
    def parse(v):
        x = _parse_int(v)
        if (lower_bound is not None and x < lower_bound) or (upper_bound is not None and x > upper_bound):
            raise ValueError("%d is outside [%s, %s]" % (x, lower_bound, upper_bound))
        return x
    return _define(parse, "int", name, default, help, flag_values, short_name)


def DEFINE_float(name, default, help, lower_bound=None, upper_bound=None, flag_values=None,  # noqa: N802,A002
                 short_name=None, **kwargs):
    def parse(v):
        x = _parse_float(v)
        if (lower_bound is not None and x < lower_bound) or (upper_bound is not None and x > upper_bound):
            raise ValueError("%g is outside [%s, %s]" % (x, lower_bound, upper_bound))
        return x
    return _define(parse, "float", name, default, help, flag_values, short_name)


def DEFINE_boolean(name, default, help, flag_values=None, short_name=None, **kwargs):  # noqa: N802,A002
    return _define(_parse_bool, "bool", name, default, help, flag_values, short_name, boolean=True)


DEFINE_bool = DEFINE_boolean  # noqa: N816


def DEFINE_list(name, default, help, flag_values=None, **kwargs):  # noqa: N802,A002
    return _define(_parse_list, "comma separated list of strings", name, default, help, flag_values)


def DEFINE_enum(name, default, enum_values, help, flag_values=None, case_sensitive=True, **kwargs):  # noqa: N802,A002
    enum_values = list(enum_values)

    def parse(v):
        s = _parse_string(v)
        if case_sensitive:
            if s in enum_values:
                return s
        else:
            for e in enum_values:
                if e.lower() == s.lower():
                    return e
        raise ValueError("value should be one of <%s>" % "|".join(enum_values))
    return _define(parse, "enum", name, default, help, flag_values)


def DEFINE_multi_string(name, default, help, flag_values=None, **kwargs):  # noqa: N802,A002
    holder = _define(lambda v: list(v) if isinstance(v, (list, tuple)) else [str(v)], "multi_string",
                     name, default, help, flag_values)
    flag = holder._flag
    base_parse = flag.parse

    def parse(argument):
        previous = [] if flag.using_default_value else list(flag.value or [])
        base_parse(argument)
        flag.value = previous + flag.value
    flag.parse = parse
    return holder


def mark_flag_as_required(flag_name, flag_values=None):
    fv = FLAGS if flag_values is None else flag_values

    def check():
        if fv[flag_name].value is None:
            raise IllegalFlagValueError("Flag --%s must have a value other than None." % flag_name)
    fv.__dict__["_validators"].append(check)


def mark_flags_as_required(flag_names, flag_values=None):
    for n in flag_names:
        mark_flag_as_required(n, flag_values)


def register_validator(flag_name, checker, message="Flag validation failed", flag_values=None):
    fv = FLAGS if flag_values is None else flag_values

    def check():
        if not checker(fv[flag_name].value):
            raise IllegalFlagValueError("flag --%s=%r: %s" % (flag_name, fv[flag_name].value, message))
    fv.__dict__["_validators"].append(check)


def validator(flag_name, message="Flag validation failed", flag_values=None):
    def decorate(fn):
        register_validator(flag_name, fn, message, flag_values)
        return fn
    return decorate
