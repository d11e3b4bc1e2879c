"""tf.flags (also tf.app.flags)."""
from flowvm.tf.platform.flags import *  # noqa: F401,F403
from flowvm.tf.platform.flags import (  # noqa: F401
    FLAGS, FlagValues, Flag, Error, UnrecognizedFlagError, IllegalFlagValueError, DuplicateFlagError,
    UnparsedFlagAccessError, ValidationError, DEFINE_string, DEFINE_integer, DEFINE_float, DEFINE_boolean,
    DEFINE_bool, DEFINE_list, DEFINE_enum, DEFINE_multi_string, mark_flag_as_required, mark_flags_as_required,
    register_validator, validator)
