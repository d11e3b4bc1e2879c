"""tf.data.Dataset: input pipelines as graph ops (TensorFlow 1.x's DatasetV1).

A Dataset object stands for a scalar `variant` tensor of the graph it was
built in: the output of a dataset op (RangeDataset, MapDataset, ...;
src/ops/dataset_ops.cc) that holds an immutable description of a stream of
elements. Building a dataset runs nothing; an iterator (iterator_ops.py)
is the resource that walks one through, a step at a time, in the kernels
of src/kernels/data/. Each transformation returns a new Dataset over the
variant of its input.

An element is a structure of components (a single tensor, or nested
tuples, namedtuples and dicts of them); output_types and output_shapes
have the element's structure. User functions (map, filter, flat_map,
interleave) become functions of the graph's library, traced once when the
transformation is built (structured_function.py).
"""
import threading

import numpy as np

from flowvm.tf.data.ops import iterator_ops
from flowvm.tf.data.ops import options as options_lib
from flowvm.tf.data.ops.structured_function import StructuredFunctionWrapper
from flowvm.tf.data.ops.structured_function import normalize_element
from flowvm.tf.data.util import nest
from flowvm.tf.framework import dtypes
from flowvm.tf.framework import function
from flowvm.tf.framework import ops
from flowvm.tf.framework import random_seed
from flowvm.tf.framework import tensor_shape
from flowvm.tf.framework import tensor_util
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import control_flow_ops
from flowvm.tf.ops import gen_ops
from flowvm.tf.ops import math_ops
from flowvm.tf.ops import script_ops

__all__ = ["Dataset", "DatasetV1", "DatasetV2", "AUTOTUNE", "make_one_shot_iterator", "make_initializable_iterator",
           "get_output_types", "get_output_shapes", "get_output_classes", "get_legacy_output_types",
           "get_legacy_output_shapes", "get_legacy_output_classes"]

AUTOTUNE = -1
_MAX_INT64 = int(np.iinfo(np.int64).max)


def _int64(value, name):
    return ops.convert_to_tensor(value, dtype=dtypes.int64, name=name)


def _static_value(t):
    if isinstance(t, (bool, int, np.integer, np.bool_)):
        return t.item() if hasattr(t, "item") else t
    try:
        v = tensor_util.constant_value(t)
    except Exception:  # noqa: BLE001 - not a constant: unknown
        return None
    return None if v is None else v.item() if hasattr(v, "item") and np.ndim(v) == 0 else v


