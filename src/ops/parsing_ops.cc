// Decoding ops of input pipelines (paper 4.5), with TensorFlow's names and
// semantics: DecodeRaw, DecodeCSV, ParseTensor, SerializeTensor.
#include "graph/gradient_registry.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {

namespace {

Status DecodeRawShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  if (in.unknown_rank()) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  std::vector<int64_t> dims = in.dim_sizes();
  dims.push_back(-1);
  FLOWVM_ASSIGN_OR_RETURN(PartialTensorShape out, PartialTensorShape::FromDims(dims));
  c->set_output(0, out);
  return Status::OK();
}

Status DecodeCSVShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->input(0));
  return Status::OK();
}

}  // namespace

REGISTER_OP("DecodeRaw")
    .Input("bytes: string")
    .Output("output: out_type")
    .Attr("out_type: {half, float, double, int32, uint16, uint8, int16, int8, int64, complex64, complex128, bool}")
    .Attr("little_endian: bool = true")
    .SetShapeFn(DecodeRawShape)
    .Doc("Reinterprets the bytes of each string as a vector of out_type; all strings must have the same length.");

REGISTER_OP("DecodeCSV")
    .Input("records: string")
    .Input("record_defaults: OUT_TYPE")
    .Output("output: OUT_TYPE")
    .Attr("OUT_TYPE: list({float, double, int32, int64, string}) >= 1")
    .Attr("field_delim: string = ','")
    .Attr("use_quote_delim: bool = true")
    .Attr("na_value: string = ''")
    .Attr("select_cols: list(int) = []")
    .SetShapeFn(DecodeCSVShape)
    .Doc("Splits CSV records into columns, one tensor per column; an empty field takes its record_defaults value "
         "(an empty default makes the column required).");

// Parsing text has no gradient (its record_defaults are not what the
// outputs are computed from).
REGISTER_NO_GRADIENT("DecodeCSV");

REGISTER_OP("ParseTensor")
    .Input("serialized: string")
    .Output("output: out_type")
    .Attr("out_type: type")
    .SetShapeFn(UnknownShape)
    .Doc("Parses a serialized TensorProto into a tensor of out_type.");

REGISTER_OP("SerializeTensor")
    .Input("tensor: T")
    .Output("serialized: string")
    .Attr("T: type")
    .SetShapeFn(ScalarShape)
    .Doc("Serializes a tensor as a TensorProto.");

}  // namespace flowvm
