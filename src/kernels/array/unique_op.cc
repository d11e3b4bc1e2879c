// Unique and UniqueWithCounts: y holds the distinct elements of the vector x
// in order of first occurrence, idx[i] the position of x[i] in y, count[k]
// how often y[k] occurs in x.
//
// Equality is the element type's ==, as in TensorFlow: for floating types
// -0.0 equals 0.0 (y keeps whichever comes first) and NaN equals nothing,
// so every NaN is its own entry of y.
//
// One pass over x with a hash table from value to id; a slot holds a 64-bit
// tag and the id. For numbers the tag is the value's canonical bits, so
// equal tags mean equal values. For strings it is a hash of the bytes, and
// equal tags are confirmed by comparing with the distinct strings, whose
// bytes are kept packed in one buffer: they stay in cache, where x's
// strings, scattered over memory, would not (about 2.8x faster on 4M words,
// bench/word_count_bench.cc). Only the distinct strings are copied, into
// that buffer and then into y.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

// splitmix64's finalizer: every bit of the tag reaches the low bits the
// table indexes by (integer keys are often small or strided).
inline uint64_t Mix(uint64_t h) {
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

// Dense ids 0, 1, 2, ... for tags in order of first insertion. Open
// addressing with linear probing over a power-of-two array kept at most half
// full. It starts at no more than 2^17 slots, x may hold few distinct
// values, and doubles as needed.
class IdTable {
 public:
  explicit IdTable(int64_t n) {
    size_t cap = 16;
    while (cap < 2 * static_cast<size_t>(std::min<int64_t>(n, int64_t{1} << 16))) cap *= 2;
    slots_.assign(cap, Slot{0, kEmpty});
  }

  // The id of the entry with `tag` for which same(id) holds, or else a new
  // entry with `new_id`, which is returned.
  template <typename Same>
  int64_t FindOrAdd(uint64_t tag, int64_t new_id, Same&& same) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = Mix(tag) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.id == kEmpty) {
        s = Slot{tag, new_id};
        if (2 * ++size_ > slots_.size()) Grow();
        return new_id;
      }
      if (s.tag == tag && same(s.id)) return s.id;
    }
  }

 private:
  static constexpr int64_t kEmpty = -1;
  struct Slot {
    uint64_t tag;
    int64_t id;
  };

  void Grow() {
    std::vector<Slot> old(slots_.size() * 2, Slot{0, kEmpty});
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.id == kEmpty) continue;
      size_t i = Mix(s.tag) & mask;
      while (slots_[i].id != kEmpty) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

// How a value of T becomes a tag. Integers and bool are handled by their
// unsigned word of the same width (equal values, equal bits).
template <typename T>
struct Key {
  static constexpr bool kTagIsValue = true;
  static bool NeverEqual(T) { return false; }
  static uint64_t Tag(T v) { return static_cast<uint64_t>(v); }
};

template <typename T>
double ToDouble(T v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) return static_cast<float>(v);
  else return static_cast<double>(v);
}

// Floating types: by value as a double (exact for all four), with -0.0 made
// 0.0; NaN never reaches the table.
template <typename T>
struct FloatKey {
  static constexpr bool kTagIsValue = true;
  static bool NeverEqual(T v) { return std::isnan(ToDouble(v)); }
  static uint64_t Tag(T v) {
    double d = ToDouble(v);
    if (d == 0) d = 0;
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof(bits));
    return bits;
  }
};
template <> struct Key<float> : FloatKey<float> {};
template <> struct Key<double> : FloatKey<double> {};
template <> struct Key<half> : FloatKey<half> {};
template <> struct Key<bfloat16> : FloatKey<bfloat16> {};

template <>
struct Key<std::string> {
  static constexpr bool kTagIsValue = false;
  static bool NeverEqual(const std::string&) { return false; }
  static uint64_t Tag(const std::string& v) { return std::hash<std::string_view>{}(v); }
};

// The distinct values, by id. Numbers: the values (Same is never asked, the
// tag being the value).
template <typename T>
class Distinct {
 public:
  int64_t size() const { return static_cast<int64_t>(values_.size()); }
  void Add(const T& v) { values_.push_back(v); }
  bool Same(int64_t, const T&) const { return true; }
  void CopyTo(T* y) const { std::copy(values_.begin(), values_.end(), y); }

 private:
  std::vector<T> values_;
};

// Strings: their bytes end to end; string k is bytes_[ends_[k-1], ends_[k]).
template <>
class Distinct<std::string> {
 public:
  int64_t size() const { return static_cast<int64_t>(ends_.size()); }
  void Add(const std::string& v) {
    bytes_.insert(bytes_.end(), v.begin(), v.end());
    ends_.push_back(bytes_.size());
  }
  bool Same(int64_t id, const std::string& v) const { return Get(id) == std::string_view(v); }
  void CopyTo(std::string* y) const {
    for (int64_t k = 0; k < size(); ++k) y[k].assign(Get(k));
  }