class DatasetV1(object):
    """A stream of elements, each a structure of tensors.

    Make one with a source (from_tensors, from_tensor_slices, range, zip,
    or the readers TFRecordDataset, TextLineDataset,
    FixedLengthRecordDataset) and transform it (map, filter, batch,
    shuffle, repeat, ...); read it through an iterator
    (make_one_shot_iterator, make_initializable_iterator,
    Iterator.from_structure).
    """

    _is_tf_data_dataset = True

    def __init__(self, variant_tensor, output_types, output_shapes, inputs=()):
        if not isinstance(variant_tensor, ops.Tensor) or variant_tensor.dtype.base_dtype != dtypes.variant:
            raise TypeError("A Dataset stands for a variant tensor, not %r" % (variant_tensor,))
        self._variant_tensor_attr = variant_tensor
        self._output_types_attr = output_types
        self._output_shapes_attr = nest.map_structure(tensor_shape.as_shape, output_shapes)
        self._inputs_attr = list(inputs)
        self._options_attr = None

    # -- what it is ---------------------------------------------------------
    @property
    def _variant_tensor(self):
        return self._variant_tensor_attr

    @property
    def _graph(self):
        return self._variant_tensor_attr.graph

    @property
    def output_types(self):
        """The element's structure with the dtype of each component."""
        return self._output_types_attr

    @property
    def output_shapes(self):
        """The element's structure with the static shape of each component."""
        return self._output_shapes_attr

    @property
    def output_classes(self):
        """The element's structure with the class of each component (tf.Tensor)."""
        return nest.map_structure(lambda _: ops.Tensor, self._output_types_attr)

    @property
    def _flat_types(self):
        return nest.flatten(self._output_types_attr)

    @property
    def _flat_shapes(self):
        return nest.flatten(self._output_shapes_attr)

    @property
    def _flat_structure(self):
        return {"output_types": self._flat_types, "output_shapes": self._flat_shapes}

    def _inputs(self):
        return list(self._inputs_attr)

    def __repr__(self):
        return "<%s shapes: %s, types: %s>" % (type(self).__name__, self.output_shapes, self.output_types)

    def __iter__(self):
        raise RuntimeError("__iter__() is only supported inside of tf.function or when eager execution is enabled; "
                           "in a graph, use make_one_shot_iterator() or make_initializable_iterator()")

    def options(self):
        """The tf.data.Options of this dataset (merged from its inputs)."""
        result = options_lib.Options()
        for ds in self._inputs():
            result = result.merge(ds.options())
        if self._options_attr is not None:
            result = result.merge(self._options_attr)
        return result

    def with_options(self, options):
        """This dataset with `options` set (they affect no result here)."""
        return _OptionsDataset(self, options)

    # -- iterators ----------------------------------------------------------
    def make_one_shot_iterator(self):
        """An iterator over this dataset that needs no initialization.

        The whole pipeline is copied into a function of the graph
        (`dataset_factory` of OneShotIterator), which the iterator runs on
        first use; so it may capture constants but not placeholders or
        variables (use make_initializable_iterator for those)."""
        def _make_dataset():
            return self._variant_tensor

        _make_dataset.__name__ = "_make_dataset"
        factory = function._DefinedFunction(_make_dataset, [], [], capture_by_value=True)
        try:
            factory.add_to_graph(ops.get_default_graph())
        except ValueError as e:
            raise ValueError("Failed to make a one-shot iterator: %s. Use make_initializable_iterator() for a "
                             "dataset that depends on placeholders or variables." % e)
        handle = gen_ops.one_shot_iterator(dataset_factory=factory.name, **self._flat_structure)
        return iterator_ops.Iterator(handle, None, self.output_types, self.output_shapes, self.output_classes)

    def make_initializable_iterator(self, shared_name=None):
        """An iterator whose `initializer` (re)starts it on this dataset;
        placeholders the dataset depends on are fed to the initializer."""
        handle = gen_ops.iterator_v2(container="", shared_name=shared_name or "", **self._flat_structure)
        with ops.colocate_with(handle):
            initializer = gen_ops.make_iterator(self._variant_tensor, handle)
        return iterator_ops.Iterator(handle, initializer, self.output_types, self.output_shapes, self.output_classes)

    # -- sources ------------------------------------------------------------
    @staticmethod
    def from_tensors(tensors):
        """A dataset of one element, `tensors`."""
        return TensorDataset(tensors)

    @staticmethod
    def from_tensor_slices(tensors):
        """A dataset of the slices of `tensors` along their first dimension."""
        return TensorSliceDataset(tensors)

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None):
        """The elements a Python generator yields (through tf.py_func, so
        only in this process).

        Args:
          generator: a callable returning an iterator; called anew (with
            `args` as NumPy values) each time an iterator starts on the
            dataset.
          output_types: the element's structure of dtypes.
          output_shapes: the element's structure of shapes (default unknown);
            an element of another shape is an InvalidArgumentError.
          args: tensors evaluated and passed to `generator`.
        """
        return _generator_dataset(generator, output_types, output_shapes, args)

    @staticmethod
    def range(*args):
        """Like Python's range: (stop), (start, stop) or (start, stop, step); int64 elements."""
        return RangeDataset(*args)

    @staticmethod
    def zip(datasets):
        """Elements of the structure of `datasets`, one from each, until one ends."""
        return ZipDataset(datasets)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None):
        """The names of the files matching `file_pattern` (a string or a
        list of them), shuffled unless shuffle=False."""
        with ops.name_scope("list_files"):
            if shuffle is None:
                shuffle = True
            pattern = ops.convert_to_tensor(file_pattern, dtype=dtypes.string, name="file_pattern")
            matching = gen_ops.matching_files(pattern)
            # As in TensorFlow, no match is an error when the list is read.
            match_not_empty = math_ops.greater(array_ops.size(matching), 0, name="match_not_empty")
            assert_not_empty = control_flow_ops.Assert(match_not_empty, ["No files matched pattern:", pattern],
                                                       summarize=10, name="assert_not_empty")
            with ops.control_dependencies([assert_not_empty]):
                matching = array_ops.identity(matching)
            dataset = DatasetV1.from_tensor_slices(matching)
            if shuffle:
                # As TensorFlow does: shuffle the whole list once per epoch.
                dataset = dataset.shuffle(_MAX_INT64 // 2, seed=seed)
            return dataset

    # -- transformations ----------------------------------------------------
    def concatenate(self, dataset):
        """This dataset's elements, then those of `dataset`."""
        return ConcatenateDataset(self, dataset)

    def prefetch(self, buffer_size):
        """Keeps up to `buffer_size` elements ready, made on a background thread."""
        return PrefetchDataset(self, buffer_size)

    def repeat(self, count=None):
        """This dataset `count` times over (None or -1: for ever)."""
        return _CountDataset(gen_ops.repeat_dataset, "count", self, -1 if count is None else count)

    def enumerate(self, start=0):
        """(index, element) pairs, the index from `start` (int64)."""
        return DatasetV1.zip((RangeDataset(start, _MAX_INT64), self))

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None):
        """Elements drawn at random from a buffer of `buffer_size`; a new
        order each epoch unless reshuffle_each_iteration=False."""
        return ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def cache(self, filename=""):
        """Remembers the elements of the first pass (in memory, or in files
        named after `filename`) and replays them after."""
        return CacheDataset(self, filename)

    def take(self, count):
        """The first `count` elements (-1: all)."""
        return _CountDataset(gen_ops.take_dataset, "count", self, count)

    def skip(self, count):
        """All but the first `count` elements (-1: none)."""
        return _CountDataset(gen_ops.skip_dataset, "count", self, count)

    def shard(self, num_shards, index):
        """Every `num_shards`-th element, starting at `index`."""
        return ShardDataset(self, num_shards, index)

    def batch(self, batch_size, drop_remainder=False):
        """Consecutive elements stacked `batch_size` at a time; the last
        batch may be smaller unless drop_remainder."""
        return BatchDataset(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size, padded_shapes, padding_values=None, drop_remainder=False):
        """Batches whose components are padded to `padded_shapes` (None or
        -1 in a dimension: to the longest in the batch) with
        `padding_values` (default 0, or "" for strings)."""
        return PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def map(self, map_func, num_parallel_calls=None):
        """`map_func` of each element; with num_parallel_calls (or AUTOTUNE),
        that many calls at once, the order kept."""
        if num_parallel_calls is None:
            return MapDataset(self, map_func)
        return ParallelMapDataset(self, map_func, num_parallel_calls)

    map_with_legacy_function = map

    def flat_map(self, map_func):
        """The elements of the datasets `map_func` returns, one after the other."""
        return FlatMapDataset(self, map_func)

    def interleave(self, map_func, cycle_length=AUTOTUNE, block_length=1, num_parallel_calls=None):
        """The elements of the datasets `map_func` returns for `cycle_length`
        input elements at a time, `block_length` from each in turn."""
        del num_parallel_calls  # the order is the same; the kernel opens inputs as it needs them
        return InterleaveDataset(self, map_func, cycle_length, block_length)

    def filter(self, predicate):
        """The elements for which `predicate` (a scalar bool) is true."""
        return FilterDataset(self, predicate)

    filter_with_legacy_function = filter

    def apply(self, transformation_func):
        """transformation_func(self), which must return a Dataset."""
        dataset = transformation_func(self)
        if not isinstance(dataset, DatasetV1):
            raise TypeError("`transformation_func` must return a Dataset. Got %r." % (dataset,))
        return dataset

    def unbatch(self):
        """The rows of each element's components (the inverse of batch)."""
        return UnbatchDataset(self)


