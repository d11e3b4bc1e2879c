"""tf.raw_ops: every registered op by its own name (tf.raw_ops.MatMul(a=..., b=...))."""
from flowvm.tf.ops import gen_ops as _gen

for _name in dir(_gen):
    if _name[:1].isupper():
        globals()[_name] = getattr(_gen, _name)
del _name