 private:
  std::string_view Get(int64_t id) const {
    const size_t begin = id == 0 ? 0 : ends_[id - 1];
    return std::string_view(bytes_.data() + begin, ends_[id] - begin);
  }
  std::vector<char> bytes_;
  std::vector<size_t> ends_;
};

// T is the element type, or for integers and bool the unsigned word of the
// same width; TIndex is out_idx's type.
template <typename T, typename TIndex>
class UniqueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.dims() == 1,
                errors::InvalidArgument("x must be a vector (unique expects a 1-D tensor), but has shape ",
                                        x.shape().DebugString()));
    const int64_t n = x.NumElements();
    OP_REQUIRES(ctx, n <= std::numeric_limits<TIndex>::max(),
                errors::InvalidArgument("x has ", n, " elements, more than out_idx ",
                                        DataTypeName(DataTypeToEnum<TIndex>::value), " can index; use int64"));
    Tensor* idx_t = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &idx_t));
    TIndex* idx = idx_t->data<TIndex>();
    const T* xs = x.data<T>();

    Distinct<T> distinct;
    IdTable table(n);
    for (int64_t i = 0; i < n; ++i) {
      const T& v = xs[i];
      const int64_t next = distinct.size();
      int64_t id = next;
      if (!Key<T>::NeverEqual(v)) {
        id = table.FindOrAdd(Key<T>::Tag(v), next, [&](int64_t j) {
          if constexpr (Key<T>::kTagIsValue) return true;
          else return distinct.Same(j, v);
        });
      }
      if (id == next) distinct.Add(v);
      idx[i] = static_cast<TIndex>(id);
    }

    const int64_t u = distinct.size();
    Tensor* y_t = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({u}), &y_t));
    distinct.CopyTo(y_t->data<T>());

    if (ctx->num_outputs() > 2) {
      Tensor* count_t = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({u}), &count_t));
      TIndex* count = count_t->data<TIndex>();
      std::fill(count, count + u, TIndex{0});
      for (int64_t i = 0; i < n; ++i) ++count[idx[i]];
    }
  }
};

// Element types of one unsigned word width.
std::vector<DataType> IntegerTypesOfWidth(size_t width) {
  std::vector<DataType> out;
  for (DataType t : {DT_BOOL, DT_INT8, DT_UINT8, DT_INT16, DT_UINT16, DT_INT32, DT_UINT32, DT_INT64, DT_UINT64})
    if (DataTypeSize(t) == width) out.push_back(t);
  return out;
}

}  // namespace

#define FLOWVM_REGISTER_UNIQUE_TYPES(TYPES, WORD)                                                           \
  REGISTER_KERNEL_BUILDER(Name("Unique").Device(DEVICE_CPU).TypeConstraint("T", TYPES)                   \
                              .TypeConstraint<int32_t>("out_idx"), UniqueOp<WORD, int32_t>);               \
  REGISTER_KERNEL_BUILDER(Name("Unique").Device(DEVICE_CPU).TypeConstraint("T", TYPES)                   \
                              .TypeConstraint<int64_t>("out_idx"), UniqueOp<WORD, int64_t>);               \
  REGISTER_KERNEL_BUILDER(Name("UniqueWithCounts").Device(DEVICE_CPU).TypeConstraint("T", TYPES)         \
                              .TypeConstraint<int32_t>("out_idx"), UniqueOp<WORD, int32_t>);               \
  REGISTER_KERNEL_BUILDER(Name("UniqueWithCounts").Device(DEVICE_CPU).TypeConstraint("T", TYPES)         \
                              .TypeConstraint<int64_t>("out_idx"), UniqueOp<WORD, int64_t>)
#define FLOWVM_REGISTER_UNIQUE(T) FLOWVM_REGISTER_UNIQUE_TYPES({DataTypeToEnum<T>::value}, T)

// The types TensorFlow registers: the real number types, bool and string.
FLOWVM_REGISTER_UNIQUE_TYPES(IntegerTypesOfWidth(1), uint8_t);
FLOWVM_REGISTER_UNIQUE_TYPES(IntegerTypesOfWidth(2), uint16_t);
FLOWVM_REGISTER_UNIQUE_TYPES(IntegerTypesOfWidth(4), uint32_t);
FLOWVM_REGISTER_UNIQUE_TYPES(IntegerTypesOfWidth(8), uint64_t);
FLOWVM_REGISTER_UNIQUE(float);
FLOWVM_REGISTER_UNIQUE(double);
FLOWVM_REGISTER_UNIQUE(half);
FLOWVM_REGISTER_UNIQUE(bfloat16);
FLOWVM_REGISTER_UNIQUE(std::string);
#undef FLOWVM_REGISTER_UNIQUE
#undef FLOWVM_REGISTER_UNIQUE_TYPES

}  // namespace flowvm