DatasetV2 = DatasetV1
Dataset = DatasetV1
DatasetV1Adapter = DatasetV1


class UnaryDataset(DatasetV1):
    """A dataset over one input dataset."""

    def __init__(self, input_dataset, variant_tensor, output_types=None, output_shapes=None):
        if not isinstance(input_dataset, DatasetV1):
            raise TypeError("Expected a Dataset as input, got %r" % (input_dataset,))
        self._input_dataset = input_dataset
        super(UnaryDataset, self).__init__(
            variant_tensor, input_dataset.output_types if output_types is None else output_types,
            input_dataset.output_shapes if output_shapes is None else output_shapes, [input_dataset])


class TensorDataset(DatasetV1):
    """One element: the given tensors."""

    def __init__(self, element):
        with ops.name_scope("TensorDataset"):
            element = normalize_element(element)
            flat = nest.flatten(element)
            variant = gen_ops.tensor_dataset(flat, output_shapes=[t.shape for t in flat])
        super(TensorDataset, self).__init__(variant, nest.map_structure(lambda t: t.dtype.base_dtype, element),
                                            nest.map_structure(lambda t: t.shape, element))


class TensorSliceDataset(DatasetV1):
    """The slices of the given tensors along their first dimension."""

    def __init__(self, element):
        with ops.name_scope("TensorSliceDataset"):
            element = normalize_element(element)
            flat = nest.flatten(element)
            batch_dim = tensor_shape.Dimension(None)
            for t in flat:
                if t.shape.ndims == 0:
                    raise ValueError("Slicing dataset elements is not supported for rank 0 (component %s)" % t.name)
                if t.shape.ndims is not None:
                    first = tensor_shape.as_dimension(t.shape[0])
                    if not batch_dim.is_compatible_with(first):
                        raise ValueError("Dimensions %s and %s are not compatible: the components of "
                                         "from_tensor_slices must have the same size in their first dimension"
                                         % (batch_dim, first))
                    batch_dim = batch_dim.merge_with(first)
            shapes = [t.shape[1:] if t.shape.ndims is not None else tensor_shape.unknown_shape() for t in flat]
            variant = gen_ops.tensor_slice_dataset(flat, output_shapes=shapes)
        super(TensorSliceDataset, self).__init__(variant,
                                                 nest.map_structure(lambda t: t.dtype.base_dtype, element),
                                                 nest.pack_sequence_as(element, shapes))


