"""tf.data.Options: settings of a dataset (TensorFlow's names). flowvm's
kernels decide threading and buffering themselves, so these change no
result; they are kept, merged and read back as in TensorFlow."""


class _OptionGroup(object):
    """A group of options: attributes that are None until set."""

    _names = ()

    def __init__(self):
        for n in self._names:
            object.__setattr__(self, n, None)

    def __setattr__(self, name, value):
        if name not in self._names:
            raise AttributeError("%s has no option %r (it has: %s)" % (type(self).__name__, name,
                                                                     ", ".join(self._names)))
        object.__setattr__(self, name, value)

    def __eq__(self, other):
        return type(self) is type(other) and all(getattr(self, n) == getattr(other, n) for n in self._names)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(tuple(getattr(self, n) for n in self._names))

    def merge(self, other):
        """Options set in either (other's win where both are set and differ)."""
        out = type(self)()
        for n in self._names:
            a, b = getattr(self, n), getattr(other, n)
            if isinstance(a, _OptionGroup) or isinstance(b, _OptionGroup):
                if a is None:
                    v = b
                elif b is None:
                    v = a
                else:
                    v = a.merge(b)
            else:
                v = b if b is not None else a
            object.__setattr__(out, n, v)
        return out


class OptimizationOptions(_OptionGroup):
    _names = ("apply_default_optimizations", "autotune", "autotune_buffers", "autotune_cpu_budget",
              "filter_fusion", "filter_with_random_uniform_fusion", "hoist_random_uniform", "map_and_batch_fusion",
              "map_and_filter_fusion", "map_fusion", "map_parallelization", "map_vectorization",
              "noop_elimination", "parallel_batch", "shuffle_and_repeat_fusion")


class ThreadingOptions(_OptionGroup):
    _names = ("max_intra_op_parallelism", "private_threadpool_size")


class StatsOptions(_OptionGroup):
    _names = ("aggregator", "counter_prefix", "latency_all_edges", "prefix")


class DistributeOptions(_OptionGroup):
    _names = ("auto_shard", "num_devices")


class Options(_OptionGroup):
    """tf.data.Options."""

    _names = ("experimental_deterministic", "experimental_distribute", "experimental_optimization",
              "experimental_slack", "experimental_stats", "experimental_threading", "experimental_external_state_policy")

    def __init__(self):
        super(Options, self).__init__()
        object.__setattr__(self, "experimental_distribute", DistributeOptions())
        object.__setattr__(self, "experimental_optimization", OptimizationOptions())
        object.__setattr__(self, "experimental_stats", StatsOptions())
        object.__setattr__(self, "experimental_threading", ThreadingOptions())
