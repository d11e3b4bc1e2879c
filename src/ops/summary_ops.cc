// Summary ops (paper section 9.1), with TensorFlow's names, inputs, attrs
// and defaults (logging_ops.cc and summary_ops.cc):
// - ScalarSummary, HistogramSummary, ImageSummary, TensorSummaryV2 and
//   MergeSummary output a serialized Summary in a scalar string tensor,
//   which SummaryWriter::AddSerializedSummary (flowvm/summary_writer.h)
//   writes to an event file;
// - the V2 write ops write to a SummaryWriter held as a resource of the
//   device: SummaryWriter makes the handle, CreateSummaryFileWriter opens
//   the event file (in a directory the server allows), WriteSummary,
//   WriteScalarSummary, WriteHistogramSummary, WriteImageSummary,
//   WriteRawProtoSummary and WriteGraphSummary add events,
//   FlushSummaryWriter and CloseSummaryWriter flush and close it.
// The write ops are stateful here (TensorFlow infers that from their
// resource input), so that no pass merges, folds or drops them.
// Shape functions check the scalars and shapes the kernels require.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

// Inputs `first`..`last` must be scalars (when their rank is known).
Status ScalarInputs(InferenceContext* c, int first, int last) {
  for (int i = first; i <= last; ++i) {
    PartialTensorShape unused;
    FLOWVM_RETURN_IF_ERROR(c->WithRank(i, 0, &unused));
  }
  return Status::OK();
}

Status ScalarSummaryShape(InferenceContext* c) {
  if (!c->input(0).MergeWith(c->input(1)).ok())
    return errors::InvalidArgument("tags and values not the same shape: ", c->input(0).DebugString(),
                                   " != ", c->input(1).DebugString());
  return ScalarShape(c);
}

Status TagAndScalarOutput(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(ScalarInputs(c, 0, 0));
  return ScalarShape(c);
}

// A 4-D [batch, height, width, channels] image tensor in `input`, with 1,
// 3 or 4 channels.
Status CheckImages(InferenceContext* c, int input) {
  PartialTensorShape images;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(input, 4, &images));
  if (!images.unknown_rank()) {
    const int64_t depth = images.dim_size(3);
    if (depth != -1 && depth != 1 && depth != 3 && depth != 4)
      return errors::InvalidArgument("Tensor must be 4-D with last dim 1, 3, or 4, not ", images.DebugString());
  }
  return Status::OK();
}

Status ImageSummaryShape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(ScalarInputs(c, 0, 0));
  FLOWVM_RETURN_IF_ERROR(CheckImages(c, 1));
  return ScalarShape(c);
}

Status TensorSummaryV2Shape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(ScalarInputs(c, 0, 0));
  FLOWVM_RETURN_IF_ERROR(ScalarInputs(c, 2, 2));
  return ScalarShape(c);
}

Status NoOutputs(InferenceContext* c) { return Status::OK(); }

// writer, then `n` scalars after it.
Status WriterAndScalars(InferenceContext* c, int n) { return ScalarInputs(c, 0, n); }

}  // namespace

// ---- summaries as tensors ----------------------------------------------------

REGISTER_OP("ScalarSummary")
    .Input("tags: string")
    .Input("values: T")
    .Output("summary: string")
    .Attr("T: realnumbertype")
    .SetShapeFn(ScalarSummaryShape)
    .Doc("A Summary with one simple_value per tag (tags and values of the same shape).");

REGISTER_OP("HistogramSummary")
    .Input("tag: string")
    .Input("values: T")
    .Output("summary: string")
    .Attr("T: realnumbertype = DT_FLOAT")
    .SetShapeFn(TagAndScalarOutput)
    .Doc("A Summary with a histogram of values (TensorFlow's buckets); InvalidArgument for a non-finite value.");