class RangeDataset(DatasetV1):
    """int64 scalars from start to stop (exclusive) by step."""

    def __init__(self, *args):
        if len(args) == 1:
            start, stop, step = 0, args[0], 1
        elif len(args) == 2:
            start, stop, step = args[0], args[1], 1
        elif len(args) == 3:
            start, stop, step = args
        else:
            raise ValueError("Invalid arguments to RangeDataset: %s" % (args,))
        with ops.name_scope("RangeDataset"):
            variant = gen_ops.range_dataset(_int64(start, "start"), _int64(stop, "stop"), _int64(step, "step"),
                                            output_types=[dtypes.int64], output_shapes=[tensor_shape.scalar()])
        super(RangeDataset, self).__init__(variant, dtypes.int64, tensor_shape.scalar())


class ZipDataset(DatasetV1):
    """Tuples (or the given structure) of one element of each dataset."""

    def __init__(self, datasets):
        for ds in nest.flatten(datasets):
            if not isinstance(ds, DatasetV1):
                if isinstance(ds, list):
                    raise TypeError("The argument to `Dataset.zip()` must be a (nested) structure of Dataset "
                                    "objects; use a tuple, not a list")
                raise TypeError("The argument to `Dataset.zip()` must be a (nested) structure of Dataset objects, "
                                "got %r" % (ds,))
        flat = nest.flatten(datasets)
        types = nest.pack_sequence_as(datasets, [ds.output_types for ds in flat])
        shapes = nest.pack_sequence_as(datasets, [ds.output_shapes for ds in flat])
        flat_types = [t for ds in flat for t in ds._flat_types]
        flat_shapes = [s for ds in flat for s in ds._flat_shapes]
        variant = gen_ops.zip_dataset([ds._variant_tensor for ds in flat], output_types=flat_types,
                                      output_shapes=flat_shapes)
        super(ZipDataset, self).__init__(variant, types, shapes, flat)


