// Datasets and iterators (tf.data's graph ops), with TensorFlow 1.15's names,
// inputs, outputs, attrs and defaults, so that graphs TF's Python writes load
// unchanged. A dataset op outputs a scalar DT_VARIANT holding an immutable
// dataset object; an iterator is a resource; IteratorGetNext reads the next
// element from it. Kernels: kernels/data/.
//
// Statefulness: source datasets are stateful (as in TF: a dataset is never
// constant-folded). The iterator ops are marked stateful too, unlike some of
// TF's registrations, so that two IteratorGetNext nodes on one iterator are
// never merged by common subexpression elimination.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {

namespace {

// The inputs numbered in `scalars` must be scalars; the output is a scalar.
Status ScalarInputsShape(InferenceContext* c, std::vector<int> scalars) {
  PartialTensorShape unused;
  for (int i : scalars) FLOWVM_RETURN_IF_ERROR(c->WithRank(i, 0, &unused));
  return ScalarShape(c);
}

// `filenames` is a scalar or a vector; the others are scalars.
Status FileDatasetShape(InferenceContext* c) {
  const PartialTensorShape& names = c->input(0);
  if (!names.unknown_rank() && names.dims() > 1)
    return errors::InvalidArgument("filenames must be a scalar or a vector, got shape ", names.DebugString());
  std::vector<int> scalars;
  for (int i = 1; i < c->num_inputs(); ++i) scalars.push_back(i);
  return ScalarInputsShape(c, scalars);
}

// The components' shapes are the iterator's declared output_shapes.
Status IteratorGetNextShape(InferenceContext* c) {
  PartialTensorShape unused;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(0, 0, &unused));
  std::vector<PartialTensorShape> shapes;
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("output_shapes", &shapes));
  if (static_cast<int>(shapes.size()) != c->num_outputs())
    return errors::InvalidArgument("output_shapes has ", shapes.size(), " shapes but output_types has ",
                                   c->num_outputs(), " types");
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, shapes[i]);
  return Status::OK();
}

Status NoOutputs(InferenceContext*) { return Status::OK(); }

}  // namespace

// ---- sources ---------------------------------------------------------------

REGISTER_OP("TensorDataset")
    .Input("components: Toutput_types")
    .Output("handle: variant")
    .Attr("Toutput_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn(ScalarShape)
    .Doc("A dataset of one element: `components`.");

REGISTER_OP("TensorSliceDataset")
    .Input("components: Toutput_types")
    .Output("handle: variant")
    .Attr("Toutput_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn(ScalarShape)
    .Doc("A dataset of each dim-0 slice of `components`.");

REGISTER_OP("RangeDataset")
    .Input("start: int64")
    .Input("stop: int64")
    .Input("step: int64")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) { return ScalarInputsShape(c, {0, 1, 2}); })
    .Doc("A dataset of start, start + step, ... up to (not including) stop.");

REGISTER_OP("TFRecordDataset")
    .Input("filenames: string")
    .Input("compression_type: string")
    .Input("buffer_size: int64")
    .Output("handle: variant")
    .SetIsStateful()
    .SetShapeFn(FileDatasetShape)
    .Doc("The records of TFRecord files, one string each; compression_type '', 'ZLIB' or 'GZIP'.");

REGISTER_OP("TextLineDataset")
    .Input("filenames: string")
    .Input("compression_type: string")
    .Input("buffer_size: int64")
    .Output("handle: variant")
    .SetIsStateful()
    .SetShapeFn(FileDatasetShape)
    .Doc("The lines of text files, without their line endings.");

REGISTER_OP("FixedLengthRecordDataset")
    .Input("filenames: string")
    .Input("header_bytes: int64")
    .Input("record_bytes: int64")
    .Input("footer_bytes: int64")
    .Input("buffer_size: int64")
    .Output("handle: variant")
    .SetIsStateful()
    .SetShapeFn(FileDatasetShape)
    .Doc("Records of record_bytes bytes each, between a header and a footer of each file.");

REGISTER_OP("FixedLengthRecordDatasetV2")
    .Input("filenames: string")
    .Input("header_bytes: int64")
    .Input("record_bytes: int64")
    .Input("footer_bytes: int64")
    .Input("buffer_size: int64")
    .Input("compression_type: string")
    .Output("handle: variant")
    .SetIsStateful()
    .SetShapeFn(FileDatasetShape)
    .Doc("FixedLengthRecordDataset of compressed files ('', 'ZLIB' or 'GZIP').");

