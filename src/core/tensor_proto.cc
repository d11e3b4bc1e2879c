// Tensor <-> TensorProto, following TensorFlow's rules for which field holds
// the values of each dtype.
#include <cstring>

#include "flowvm/tensor.h"

namespace flowvm {

namespace {

// Copies `count` values from a typed repeated field into `out` (n elements),
// converting each with `conv`; a short field repeats its last value, an empty
// one leaves zeros.
template <typename T, typename Field, typename Conv>
Status FillFromField(const Field& field, int64_t per_elem, int64_t n, T* out, const char* field_name, Conv conv) {
  int64_t count = field.size() / per_elem;
  if (field.size() % per_elem != 0)
    return errors::InvalidArgument("TensorProto ", field_name, " has ", field.size(),
                                   " entries, not a multiple of ", per_elem);
  if (count > n)
    return errors::InvalidArgument("TensorProto has ", count, " values in ", field_name, " but its shape holds only ",
                                   n);
  for (int64_t i = 0; i < n; ++i) {
    if (count == 0) {
      out[i] = T{};
    } else {
      int64_t src = i < count ? i : count - 1;
      out[i] = conv(field, src);
    }
  }
  return Status::OK();
}

template <typename T, typename Field>
Status FillSimple(const Field& field, int64_t n, T* out, const char* name) {
  return FillFromField<T>(field, 1, n, out, name, [](const Field& f, int64_t i) { return static_cast<T>(f.Get(i)); });
}

template <typename Q, typename Field>
Status FillQuantized(const Field& field, int64_t n, Q* out, const char* name) {
  return FillFromField<Q>(field, 1, n, out, name, [](const Field& f, int64_t i) {
    return Q(static_cast<decltype(Q{}.value)>(f.Get(i)));
  });
}

template <typename H, typename Field>
Status FillHalf(const Field& field, int64_t n, H* out, const char* name) {
  return FillFromField<H>(field, 1, n, out, name, [](const Field& f, int64_t i) {
    H h;
    h.bits = static_cast<uint16_t>(f.Get(i));
    return h;
  });
}

template <typename C, typename Field>
Status FillComplex(const Field& field, int64_t n, C* out, const char* name) {
  return FillFromField<C>(field, 2, n, out, name,
                          [](const Field& f, int64_t i) { return C(f.Get(2 * i), f.Get(2 * i + 1)); });
}

}  // namespace

StatusOr<Tensor> Tensor::FromProto(const TensorProto& proto) {
  DataType dtype = proto.dtype();
  if (IsRefType(dtype) || !DataTypeIsSerializable(dtype))
    return errors::InvalidArgument("TensorProto has dtype ", DataTypeName(dtype), ", which a tensor cannot hold");
  FLOWVM_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromProto(proto.tensor_shape()));
  int64_t n = shape.num_elements();
  if (dtype != DT_STRING && !proto.tensor_content().empty()) {
    size_t want = static_cast<size_t>(n) * DataTypeSize(dtype);
    if (proto.tensor_content().size() != want)
      return errors::InvalidArgument("TensorProto tensor_content has ", proto.tensor_content().size(),
                                     " bytes, but a ", DataTypeName(dtype), " tensor of shape ", shape.DebugString(),
                                     " needs ", want);
  }
  // Refuse absurd sizes before allocating: a proto that describes a huge
  // tensor without carrying its bytes would otherwise exhaust memory.
  if (n > (int64_t{1} << 34)) return errors::InvalidArgument("TensorProto shape ", shape.DebugString(), " is too large");
  FLOWVM_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, shape));
  if (dtype != DT_STRING && !proto.tensor_content().empty()) {
    if (dtype == DT_BOOL) {
      // Any byte but 0 or 1 would be an invalid bool: nonzero means true.
      const std::string& bytes = proto.tensor_content();
      bool* out = t.data<bool>();
      for (size_t i = 0; i < bytes.size(); ++i) out[i] = bytes[i] != 0;
      return t;
    }
    std::memcpy(t.raw_data(), proto.tensor_content().data(), proto.tensor_content().size());
    return t;
  }
  Status s;
  switch (dtype) {
    case DT_FLOAT: s = FillSimple(proto.float_val(), n, t.data<float>(), "float_val"); break;
    case DT_DOUBLE: s = FillSimple(proto.double_val(), n, t.data<double>(), "double_val"); break;
    case DT_INT32: s = FillSimple(proto.int_val(), n, t.data<int32_t>(), "int_val"); break;
    case DT_INT16: s = FillSimple(proto.int_val(), n, t.data<int16_t>(), "int_val"); break;
    case DT_INT8: s = FillSimple(proto.int_val(), n, t.data<int8_t>(), "int_val"); break;
    case DT_UINT8: s = FillSimple(proto.int_val(), n, t.data<uint8_t>(), "int_val"); break;
    case DT_UINT16: s = FillSimple(proto.int_val(), n, t.data<uint16_t>(), "int_val"); break;
    case DT_INT64: s = FillSimple(proto.int64_val(), n, t.data<int64_t>(), "int64_val"); break;
    case DT_UINT32: s = FillSimple(proto.uint32_val(), n, t.data<uint32_t>(), "uint32_val"); break;
    case DT_UINT64: s = FillSimple(proto.uint64_val(), n, t.data<uint64_t>(), "uint64_val"); break;
    case DT_BOOL: s = FillSimple(proto.bool_val(), n, t.data<bool>(), "bool_val"); break;
    case DT_QINT8: s = FillQuantized(proto.int_val(), n, t.data<qint8>(), "int_val"); break;
    case DT_QUINT8: s = FillQuantized(proto.int_val(), n, t.data<quint8>(), "int_val"); break;
    case DT_QINT16: s = FillQuantized(proto.int_val(), n, t.data<qint16>(), "int_val"); break;
    case DT_QUINT16: s = FillQuantized(proto.int_val(), n, t.data<quint16>(), "int_val"); break;
    case DT_QINT32: s = FillQuantized(proto.int_val(), n, t.data<qint32>(), "int_val"); break;
    case DT_HALF: s = FillHalf(proto.half_val(), n, t.data<half>(), "half_val"); break;
    case DT_BFLOAT16: s = FillHalf(proto.half_val(), n, t.data<bfloat16>(), "half_val"); break;
    case DT_COMPLEX64: s = FillComplex(proto.scomplex_val(), n, t.data<complex64>(), "scomplex_val"); break;
    case DT_COMPLEX128: s = FillComplex(proto.dcomplex_val(), n, t.data<complex128>(), "dcomplex_val"); break;
    case DT_STRING: {
      const auto& f = proto.string_val();
      if (f.size() > n)
        return errors::InvalidArgument("TensorProto has ", f.size(), " values in string_val but its shape holds only ", n);
      std::string* out = t.data<std::string>();
      for (int64_t i = 0; i < n && f.size() > 0; ++i) out[i] = f.Get(i < f.size() ? i : f.size() - 1);
      break;
    }
    default:
      return errors::InvalidArgument("TensorProto has unsupported dtype ", DataTypeName(dtype));
  }
  FLOWVM_RETURN_IF_ERROR(s);
  return t;
}

void Tensor::AsProtoTensorContent(TensorProto* proto) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.AsProto(proto->mutable_tensor_shape());
  if (dtype_ == DT_STRING) {
    for (int64_t i = 0; i < NumElements(); ++i) proto->add_string_val(data<std::string>()[i]);
  } else if (TotalBytes() > 0) {
    proto->set_tensor_content(std::string(data_, TotalBytes()));
  }
}

}  // namespace flowvm