class ConcatenateDataset(DatasetV1):
    """The elements of one dataset, then those of another of the same types."""

    def __init__(self, input_dataset, dataset_to_concatenate):
        if not isinstance(dataset_to_concatenate, DatasetV1):
            raise TypeError("concatenate() takes a Dataset, got %r" % (dataset_to_concatenate,))
        try:
            nest.assert_same_structure(input_dataset.output_types, dataset_to_concatenate.output_types)
        except (TypeError, ValueError) as e:
            raise TypeError("Two datasets to concatenate have different structures: %s" % e)
        if input_dataset._flat_types != dataset_to_concatenate._flat_types:
            raise TypeError("Two datasets to concatenate have different types %s and %s"
                            % (input_dataset.output_types, dataset_to_concatenate.output_types))
        shapes = nest.map_structure(lambda a, b: a.most_specific_compatible_shape(b), input_dataset.output_shapes,
                                    dataset_to_concatenate.output_shapes)
        variant = gen_ops.concatenate_dataset(input_dataset._variant_tensor, dataset_to_concatenate._variant_tensor,
                                              output_types=input_dataset._flat_types,
                                              output_shapes=nest.flatten(shapes))
        super(ConcatenateDataset, self).__init__(variant, input_dataset.output_types, shapes,
                                                 [input_dataset, dataset_to_concatenate])


class _CountDataset(UnaryDataset):
    """Repeat, Take and Skip: one int64 count."""

    def __init__(self, op, arg_name, input_dataset, count):
        variant = op(input_dataset._variant_tensor, _int64(count, arg_name), **input_dataset._flat_structure)
        super(_CountDataset, self).__init__(input_dataset, variant)


class ShuffleDataset(UnaryDataset):
    """Elements drawn at random from a buffer."""

    def __init__(self, input_dataset, buffer_size, seed=None, reshuffle_each_iteration=None):
        seed1, seed2 = random_seed.get_seed(seed)
        variant = gen_ops.shuffle_dataset(
            input_dataset._variant_tensor, _int64(buffer_size, "buffer_size"), _int64(seed1 or 0, "seed"),
            _int64(seed2 or 0, "seed2"),
            reshuffle_each_iteration=True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration),
            **input_dataset._flat_structure)
        super(ShuffleDataset, self).__init__(input_dataset, variant)


class CacheDataset(UnaryDataset):
    def __init__(self, input_dataset, filename):
        variant = gen_ops.cache_dataset(input_dataset._variant_tensor,
                                        ops.convert_to_tensor(filename, dtype=dtypes.string, name="filename"),
                                        **input_dataset._flat_structure)
        super(CacheDataset, self).__init__(input_dataset, variant)


class ShardDataset(UnaryDataset):
    def __init__(self, input_dataset, num_shards, index):
        n, i = _static_value(num_shards), _static_value(index)
        if isinstance(n, int) and n <= 0:
            raise ValueError("num_shards must be positive, got %d" % n)
        if isinstance(n, int) and isinstance(i, int) and not 0 <= i < n:
            raise ValueError("index must be in [0, num_shards): index %d, num_shards %d" % (i, n))
        variant = gen_ops.shard_dataset(input_dataset._variant_tensor, _int64(num_shards, "num_shards"),
                                        _int64(index, "index"), **input_dataset._flat_structure)
        super(ShardDataset, self).__init__(input_dataset, variant)


class PrefetchDataset(UnaryDataset):
    def __init__(self, input_dataset, buffer_size):
        if buffer_size is None:
            buffer_size = AUTOTUNE
        variant = gen_ops.prefetch_dataset(input_dataset._variant_tensor, _int64(buffer_size, "buffer_size"),
                                           **input_dataset._flat_structure)
        super(PrefetchDataset, self).__init__(input_dataset, variant)


