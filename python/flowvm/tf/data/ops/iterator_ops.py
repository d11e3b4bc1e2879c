"""tf.data.Iterator: the resource that walks through a dataset, one element
per get_next, keeping its place across steps (IteratorV2, MakeIterator,
IteratorGetNext, ...; src/kernels/data/iterator_ops.cc).

Kinds, as in TensorFlow 1.x:
  - one-shot (Dataset.make_one_shot_iterator): starts itself on first use;
  - initializable (Dataset.make_initializable_iterator): `initializer`
    (re)starts it, with the placeholders of the dataset fed then;
  - reinitializable (Iterator.from_structure): make_initializer(dataset)
    switches it to any dataset of the same structure;
  - feedable (Iterator.from_string_handle): a string fed at each step
    picks the iterator (`string_handle()` of another one).
get_next raises OutOfRangeError at the end of the dataset, and
FailedPreconditionError on an iterator not initialized.
"""
from flowvm.tf.data.util import nest
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.framework import tensor_shape
from flowvm.tf.ops import gen_ops
from flowvm.tf.platform import tf_logging as logging

__all__ = ["Iterator"]


def _check_structure(output_types, output_shapes):
    types = nest.map_structure(dtypes.as_dtype, output_types)
    if output_shapes is None:
        shapes = nest.map_structure(lambda _: tensor_shape.unknown_shape(), types)
    else:
        shapes = nest.map_structure_up_to(types, tensor_shape.as_shape, output_shapes)
    return types, shapes


class Iterator(object):
    """An iterator over the elements of a dataset (TensorFlow 1.x's tf.data.Iterator)."""

    def __init__(self, iterator_resource, initializer, output_types, output_shapes, output_classes=None):
        self._iterator_resource = iterator_resource
        self._initializer = initializer
        self._output_types = output_types
        self._output_shapes = output_shapes
        self._output_classes = output_classes if output_classes is not None else \
            nest.map_structure(lambda _: ops.Tensor, output_types)
        self._get_next_calls = 0
        self._string_handle = None

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None, output_classes=None):
        """An iterator not bound to a dataset: make_initializer(dataset)
        gives the op that starts it on one of the same structure."""
        types, shapes = _check_structure(output_types, output_shapes)
        handle = gen_ops.iterator_v2(container="", shared_name=shared_name or "", output_types=nest.flatten(types),
                                     output_shapes=nest.flatten(shapes))
        return Iterator(handle, None, types, shapes, output_classes)

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None, output_classes=None):
        """The iterator whose string_handle() is fed to `string_handle` (a
        scalar string placeholder) at each step."""
        types, shapes = _check_structure(output_types, output_shapes)
        string_handle = ops.convert_to_tensor(string_handle, dtype=dtypes.string, name="string_handle")
        handle = gen_ops.iterator_from_string_handle_v2(string_handle, output_types=nest.flatten(types),
                                                        output_shapes=nest.flatten(shapes))
        return Iterator(handle, None, types, shapes, output_classes)

    @property
    def initializer(self):
        """The op that (re)starts the iterator on its dataset."""
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer.")
        return self._initializer

    @property
    def output_types(self):
        return self._output_types

    @property
    def output_shapes(self):
        return self._output_shapes

    @property
    def output_classes(self):
        return self._output_classes

    def make_initializer(self, dataset, name=None):
        """The op that starts this iterator on `dataset`, which must have
        this iterator's types and compatible shapes."""
        with ops.name_scope(name, "make_initializer"):
            try:
                nest.assert_same_structure(self._output_types, dataset.output_types)
            except (TypeError, ValueError) as e:
                raise TypeError("Expected output structure %s but got dataset with structure %s: %s"
                                % (self._output_types, dataset.output_types, e))
            if nest.flatten(self._output_types) != nest.flatten(dataset.output_types):
                raise TypeError("Expected output types %r but got dataset with output types %r."
                                % (self._output_types, dataset.output_types))
            for mine, theirs in zip(nest.flatten(self._output_shapes), nest.flatten(dataset.output_shapes)):
                if not mine.is_compatible_with(theirs):
                    raise TypeError("Expected output shapes compatible with %r but got dataset with output "
                                    "shapes %r." % (self._output_shapes, dataset.output_shapes))
            with ops.colocate_with(self._iterator_resource):
                return gen_ops.make_iterator(dataset._variant_tensor, self._iterator_resource, name=name)

    def get_next(self, name=None):
        """The next element, a structure of tensors; each run of it takes
        one element (OutOfRangeError at the end)."""
        self._get_next_calls += 1
        if self._get_next_calls == 32:
            logging.warning("An unusually high number of `Iterator.get_next()` calls was detected: each call adds "
                            "an op to the graph; call it once and use its result in every step.")
        flat = gen_ops.iterator_get_next(self._iterator_resource, output_types=nest.flatten(self._output_types),
                                         output_shapes=nest.flatten(self._output_shapes), name=name)
        if isinstance(flat, ops.Tensor):
            flat = [flat]
        for t, s in zip(flat, nest.flatten(self._output_shapes)):
            t.set_shape(s)
        return nest.pack_sequence_as(self._output_types, list(flat))

    def string_handle(self, name=None):
        """A scalar string naming this iterator, for from_string_handle
        (one op, made on the first call without a name)."""
        if name is not None:
            return gen_ops.iterator_to_string_handle(self._iterator_resource, name=name)
        if self._string_handle is None:
            with ops.colocate_with(self._iterator_resource):
                self._string_handle = gen_ops.iterator_to_string_handle(self._iterator_resource)
        return self._string_handle