// ---- transformations ---------------------------------------------------------

#define FLOWVM_COUNT_DATASET(NAME, DOC)                                              \
  REGISTER_OP(NAME)                                                                  \
      .Input("input_dataset: variant")                                               \
      .Input("count: int64")                                                         \
      .Output("handle: variant")                                                     \
      .Attr("output_types: list(type) >= 1")                                         \
      .Attr("output_shapes: list(shape) >= 1")                                       \
      .SetShapeFn([](InferenceContext* c) { return ScalarInputsShape(c, {1}); })     \
      .Doc(DOC)

FLOWVM_COUNT_DATASET("RepeatDataset", "The input `count` times over; -1: for ever.");
FLOWVM_COUNT_DATASET("TakeDataset", "The first `count` elements of the input; -1: all of them.");
FLOWVM_COUNT_DATASET("SkipDataset", "The input without its first `count` elements; -1: skips all.");
#undef FLOWVM_COUNT_DATASET

REGISTER_OP("ZipDataset")
    .Input("input_datasets: N * variant")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("N: int >= 1")
    .SetShapeFn(ScalarShape)
    .Doc("Elements made of one element of each input; ends with the shortest.");

REGISTER_OP("ConcatenateDataset")
    .Input("input_dataset: variant")
    .Input("another_dataset: variant")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn(ScalarShape)
    .Doc("The elements of `input_dataset`, then those of `another_dataset`.");

REGISTER_OP("MapDataset")
    .Input("input_dataset: variant")
    .Input("other_arguments: Targuments")
    .Output("handle: variant")
    .Attr("f: func")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("use_inter_op_parallelism: bool = true")
    .Attr("preserve_cardinality: bool = false")
    .SetShapeFn(ScalarShape)
    .Doc("f(element..., other_arguments...) of each element.");

REGISTER_OP("ParallelMapDataset")
    .Input("input_dataset: variant")
    .Input("other_arguments: Targuments")
    .Input("num_parallel_calls: int32")
    .Output("handle: variant")
    .Attr("f: func")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("use_inter_op_parallelism: bool = true")
    .Attr("sloppy: bool = false")
    .Attr("preserve_cardinality: bool = false")
    .SetShapeFn([](InferenceContext* c) { return ScalarInputsShape(c, {c->num_inputs() - 1}); })
    .Doc("MapDataset with up to num_parallel_calls calls of f at once; elements keep their order.");

REGISTER_OP("FilterDataset")
    .Input("input_dataset: variant")
    .Input("other_arguments: Targuments")
    .Output("handle: variant")
    .Attr("predicate: func")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn(ScalarShape)
    .Doc("The elements for which predicate(element..., other_arguments...) is true.");

REGISTER_OP("FlatMapDataset")
    .Input("input_dataset: variant")
    .Input("other_arguments: Targuments")
    .Output("handle: variant")
    .Attr("f: func")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn(ScalarShape)
    .Doc("The elements of the dataset f returns for each element, one dataset after the other.");