class BatchDataset(UnaryDataset):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        batch_size = _int64(batch_size, "batch_size")
        drop = ops.convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
        static_size, static_drop = _static_value(batch_size), _static_value(drop)
        if isinstance(static_size, int) and static_size <= 0:
            raise ValueError("batch_size must be positive, got %d" % static_size)
        dim = static_size if static_drop is True else None
        shapes = nest.map_structure(lambda s: tensor_shape.TensorShape([dim]).concatenate(s),
                                    input_dataset.output_shapes)
        variant = gen_ops.batch_dataset_v2(input_dataset._variant_tensor, batch_size, drop,
                                           output_types=input_dataset._flat_types, output_shapes=nest.flatten(shapes))
        super(BatchDataset, self).__init__(input_dataset, variant, output_shapes=shapes)


def _padded_shape(padded_shape, input_shape):
    """(int64 vector tensor, static TensorShape) of one component's padded shape."""
    if isinstance(padded_shape, ops.Tensor):
        t = ops.convert_to_tensor(padded_shape, dtype=dtypes.int64, name="padded_shape")
        static = tensor_util.constant_value(t)
        shape = tensor_shape.TensorShape([None if d < 0 else int(d) for d in static]) if static is not None \
            else tensor_shape.unknown_shape(tensor_shape.dimension_value(t.shape[0]) if t.shape.ndims == 1 else None)
    else:
        shape = tensor_shape.as_shape(
            [None if (d is None or (not isinstance(d, tensor_shape.Dimension) and d == -1)) else d
             for d in padded_shape] if isinstance(padded_shape, (list, tuple)) else padded_shape)
        if shape.ndims is None:
            raise ValueError("Padded shape %s must have a known rank" % shape)
        t = ops.convert_to_tensor(np.array([-1 if d is None else d for d in shape.as_list()], dtype=np.int64)
                                  .reshape([shape.ndims]), dtype=dtypes.int64, name="padded_shape")
    if not shape.is_compatible_with(input_shape):
        raise ValueError("The padded shape %s is not compatible with the corresponding input component shape %s."
                         % (shape, input_shape))
    return t, shape


class PaddedBatchDataset(UnaryDataset):
    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        batch_size = _int64(batch_size, "batch_size")
        drop = ops.convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
        types, in_shapes = input_dataset.output_types, input_dataset.output_shapes
        # A padded shape is a list of dimensions: a leaf even where the
        # element's structure (a tuple) would be a sequence.
        pairs = nest.map_structure_up_to(types, _padded_shape, padded_shapes, in_shapes)
        shape_tensors = [p[0] for p in nest.flatten_up_to(types, pairs)]
        static_shapes = [p[1] for p in nest.flatten_up_to(types, pairs)]
        if padding_values is None:
            values = [np.array("" if t == dtypes.string else 0, dtype=object if t == dtypes.string
                               else t.as_numpy_dtype) for t in nest.flatten(types)]
        else:
            values = nest.flatten_up_to(types, padding_values)
        value_tensors = []
        for v, t in zip(values, nest.flatten(types)):
            v = ops.convert_to_tensor(v, dtype=t, name="padding_value")
            if v.shape.ndims not in (None, 0):
                raise ValueError("Padding value %s must be a scalar" % v.name)
            value_tensors.append(v)
        static_size, static_drop = _static_value(batch_size), _static_value(drop)
        dim = static_size if static_drop is True else None
        out_shapes = [tensor_shape.TensorShape([dim]).concatenate(s) for s in static_shapes]
        variant = gen_ops.padded_batch_dataset_v2(input_dataset._variant_tensor, batch_size, shape_tensors,
                                                  value_tensors, drop, output_shapes=out_shapes)
        super(PaddedBatchDataset, self).__init__(input_dataset, variant,
                                                 output_shapes=nest.pack_sequence_as(types, out_shapes))