REGISTER_OP("ImageSummary")
    .Input("tag: string")
    .Input("tensor: T")
    .Output("summary: string")
    .Attr("max_images: int >= 1 = 3")
    .Attr("T: {uint8, float, half, float64} = DT_FLOAT")
    .Attr("bad_color: tensor = { dtype: DT_UINT8 tensor_shape: { dim { size: 4 } } int_val: 255 int_val: 0 "
          "int_val: 0 int_val: 255 }")
    .SetShapeFn(ImageSummaryShape)
    .Doc("A Summary with up to max_images PNG images of a [batch, height, width, channels] tensor, tagged "
         "<tag>/image/<i> (<tag>/image when max_images is 1); float images are scaled into [0, 255].");

REGISTER_OP("TensorSummaryV2")
    .Input("tag: string")
    .Input("tensor: T")
    .Input("serialized_summary_metadata: string")
    .Output("summary: string")
    .Attr("T: type")
    .SetShapeFn(TensorSummaryV2Shape)
    .Doc("A Summary holding the tensor itself, with the given SummaryMetadata (which plugin shows it).");

REGISTER_OP("MergeSummary")
    .Input("inputs: N * string")
    .Output("summary: string")
    .Attr("N : int >= 1")
    .SetShapeFn(ScalarShape)
    .Doc("The union of the values of serialized Summaries; InvalidArgument if a tag repeats.");

// ---- writing to an event file from the graph ---------------------------------

REGISTER_OP("SummaryWriter")
    .Output("writer: resource")
    .Attr("shared_name: string = ''")
    .Attr("container: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarShape)
    .Doc("A handle to a summary writer in the device's resource manager (named shared_name, else the node).");

REGISTER_OP("CreateSummaryFileWriter")
    .Input("writer: resource")
    .Input("logdir: string")
    .Input("max_queue: int32")
    .Input("flush_millis: int32")
    .Input("filename_suffix: string")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) { return WriterAndScalars(c, 4); })
    .Doc("Opens an event file in logdir for the writer, unless it is open already.");

REGISTER_OP("FlushSummaryWriter")
    .Input("writer: resource")
    .SetIsStateful()
    .SetShapeFn(NoOutputs)
    .Doc("Writes the writer's pending events and syncs its file.");

REGISTER_OP("CloseSummaryWriter")
    .Input("writer: resource")
    .SetIsStateful()
    .SetShapeFn(NoOutputs)
    .Doc("Flushes and closes the writer's file; CreateSummaryFileWriter opens a new one.");

REGISTER_OP("WriteSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tensor: T")
    .Input("tag: string")
    .Input("summary_metadata: string")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      FLOWVM_RETURN_IF_ERROR(ScalarInputs(c, 0, 1));
      return ScalarInputs(c, 3, 4);
    })
    .Doc("Writes a tensor summary with its serialized SummaryMetadata at step.");

REGISTER_OP("WriteRawProtoSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tensor: string")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) { return WriterAndScalars(c, 1); })
    .Doc("Writes each element of tensor, a serialized Summary, as an event at step.");

REGISTER_OP("WriteScalarSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tag: string")
    .Input("value: T")
    .Attr("T: realnumbertype")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) { return WriterAndScalars(c, 3); })
    .Doc("Writes a scalar (a simple_value) at step.");

REGISTER_OP("WriteHistogramSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tag: string")
    .Input("values: T")
    .Attr("T: realnumbertype = DT_FLOAT")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) { return WriterAndScalars(c, 2); })
    .Doc("Writes a histogram of values at step; InvalidArgument for a non-finite value.");

REGISTER_OP("WriteImageSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tag: string")
    .Input("tensor: T")
    .Input("bad_color: uint8")
    .Attr("max_images: int >= 1 = 3")
    .Attr("T: {uint8, float, half} = DT_FLOAT")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      FLOWVM_RETURN_IF_ERROR(WriterAndScalars(c, 2));
      FLOWVM_RETURN_IF_ERROR(CheckImages(c, 3));
      PartialTensorShape unused;
      return c->WithRank(4, 1, &unused);
    })
    .Doc("Writes up to max_images PNG images at step, as ImageSummary makes them.");

REGISTER_OP("WriteGraphSummary")
    .Input("writer: resource")
    .Input("step: int64")
    .Input("tensor: string")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) { return WriterAndScalars(c, 2); })
    .Doc("Writes a serialized GraphDef as the event file's graph.");

}  // namespace flowvm