REGISTER_OP("InterleaveDataset")
    .Input("input_dataset: variant")
    .Input("other_arguments: Targuments")
    .Input("cycle_length: int64")
    .Input("block_length: int64")
    .Output("handle: variant")
    .Attr("f: func")
    .Attr("Targuments: list(type) >= 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn([](InferenceContext* c) { return ScalarInputsShape(c, {c->num_inputs() - 2, c->num_inputs() - 1}); })
    .Doc("FlatMapDataset cycling over cycle_length datasets, block_length elements from each in turn.");

REGISTER_OP("BatchDataset")
    .Input("input_dataset: variant")
    .Input("batch_size: int64")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn([](InferenceContext* c) { return ScalarInputsShape(c, {1}); })
    .Doc("Stacks batch_size consecutive elements; the last batch may be smaller.");

REGISTER_OP("BatchDatasetV2")
    .Input("input_dataset: variant")
    .Input("batch_size: int64")
    .Input("drop_remainder: bool")
    .Output("handle: variant")
    .Attr("parallel_copy: bool = false")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn([](InferenceContext* c) { return ScalarInputsShape(c, {1, 2}); })
    .Doc("Stacks batch_size consecutive elements; drop_remainder drops a smaller last batch.");

REGISTER_OP("PaddedBatchDataset")
    .Input("input_dataset: variant")
    .Input("batch_size: int64")
    .Input("padded_shapes: N * int64")
    .Input("padding_values: Toutput_types")
    .Output("handle: variant")
    .Attr("Toutput_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("N: int >= 1")
    .SetShapeFn([](InferenceContext* c) { return ScalarInputsShape(c, {1}); })
    .Doc("BatchDataset padding each component to padded_shapes (-1: the batch's largest).");

REGISTER_OP("PaddedBatchDatasetV2")
    .Input("input_dataset: variant")
    .Input("batch_size: int64")
    .Input("padded_shapes: N * int64")
    .Input("padding_values: Toutput_types")
    .Input("drop_remainder: bool")
    .Output("handle: variant")
    .Attr("parallel_copy: bool = false")
    .Attr("Toutput_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("N: int >= 1")
    .SetShapeFn([](InferenceContext* c) { return ScalarInputsShape(c, {1, c->num_inputs() - 1}); })
    .Doc("BatchDatasetV2 padding each component to padded_shapes (-1: the batch's largest).");

REGISTER_OP("ShardDataset")
    .Input("input_dataset: variant")
    .Input("num_shards: int64")
    .Input("index: int64")
    .Output("handle: variant")
    .Attr("require_non_empty: bool = false")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn([](InferenceContext* c) { return ScalarInputsShape(c, {1, 2}); })
    .Doc("Every num_shards-th element of the input, starting at `index` (one worker's share).");

REGISTER_OP("ShuffleDataset")
    .Input("input_dataset: variant")
    .Input("buffer_size: int64")
    .Input("seed: int64")
    .Input("seed2: int64")
    .Output("handle: variant")
    .Attr("reshuffle_each_iteration: bool = true")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn([](InferenceContext* c) { return ScalarInputsShape(c, {1, 2, 3}); })
    .Doc("The input in random order, drawn from a buffer of buffer_size elements; seeds 0, 0: random.");

REGISTER_OP("ShuffleAndRepeatDataset")
    .Input("input_dataset: variant")
    .Input("buffer_size: int64")
    .Input("seed: int64")
    .Input("seed2: int64")
    .Input("count: int64")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn([](InferenceContext* c) { return ScalarInputsShape(c, {1, 2, 3, 4}); })
    .Doc("ShuffleDataset (reshuffled each epoch) repeated `count` times; -1: for ever.");

REGISTER_OP("PrefetchDataset")
    .Input("input_dataset: variant")
    .Input("buffer_size: int64")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("slack_period: int = 0")
    .Attr("legacy_autotune: bool = true")
    .SetShapeFn([](InferenceContext* c) { return ScalarInputsShape(c, {1}); })
    .Doc("The input, produced ahead by a background thread into a buffer of buffer_size elements.");

REGISTER_OP("CacheDataset")
    .Input("input_dataset: variant")
    .Input("filename: string")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn([](InferenceContext* c) { return ScalarInputsShape(c, {1}); })
    .Doc("The input, kept after the first full pass: in memory (filename '') or in a file.");

// tf.data.experimental's (TF 1.15's experimental_dataset_ops.cc, both the
// plain and the Experimental names).
#define FLOWVM_UNBATCH(NAME)                                  \
  REGISTER_OP(NAME)                                           \
      .Input("input_dataset: variant")                        \
      .Output("handle: variant")                              \
      .Attr("output_types: list(type) >= 1")                  \
      .Attr("output_shapes: list(shape) >= 1")                \
      .SetShapeFn(ScalarShape)                                \
      .Doc("Each dim-0 slice of each input element (the inverse of batching).")
FLOWVM_UNBATCH("UnbatchDataset");
FLOWVM_UNBATCH("ExperimentalUnbatchDataset");
#undef FLOWVM_UNBATCH

#define FLOWVM_MAP_AND_BATCH(NAME)                                                                        \
  REGISTER_OP(NAME)                                                                                       \
      .Input("input_dataset: variant")                                                                    \
      .Input("other_arguments: Targuments")                                                               \
      .Input("batch_size: int64")                                                                         \
      .Input("num_parallel_calls: int64")                                                                 \
      .Input("drop_remainder: bool")                                                                      \
      .Output("handle: variant")                                                                          \
      .Attr("f: func")                                                                                    \
      .Attr("Targuments: list(type) >= 0")                                                                \
      .Attr("output_types: list(type) >= 1")                                                              \
      .Attr("output_shapes: list(shape) >= 1")                                                            \
      .Attr("preserve_cardinality: bool = false")                                                         \
      .SetShapeFn([](InferenceContext* c) {                                                               \
        const int n = c->num_inputs();                                                                    \
        return ScalarInputsShape(c, {n - 3, n - 2, n - 1});                                               \
      })                                                                                                  \
      .Doc("ParallelMapDataset then BatchDatasetV2, fused (tf.data.experimental.map_and_batch).")
FLOWVM_MAP_AND_BATCH("MapAndBatchDataset");
FLOWVM_MAP_AND_BATCH("ExperimentalMapAndBatchDataset");
#undef FLOWVM_MAP_AND_BATCH

// What TF 1.15's Python wraps every dataset it iterates in (autotuning and
// static graph rewrites); here they pass their input through.
REGISTER_OP("ModelDataset")
    .Input("input_dataset: variant")
    .Output("handle: variant")
    .Attr("algorithm: int = 0")
    .Attr("cpu_budget: int = 0")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetShapeFn(ScalarShape)
    .Doc("The input unchanged (TensorFlow's autotuning model; no tuning here).");

REGISTER_OP("OptimizeDataset")
    .Input("input_dataset: variant")
    .Input("optimizations: string")
    .Output("handle: variant")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("optimization_configs: list(string) = []")
    .SetShapeFn(ScalarShape)
    .Doc("The input unchanged (TensorFlow's static dataset rewrites; none here).");

// ---- iterators -------------------------------------------------------------

#define FLOWVM_ITERATOR_HANDLE(NAME)                \
  REGISTER_OP(NAME)                                 \
      .Output("handle: resource")                   \
      .Attr("shared_name: string")                  \
      .Attr("container: string")                    \
      .Attr("output_types: list(type) >= 1")        \
      .Attr("output_shapes: list(shape) >= 1")      \
      .SetIsStateful()                              \
      .SetShapeFn(ScalarShape)                      \
      .Doc("An iterator, uninitialized until MakeIterator gives it a dataset.")

FLOWVM_ITERATOR_HANDLE("Iterator");
FLOWVM_ITERATOR_HANDLE("IteratorV2");
#undef FLOWVM_ITERATOR_HANDLE

REGISTER_OP("MakeIterator")
    .Input("dataset: variant")
    .Input("iterator: resource")
    .SetIsStateful()
    .SetShapeFn(NoOutputs)
    .Doc("(Re)starts `iterator` at the beginning of `dataset`.");

REGISTER_OP("OneShotIterator")
    .Output("handle: resource")
    .Attr("dataset_factory: func")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarShape)
    .Doc("An iterator over the dataset dataset_factory returns, made on first use.");

REGISTER_OP("IteratorGetNext")
    .Input("iterator: resource")
    .Output("components: output_types")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn(IteratorGetNextShape)
    .Doc("The iterator's next element; OutOfRange at the end of the sequence.");

REGISTER_OP("IteratorGetNextSync")
    .Input("iterator: resource")
    .Output("components: output_types")
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .SetIsStateful()
    .SetShapeFn(IteratorGetNextShape)
    .Doc("IteratorGetNext.");

REGISTER_OP("IteratorToStringHandle")
    .Input("resource_handle: resource")
    .Output("string_handle: string")
    .SetIsStateful()
    .SetShapeFn(ScalarShape)
    .Doc("The iterator's handle as a string (a serialized ResourceHandleProto), to feed later.");

#define FLOWVM_ITERATOR_FROM_STRING(NAME)                \
  REGISTER_OP(NAME)                                      \
      .Input("string_handle: string")                    \
      .Output("resource_handle: resource")               \
      .Attr("output_types: list(type) >= 0 = []")        \
      .Attr("output_shapes: list(shape) >= 0 = []")      \
      .SetIsStateful()                                   \
      .SetShapeFn(ScalarShape)                           \
      .Doc("The iterator a string handle names (feedable iterators).")

FLOWVM_ITERATOR_FROM_STRING("IteratorFromStringHandle");
FLOWVM_ITERATOR_FROM_STRING("IteratorFromStringHandleV2");
#undef FLOWVM_ITERATOR_FROM_STRING

}  // namespace flowvm