class UnbatchDataset(UnaryDataset):
    def __init__(self, input_dataset):
        for s in input_dataset._flat_shapes:
            if s.ndims == 0:
                raise ValueError("Cannot unbatch an input with scalar components.")
        shapes = nest.map_structure(lambda s: s[1:] if s.ndims is not None else s, input_dataset.output_shapes)
        variant = gen_ops.unbatch_dataset(input_dataset._variant_tensor, output_types=input_dataset._flat_types,
                                          output_shapes=nest.flatten(shapes))
        super(UnbatchDataset, self).__init__(input_dataset, variant, output_shapes=shapes)


class MapDataset(UnaryDataset):
    def __init__(self, input_dataset, map_func):
        self._map_func = StructuredFunctionWrapper(map_func, "Dataset.map()", dataset=input_dataset)
        f = self._map_func
        variant = gen_ops.map_dataset(input_dataset._variant_tensor, f.captured_inputs, f=f.name,
                                      output_types=nest.flatten(f.output_types),
                                      output_shapes=nest.flatten(f.output_shapes))
        super(MapDataset, self).__init__(input_dataset, variant, f.output_types, f.output_shapes)


class ParallelMapDataset(UnaryDataset):
    def __init__(self, input_dataset, map_func, num_parallel_calls):
        self._map_func = StructuredFunctionWrapper(map_func, "Dataset.map()", dataset=input_dataset)
        f = self._map_func
        calls = ops.convert_to_tensor(num_parallel_calls, dtype=dtypes.int32, name="num_parallel_calls")
        variant = gen_ops.parallel_map_dataset(input_dataset._variant_tensor, f.captured_inputs, calls, f=f.name,
                                               output_types=nest.flatten(f.output_types),
                                               output_shapes=nest.flatten(f.output_shapes))
        super(ParallelMapDataset, self).__init__(input_dataset, variant, f.output_types, f.output_shapes)


class FlatMapDataset(UnaryDataset):
    def __init__(self, input_dataset, map_func):
        self._map_func = StructuredFunctionWrapper(map_func, "Dataset.flat_map()", dataset=input_dataset,
                                                   allow_dataset_result=True)
        f = self._map_func
        variant = gen_ops.flat_map_dataset(input_dataset._variant_tensor, f.captured_inputs, f=f.name,
                                           output_types=nest.flatten(f.output_types),
                                           output_shapes=nest.flatten(f.output_shapes))
        super(FlatMapDataset, self).__init__(input_dataset, variant, f.output_types, f.output_shapes)


class InterleaveDataset(UnaryDataset):
    def __init__(self, input_dataset, map_func, cycle_length, block_length):
        self._map_func = StructuredFunctionWrapper(map_func, "Dataset.interleave()", dataset=input_dataset,
                                                   allow_dataset_result=True)
        f = self._map_func
        variant = gen_ops.interleave_dataset(input_dataset._variant_tensor, f.captured_inputs,
                                             _int64(cycle_length, "cycle_length"),
                                             _int64(block_length, "block_length"), f=f.name,
                                             output_types=nest.flatten(f.output_types),
                                             output_shapes=nest.flatten(f.output_shapes))
        super(InterleaveDataset, self).__init__(input_dataset, variant, f.output_types, f.output_shapes)


class FilterDataset(UnaryDataset):
    def __init__(self, input_dataset, predicate):
        self._predicate = StructuredFunctionWrapper(predicate, "Dataset.filter()", dataset=input_dataset)
        f = self._predicate
        if f.output_types != dtypes.bool or not f.output_shapes.is_compatible_with(tensor_shape.scalar()):
            raise ValueError("`predicate` return type must be convertible to a scalar boolean tensor. Was %s "
                             "of shape %s." % (f.output_types, f.output_shapes))
        variant = gen_ops.filter_dataset(input_dataset._variant_tensor, f.captured_inputs, predicate=f.name,
                                         **input_dataset._flat_structure)
        super(FilterDataset, self).__init__(input_dataset, variant)


class _OptionsDataset(UnaryDataset):
    """The input with options attached; the same variant."""

    def __init__(self, input_dataset, options):
        if not isinstance(options, options_lib.Options):
            raise TypeError("with_options() takes a tf.data.Options, got %r" % (options,))
        super(_OptionsDataset, self).__init__(input_dataset, input_dataset._variant_tensor)
        self._options_attr = options


