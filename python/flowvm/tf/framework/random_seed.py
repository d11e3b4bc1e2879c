"""TensorFlow 1.x's seed rules (TensorFlow's framework/random_seed.py):
tf.set_random_seed(s) sets the graph-level seed; each random op then gets
(s, its op-level seed or a per-graph counter), so one program draws the same
numbers every run; with neither seed the runtime picks."""
from flowvm.tf.framework import ops

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2 ** 31 - 1


def _truncate_seed(seed):
    return seed % _MAXINT32


def set_random_seed(seed):
    """Sets the default graph's graph-level seed."""
    ops.get_default_graph().seed = seed


def get_seed(op_seed):
    """(graph seed, op seed) for an op with `op_seed` (None: not set);
    (None, None) when neither is set (a fresh seed each run)."""
    g = ops.get_default_graph()
    global_seed = g.seed
    if global_seed is not None:
        if op_seed is None:
            # The number of ops made so far: deterministic for one program.
            op_seed = g._version
        seeds = _truncate_seed(global_seed), _truncate_seed(op_seed)
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, _truncate_seed(op_seed)
    else:
        seeds = None, None
    if seeds == (0, 0):
        return 0, _MAXINT32
    return seeds


def seed_attrs(op_seed):
    """get_seed as a random op's (seed, seed2) attrs: 0 where unset."""
    s1, s2 = get_seed(op_seed)
    return (0 if s1 is None else s1), (0 if s2 is None else s2)
