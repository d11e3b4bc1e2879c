// Kernels of the decoding ops (ops/parsing_ops.cc).
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

class DecodeRawOp : public OpKernel {
 public:
  explicit DecodeRawOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("out_type", &out_type_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("little_endian", &little_endian_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const size_t elem = DataTypeSize(out_type_);
    auto strings = in.flat<std::string>();
    int64_t width = -1;
    for (int64_t i = 0; i < strings.size(); ++i) {
      const int64_t bytes = static_cast<int64_t>(strings[i].size());
      OP_REQUIRES(ctx, bytes % static_cast<int64_t>(elem) == 0,
                  errors::InvalidArgument("input ", i, " has ", bytes, " bytes, not a multiple of ", elem,
                                          " (the size of ", DataTypeName(out_type_), ")"));
      OP_REQUIRES(ctx, width < 0 || bytes / static_cast<int64_t>(elem) == width,
                  errors::InvalidArgument("DecodeRaw needs strings of equal length: input 0 has ",
                                          width * static_cast<int64_t>(elem), " bytes, input ", i, " has ", bytes));
      width = bytes / static_cast<int64_t>(elem);
    }
    TensorShape shape = in.shape();
    shape.AddDim(width < 0 ? 0 : width);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    char* dst = static_cast<char*>(out->raw_data());
    const bool swap = little_endian_ != HostIsLittleEndian();
    for (int64_t i = 0; i < strings.size(); ++i) {
      const std::string& s = strings[i];
      std::memcpy(dst, s.data(), s.size());
      if (swap && elem > 1)
        for (size_t k = 0; k < s.size(); k += elem) std::reverse(dst + k, dst + k + elem);
      dst += s.size();
    }
  }

 private:
  static bool HostIsLittleEndian() {
    const uint16_t one = 1;
    unsigned char first;
    std::memcpy(&first, &one, 1);
    return first == 1;
  }
  DataType out_type_ = DT_FLOAT;
  bool little_endian_ = true;
};

class DecodeCSVOp : public OpKernel {
 public:
  explicit DecodeCSVOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string delim;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("OUT_TYPE", &types_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("field_delim", &delim));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_quote_delim", &use_quote_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("na_value", &na_value_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("select_cols", &select_cols_));
    OP_REQUIRES(ctx, delim.size() == 1, errors::InvalidArgument("field_delim must be one character, got '", delim, "'"));
    delim_ = delim[0];
    OP_REQUIRES(ctx, select_cols_.empty() || select_cols_.size() == types_.size(),
                errors::InvalidArgument("select_cols has ", select_cols_.size(), " columns for ", types_.size(),
                                        " outputs"));
    for (size_t i = 1; i < select_cols_.size(); ++i)
      OP_REQUIRES(ctx, select_cols_[i] > select_cols_[i - 1],
                  errors::InvalidArgument("select_cols must be strictly increasing"));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& records = ctx->input(0);
    const int n = static_cast<int>(types_.size());
    for (int c = 0; c < n; ++c) {
      const Tensor& d = ctx->input(1 + c);
      OP_REQUIRES(ctx, d.NumElements() <= 1,
                  errors::InvalidArgument("record_defaults ", c, " must have at most one element"));
    }
    std::vector<Tensor*> outs(n);
    for (int c = 0; c < n; ++c) OP_REQUIRES_OK(ctx, ctx->allocate_output(c, records.shape(), &outs[c]));
    auto lines = records.flat<std::string>();
    std::vector<std::string> fields;
    for (int64_t r = 0; r < lines.size(); ++r) {
      OP_REQUIRES_OK(ctx, Split(lines[r], r, &fields));
      std::vector<const std::string*> picked;
      if (select_cols_.empty()) {
        OP_REQUIRES(ctx, static_cast<int>(fields.size()) == n,
                    errors::InvalidArgument("record ", r, " has ", fields.size(), " fields, expected ", n, ": '",
                                            lines[r], "'"));
        for (auto& f : fields) picked.push_back(&f);
      } else {
        for (int64_t col : select_cols_) {
          OP_REQUIRES(ctx, col >= 0 && col < static_cast<int64_t>(fields.size()),
                      errors::InvalidArgument("record ", r, " has ", fields.size(), " fields, no column ", col));
          picked.push_back(&fields[col]);
        }
      }
      for (int c = 0; c < n; ++c) OP_REQUIRES_OK(ctx, Store(*picked[c], ctx->input(1 + c), r, c, outs[c]));
    }
  }

