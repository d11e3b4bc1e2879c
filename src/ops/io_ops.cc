// File ops, with TensorFlow's names, inputs and attrs (io_ops.cc):
// - the checkpoint ops (paper section 3.3, Save and Restore nodes) SaveV2 and
//   RestoreV2; the bundle format is flowvm's own (core/tensor_bundle.h), not
//   TensorFlow's;
// - ReadFile, a whole file as one string. Like TensorFlow's it is not
//   stateful, but constant folding leaves it alone: the file is read on the
//   device the node is placed on, under that device's allowed directories
//   (runtime/passes/constant_folding.cc);
// - WriteFile, one string as a whole file (replacing it, creating missing
//   parent directories).
// On a server every file these ops touch must lie in the directories the
// server allows (kernels/framework/file_access.h).
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

// prefix is a scalar; tensor_names and shape_and_slices are vectors with one
// element per saved (or restored) tensor.
Status CheckNamesAndSlices(InferenceContext* c, int64_t count) {
  PartialTensorShape unused, s;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(0, 0, &unused));
  for (int i = 1; i <= 2; ++i) {
    FLOWVM_RETURN_IF_ERROR(c->WithRank(i, 1, &s));
    int64_t merged = 0;
    FLOWVM_RETURN_IF_ERROR(c->MergeDim(s.dim_size(0), count, &merged,
                                       i == 1 ? "tensor_names must have one element per tensor"
                                              : "shape_and_slices must have one element per tensor"));
  }
  return Status::OK();
}

Status SaveV2Shape(InferenceContext* c) { return CheckNamesAndSlices(c, c->num_inputs() - 3); }

// The restored shapes are whatever the checkpoint holds: unknown here.
Status RestoreV2Shape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(CheckNamesAndSlices(c, c->num_outputs()));
  return UnknownShape(c);
}

// A scalar filename in, a scalar string out.
Status ReadFileShape(InferenceContext* c) {
  const PartialTensorShape& filename = c->input(0);
  if (!filename.unknown_rank() && filename.dims() != 0)
    return errors::InvalidArgument("filename must be a scalar, but has shape ", filename.DebugString());
  c->set_output(0, TensorShape());
  return Status::OK();
}

// A scalar filename and scalar contents; no outputs.
Status WriteFileShape(InferenceContext* c) {
  for (int i = 0; i < 2; ++i) {
    const PartialTensorShape& in = c->input(i);
    if (!in.unknown_rank() && in.dims() != 0)
      return errors::InvalidArgument(i == 0 ? "filename" : "contents", " must be a scalar, but has shape ",
                                     in.DebugString());
  }
  return Status::OK();
}

}  // namespace

REGISTER_OP("SaveV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Input("tensors: dtypes")
    .Attr("dtypes: list(type)")
    .SetIsStateful()
    .SetShapeFn(SaveV2Shape)
    .Doc("Saves tensors in V2 checkpoint format.");

REGISTER_OP("RestoreV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Output("tensors: dtypes")
    .Attr("dtypes: list(type)")
    .SetIsStateful()
    .SetShapeFn(RestoreV2Shape)
    .Doc("Restores tensors from a V2 checkpoint.");

REGISTER_OP("ReadFile")
    .Input("filename: string")
    .Output("contents: string")
    .SetShapeFn(ReadFileShape)
    .Doc("Reads and outputs the entire contents of the input filename.");

// Patterns: a scalar or a vector of glob patterns; the matches: a vector.
static Status MatchingFilesShape(InferenceContext* c) {
  const PartialTensorShape& pattern = c->input(0);
  if (!pattern.unknown_rank() && pattern.dims() > 1)
    return errors::InvalidArgument("pattern must be a scalar or a vector, but has shape ", pattern.DebugString());
  c->set_output(0, PartialTensorShape({-1}));
  return Status::OK();
}

REGISTER_OP("MatchingFiles")
    .Input("pattern: string")
    .Output("filenames: string")
    .SetShapeFn(MatchingFilesShape)
    .Doc("The names of the files that match one or more glob patterns (`*`, `?`, `[...]`), sorted, each once. "
         "Like ReadFile it is not stateful, but constant folding leaves it alone: the file system is read when "
         "the step runs.");

REGISTER_OP("WriteFile")
    .Input("filename: string")
    .Input("contents: string")
    .SetIsStateful()
    .SetShapeFn(WriteFileShape)
    .Doc("Writes contents to the file at input filename. Creates the file and recursively creates the directory "
         "if it does not exist.");

}  // namespace flowvm

namespace flowvm {

namespace {

Status ReaderHandleShape(InferenceContext* c) {
  c->set_output(0, PartialTensorShape(std::initializer_list<int64_t>{}));
  return Status::OK();
}

Status ScalarKeyValue(InferenceContext* c) {
  c->set_output(0, PartialTensorShape(std::initializer_list<int64_t>{}));
  c->set_output(1, PartialTensorShape(std::initializer_list<int64_t>{}));
  return Status::OK();
}

Status VectorKeysValues(InferenceContext* c) {
  c->set_output(0, PartialTensorShape({-1}));
  c->set_output(1, PartialTensorShape({-1}));
  return Status::OK();
}

}  // namespace

// Readers (paper 4.5): resources that turn the files named by a queue of
// file names into records. Kernels: kernels/io/reader_ops.cc.
REGISTER_OP("TFRecordReaderV2")
    .Output("reader_handle: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("compression_type: string = ''")
    .SetIsStateful()
    .SetShapeFn(ReaderHandleShape)
    .Doc("A reader that outputs the records of TFRecord files.");

REGISTER_OP("WholeFileReaderV2")
    .Output("reader_handle: resource")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ReaderHandleShape)
    .Doc("A reader that outputs each file whole: the key is its name, the value its contents.");

REGISTER_OP("TextLineReaderV2")
    .Output("reader_handle: resource")
    .Attr("skip_header_lines: int = 0")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ReaderHandleShape)
    .Doc("A reader that outputs the lines of files (without the newline).");

REGISTER_OP("ReaderReadV2")
    .Input("reader_handle: resource")
    .Input("queue_handle: resource")
    .Output("key: string")
    .Output("value: string")
    .SetIsStateful()
    .SetShapeFn(ScalarKeyValue)
    .Doc("The next record: takes the next file name from the queue when the current file is done (waiting "
         "without a thread); OutOfRange once the queue is closed and empty.");

REGISTER_OP("ReaderReadUpToV2")
    .Input("reader_handle: resource")
    .Input("queue_handle: resource")
    .Input("num_records: int64")
    .Output("keys: string")
    .Output("values: string")
    .SetIsStateful()
    .SetShapeFn(VectorKeysValues)
    .Doc("Up to num_records records; fewer only when the queue of file names is closed and exhausted.");

REGISTER_OP("ReaderNumRecordsProducedV2")
    .Input("reader_handle: resource")
    .Output("records_produced: int64")
    .SetIsStateful()
    .SetShapeFn(ReaderHandleShape)
    .Doc("How many records the reader has produced.");

REGISTER_OP("ReaderResetV2")
    .Input("reader_handle: resource")
    .SetIsStateful()
    .SetShapeFn(UnknownShape)
    .Doc("Restores the reader to its initial state.");

}  // namespace flowvm
