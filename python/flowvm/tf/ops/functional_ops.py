"""tf.scan, tf.map_fn, tf.foldl and tf.foldr (TensorFlow 1.x's
functional_ops), as TensorFlow builds them: the inputs are unstacked into
TensorArrays, a tf.while_loop reads element i of each, calls fn, and (scan,
map_fn) writes its result to element i of output TensorArrays, which are
stacked after the loop. They are differentiable through the gradients of
the loop and of the TensorArray ops.

elems may be one tensor or a nested structure of tensors, all with the
same first dimension; fn sees one slice of each, in that structure.
"""
import contextlib

from flowvm.tf.framework import constant_op
from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_shape
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import control_flow_ops
from flowvm.tf.ops import tensor_array_ops
from flowvm.tf.ops import variable_scope as vs
from flowvm.tf.util import nest

__all__ = ["scan", "map_fn", "foldl", "foldr"]


@contextlib.contextmanager
def _variables_cached_where_used():
    """While fn is built: a variable made by get_variable in fn is read once
    where it is used, not once per iteration from its device (TensorFlow
    sets this caching device for the same reason)."""
    scope = vs.get_variable_scope()
    if scope.caching_device is not None:
        yield
        return
    scope.set_caching_device(lambda op: op.device)
    try:
        yield
    finally:
        scope.set_caching_device(None)


def _leading_dimension(elems_flat):
    """n, the number of slices (a Python int when the first dimension is
    known statically, else an int32 tensor), and the static first dimension
    every input agrees on. ValueError for a scalar input or first
    dimensions that differ."""
    for e in elems_flat:
        if e.shape.ndims is not None and e.shape.ndims < 1:
            if len(elems_flat) == 1:
                raise ValueError("elems must be a 1+ dimensional Tensor, not a scalar")
            raise ValueError("elements in elems must be 1+ dimensional Tensors, not scalars")
    n_static = tensor_shape.Dimension(tensor_shape.dimension_value(elems_flat[0].shape[0]))
    for e in elems_flat[1:]:
        n_static = n_static.merge_with(tensor_shape.Dimension(tensor_shape.dimension_value(e.shape[0])))
    n = tensor_shape.dimension_value(elems_flat[0].shape[0]) or array_ops.shape(elems_flat[0])[0]
    return n, n_static


def _unstacked(elems_flat, n, with_element_shapes):
    """One TensorArray per input, holding its slices."""
    out = []
    for e in elems_flat:
        ta = tensor_array_ops.TensorArray(dtype=e.dtype, size=n, dynamic_size=False, infer_shape=True,
                                          element_shape=e.shape[1:] if with_element_shapes else None)
        out.append(ta.unstack(e))
    return out


def _packers(structure):
    """flatten(x) and pack(flat) for values of `structure` (one tensor or a
    nested structure)."""
    if nest.is_sequence(structure):
        return nest.flatten, lambda flat: nest.pack_sequence_as(structure, flat)
    return (lambda x: [x]), (lambda flat: flat[0])