 private:
  // RFC 4180 style: a quoted field may hold the delimiter, "" is a quote.
  Status Split(const std::string& line, int64_t r, std::vector<std::string>* fields) const {
    fields->clear();
    std::string cur;
    size_t i = 0;
    bool field_start = true;
    for (;;) {
      if (field_start && use_quote_ && i < line.size() && line[i] == '"') {
        ++i;
        for (;;) {
          if (i >= line.size()) return errors::InvalidArgument("record ", r, " has an unterminated quote: '", line, "'");
          if (line[i] == '"') {
            if (i + 1 < line.size() && line[i + 1] == '"') {
              cur += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          cur += line[i++];
        }
        if (i < line.size() && line[i] != delim_)
          return errors::InvalidArgument("record ", r, ": a quoted field must end at a delimiter: '", line, "'");
      }
      field_start = false;
      if (i >= line.size()) {
        fields->push_back(std::move(cur));
        return Status::OK();
      }
      if (line[i] == delim_) {
        fields->push_back(std::move(cur));
        cur.clear();
        field_start = true;
        ++i;
        continue;
      }
      cur += line[i++];
    }
  }

  Status Store(const std::string& field, const Tensor& def, int64_t r, int c, Tensor* out) const {
    const bool missing = field.empty() || (!na_value_.empty() && field == na_value_);
    if (missing && def.NumElements() == 0)
      return errors::InvalidArgument("field ", c, " of record ", r, " is empty and has no default (it is required)");
    const DataType t = types_[c];
    if (t == DT_STRING) {
      out->flat<std::string>()[r] = missing ? def.flat<std::string>()[0] : field;
      return Status::OK();
    }
    if (missing) {
      switch (t) {
        case DT_FLOAT: out->flat<float>()[r] = def.flat<float>()[0]; break;
        case DT_DOUBLE: out->flat<double>()[r] = def.flat<double>()[0]; break;
        case DT_INT32: out->flat<int32_t>()[r] = def.flat<int32_t>()[0]; break;
        default: out->flat<int64_t>()[r] = def.flat<int64_t>()[0]; break;
      }
      return Status::OK();
    }
    errno = 0;
    char* end = nullptr;
    const char* s = field.c_str();
    auto bad = [&] {
      return errors::InvalidArgument("field ", c, " of record ", r, " is not a valid ", DataTypeName(t), ": '", field,
                                     "'");
    };
    if (t == DT_FLOAT || t == DT_DOUBLE) {
      double v = std::strtod(s, &end);
      if (end == s || *end != '\0') return bad();
      if (t == DT_FLOAT) out->flat<float>()[r] = static_cast<float>(v);
      else out->flat<double>()[r] = v;
    } else {
      long long v = std::strtoll(s, &end, 10);
      if (end == s || *end != '\0' || errno == ERANGE) return bad();
      if (t == DT_INT32) {
        if (v < INT32_MIN || v > INT32_MAX) return bad();
        out->flat<int32_t>()[r] = static_cast<int32_t>(v);
      } else {
        out->flat<int64_t>()[r] = v;
      }
    }
    return Status::OK();
  }

  DataTypeVector types_;
  char delim_ = ',';
  bool use_quote_ = true;
  std::string na_value_;
  std::vector<int64_t> select_cols_;
};

class ParseTensorOp : public OpKernel {
 public:
  explicit ParseTensorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("out_type", &out_type_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(ctx, in.dims() == 0, errors::InvalidArgument("serialized must be a scalar, got ", in.shape().DebugString()));
    TensorProto proto;
    OP_REQUIRES(ctx, proto.ParseFromString(in.scalar<std::string>()),
                errors::InvalidArgument("could not parse a TensorProto from ", in.scalar<std::string>().size(), " bytes"));
    StatusOr<Tensor> t = Tensor::FromProto(proto);
    OP_REQUIRES_OK(ctx, t.status());
    OP_REQUIRES(ctx, t->dtype() == out_type_,
                errors::InvalidArgument("the serialized tensor is ", DataTypeName(t->dtype()), ", not ",
                                        DataTypeName(out_type_), " (out_type)"));
    ctx->set_output(0, *std::move(t));
  }

 private:
  DataType out_type_ = DT_FLOAT;
};

class SerializeTensorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(ctx, DataTypeIsSerializable(in.dtype()),
                errors::InvalidArgument("a ", DataTypeName(in.dtype()), " tensor cannot be serialized"));
    TensorProto proto;
    in.AsProtoTensorContent(&proto);
    std::string out;
    OP_REQUIRES(ctx, proto.SerializeToString(&out),
                errors::InvalidArgument("the tensor is too large to serialize (", in.TotalBytes(), " bytes)"));
    ctx->set_output(0, Tensor::Scalar<std::string>(std::move(out)));
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("DecodeRaw").Device(DEVICE_CPU), DecodeRawOp);
REGISTER_KERNEL_BUILDER(Name("DecodeCSV").Device(DEVICE_CPU), DecodeCSVOp);
REGISTER_KERNEL_BUILDER(Name("ParseTensor").Device(DEVICE_CPU), ParseTensorOp);
REGISTER_KERNEL_BUILDER(Name("SerializeTensor").Device(DEVICE_CPU), SerializeTensorOp);

}  // namespace flowvm