class _GeneratorState(object):
    """The live Python iterators of one from_generator dataset, by the id
    each iterator of the dataset got when it started."""

    def __init__(self, generator):
        self._generator = generator
        self._lock = threading.Lock()
        self._next_id = 0
        self._iterators = {}

    def start(self, *args):
        with self._lock:
            iterator_id = self._next_id
            self._next_id += 1
        self._iterators[iterator_id] = iter(self._generator(*args))
        return np.int64(iterator_id)

    def next(self, iterator_id):
        it = self._iterators.get(int(iterator_id))
        if it is None:
            raise StopIteration
        try:
            return next(it)
        except StopIteration:
            self._iterators.pop(int(iterator_id), None)
            raise


def _generator_dataset(generator, output_types, output_shapes, args):
    if not callable(generator):
        raise TypeError("`generator` must be callable.")
    types = nest.map_structure(dtypes.as_dtype, output_types)
    if output_shapes is None:
        shapes = nest.map_structure(lambda _: tensor_shape.unknown_shape(), types)
    else:
        shapes = nest.map_structure_up_to(types, tensor_shape.as_shape, output_shapes)
    flat_types, flat_shapes = nest.flatten(types), nest.flatten(shapes)
    state = _GeneratorState(generator)
    args = tuple(ops.convert_to_tensor(a, name="generator_arg") for a in (args or ()))

    def next_element(iterator_id):
        values = state.next(iterator_id)
        try:
            flat = nest.flatten_up_to(types, values)
        except (TypeError, ValueError):
            raise TypeError("`generator` yielded an element that did not match the expected structure. The expected "
                            "structure was %s, but the yielded element was %r." % (output_types, values))
        out = []
        for v, t, s in zip(flat, flat_types, flat_shapes):
            try:
                arr = np.asarray(v, dtype=object if t == dtypes.string else t.as_numpy_dtype)
            except (TypeError, ValueError):
                raise TypeError("`generator` yielded an element that could not be converted to the expected type. "
                                "The expected type was %s, but the yielded element was %r." % (t.name, v))
            if not s.is_compatible_with(arr.shape):
                raise ValueError("`generator` yielded an element of shape %s where an element of shape %s was "
                                 "expected." % (arr.shape, s))
            out.append(arr)
        return out

    def read_iterator(iterator_id):
        def read_one(_):
            flat = script_ops.py_func(next_element, [iterator_id], flat_types, stateful=True)
            for t, s in zip(flat, flat_shapes):
                t.set_shape(s)
            return nest.pack_sequence_as(types, flat)

        # The py_func's StopIteration (OutOfRange) ends the map, and so the
        # iterator's elements.
        return DatasetV1.from_tensors(np.int64(0)).repeat().map(read_one)

    starts = DatasetV1.from_tensors(args if args else np.int64(0))
    start_fn = (lambda *a: script_ops.py_func(state.start, list(a), dtypes.int64)) if args else \
        (lambda _: script_ops.py_func(state.start, [], dtypes.int64))
    dataset = starts.map(start_fn).flat_map(read_iterator)
    return _GeneratorDataset(dataset, types, shapes)


class _GeneratorDataset(DatasetV1):
    """from_generator's dataset: the flat_map over its iterator ids."""

    def __init__(self, impl, types, shapes):
        super(_GeneratorDataset, self).__init__(impl._variant_tensor, types, shapes, [impl])


# -- TensorFlow 1.x's module functions (tf.compat.v1.data) ---------------------
def make_one_shot_iterator(dataset):
    """dataset.make_one_shot_iterator()."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None):
    """dataset.make_initializable_iterator(shared_name)."""
    return dataset.make_initializable_iterator(shared_name)


def get_legacy_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


def get_legacy_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_legacy_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes


get_output_types = get_legacy_output_types
get_output_shapes = get_legacy_output_shapes
get_output_classes = get_legacy_output_classes