def _stacked_with_length(tas, n_static):
    results = [ta.stack() for ta in tas]
    for r in results:
        r.set_shape(tensor_shape.TensorShape(n_static).concatenate(r.shape[1:]))
    return results


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """The successive values of an accumulator: a = fn(a, x) for each slice x
    of elems along its first dimension (last to first when reverse),
    stacked.

    Without initializer, the first slice (the last, when reverse) is the
    first accumulator and the first output, and fn returns elems'
    structure; with one, fn returns initializer's structure.

      scan(lambda a, x: a + x, np.array([1, 2, 3, 4]))  # [1, 3, 6, 10]

    (A Python list is a structure: one element per entry, not a vector.)
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    in_flatten, in_pack = _packers(elems)
    out_structure = elems if initializer is None else initializer
    out_flatten, out_pack = _packers(out_structure)
    elems_flat = in_flatten(elems)
    with ops.name_scope(name, "scan", elems_flat), _variables_cached_where_used():
        elems_flat = [ops.convert_to_tensor(e, name="elem") for e in elems_flat]
        n, n_static = _leading_dimension(elems_flat)
        elems_ta = _unstacked(elems_flat, n, with_element_shapes=True)
        first = n - 1 if reverse else 0
        if initializer is None:
            a_flat = [ta.read(first) for ta in elems_ta]
            done = 1
        else:
            a_flat = [ops.convert_to_tensor(a) for a in out_flatten(initializer)]
            done = 0
        accs_ta = [tensor_array_ops.TensorArray(dtype=a.dtype, size=n, dynamic_size=False, infer_shape=infer_shape,
                                                element_shape=a.shape if infer_shape else None) for a in a_flat]
        if initializer is None:
            accs_ta = [ta.write(first, a) for ta, a in zip(accs_ta, a_flat)]

        def compute(i, a_flat, tas):
            x = in_pack([ta.read(i) for ta in elems_ta])
            a_out = fn(out_pack(a_flat), x)
            nest.assert_same_structure(out_structure, a_out)
            a_out_flat = out_flatten(a_out)
            tas = [ta.write(i, v) for ta, v in zip(tas, a_out_flat)]
            return (i - 1 if reverse else i + 1, a_out_flat, tas)

        if reverse:
            start = n - 1 - done

            def cond(i, unused_a, unused_tas):
                return i >= 0
        else:
            start = done

            def cond(i, unused_a, unused_tas):
                return i < n
        _, _, accs_ta = control_flow_ops.while_loop(cond, compute, (start, a_flat, accs_ta),
                                                    parallel_iterations=parallel_iterations, back_prop=back_prop,
                                                    swap_memory=swap_memory, maximum_iterations=n)
        return out_pack(_stacked_with_length(accs_ta, n_static))


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None):
    """fn applied to each slice of elems along its first dimension, the
    results stacked.

    fn returns elems' structure and dtypes unless `dtype` (a dtype, or a
    nested structure of them) says what it returns instead:

      map_fn(lambda x: x * x, np.array([1., 2., 3.]))      # [1., 4., 9.]
      map_fn(lambda xy: xy[0] * xy[1], (a, b), dtype=tf.float32)
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    if not parallel_iterations:
        parallel_iterations = 10
    in_flatten, in_pack = _packers(elems)
    elems_flat = in_flatten(elems)
    with ops.name_scope(name, "map", elems_flat), _variables_cached_where_used():
        elems_flat = [ops.convert_to_tensor(e, name="elem") for e in elems_flat]
        out_structure = dtype if dtype is not None else in_pack([e.dtype for e in elems_flat])
        out_flatten, out_pack = _packers(out_structure)
        dtype_flat = out_flatten(out_structure)
        n, n_static = _leading_dimension(elems_flat)
        elems_ta = _unstacked(elems_flat, n, with_element_shapes=False)
        accs_ta = [tensor_array_ops.TensorArray(dtype=dt, size=n, dynamic_size=False, infer_shape=infer_shape)
                   for dt in dtype_flat]

        def compute(i, tas):
            values = fn(in_pack([ta.read(i) for ta in elems_ta]))
            nest.assert_same_structure(dtype if dtype is not None else elems, values)
            tas = [ta.write(i, v) for ta, v in zip(tas, out_flatten(values))]
            return (i + 1, tas)

        _, accs_ta = control_flow_ops.while_loop(lambda i, _: i < n, compute, (constant_op.constant(0), accs_ta),
                                                 parallel_iterations=parallel_iterations, back_prop=back_prop,
                                                 swap_memory=swap_memory, maximum_iterations=n)
        return out_pack(_stacked_with_length(accs_ta, n_static))


def _fold(kind, fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name):
    if not callable(fn):
        raise TypeError("fn must be callable.")
    in_flatten, in_pack = _packers(elems)
    with ops.name_scope(name, kind, in_flatten(elems)), _variables_cached_where_used():
        elems_flat = [ops.convert_to_tensor(e, name="elem") for e in in_flatten(elems)]
        n, _ = _leading_dimension(elems_flat)
        elems_ta = _unstacked(elems_flat, n, with_element_shapes=False)

        def slice_at(i):
            return in_pack([ta.read(i) for ta in elems_ta])

        if kind == "foldl":
            if initializer is None:
                a, i = slice_at(0), constant_op.constant(1)
            else:
                a, i = initializer, constant_op.constant(0)

            def cond(i, unused_a):
                return i < n

            def compute(i, a):
                return [i + 1, fn(a, slice_at(i))]
        else:
            if initializer is None:
                i = ops.convert_to_tensor(n - 1)
                a = slice_at(i)
            else:
                a, i = initializer, n

            def cond(i, unused_a):
                return i > 0

            def compute(i, a):
                i -= 1
                return [i, fn(a, slice_at(i))]
        _, result = control_flow_ops.while_loop(cond, compute, [i, a], parallel_iterations=parallel_iterations,
                                                back_prop=back_prop, swap_memory=swap_memory, maximum_iterations=n)
        return result


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """a = fn(a, x) for each slice x of elems along its first dimension, first
    to last; the final a. Without initializer, the first slice is the
    first a.

      foldl(lambda a, x: a + x, tf.constant([1, 2, 3, 4, 5, 6]))  # 21
    """
    return _fold("foldl", fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """foldl from the last slice to the first; without initializer, the
    last slice is the first accumulator."""
    return _fold("foldr", fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name)
