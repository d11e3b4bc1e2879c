// Tensor: buffer sharing and reference counts, alignment, allocation limits,
// Reshape / Slice / DeepCopy, string tensors, and the text renderings.
#include "flowvm/tensor.h"

#include <cstdint>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "flowvm/resource_handle.h"
#include "flowvm/variant.h"

namespace flowvm {
namespace {

TEST(TensorTest, DefaultIsUninitialized) {
  Tensor t;
  EXPECT_EQ(t.dtype(), DT_INVALID);
  EXPECT_FALSE(t.IsInitialized());
  EXPECT_EQ(t.raw_data(), nullptr);
  EXPECT_FALSE(t.RefCountIsOne());
  EXPECT_EQ(t.ValuesString(), "<uninitialized>");
  EXPECT_FALSE(t.DeepCopy().IsInitialized());
}

TEST(TensorTest, AllocatesAlignedBuffersOfEveryType) {
  for (DataType d : {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_STRING, DT_COMPLEX64, DT_INT64,
                     DT_BOOL, DT_QINT8, DT_QUINT8, DT_QINT32, DT_BFLOAT16, DT_QINT16, DT_QUINT16, DT_UINT16,
                     DT_COMPLEX128, DT_HALF, DT_UINT32, DT_UINT64}) {
    for (int64_t n : {0, 1, 3, 17, 1000}) {
      Tensor t(d, TensorShape({n}));
      SCOPED_TRACE(t.DebugString(0));
      EXPECT_TRUE(t.IsInitialized());
      EXPECT_TRUE(t.IsAligned());
      EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % Tensor::kAlignment, 0u);
      size_t elem = d == DT_STRING ? sizeof(std::string) : DataTypeSize(d);
      EXPECT_EQ(t.TotalBytes(), elem * n);
      EXPECT_TRUE(t.RefCountIsOne());
    }
  }
}

// Resource handles and variants are objects in the buffer: constructed,
// copied element by element by DeepCopy, shared by copies, destroyed with
// the last reference.
TEST(TensorTest, HoldsResourceHandlesAndVariants) {
  Tensor h(DT_RESOURCE, TensorShape({2}));
  h.flat<ResourceHandle>()[1].name = "q";
  h.flat<ResourceHandle>()[1].type_name = "FIFOQueue";
  Tensor copy = h.DeepCopy();
  h.flat<ResourceHandle>()[1].name = "changed";
  EXPECT_EQ(copy.flat<ResourceHandle>()[1].name, "q");
  EXPECT_EQ(copy.flat<ResourceHandle>()[0].name, "");
  EXPECT_NE(copy.flat<ResourceHandle>()[1].DebugString().find("FIFOQueue 'q'"), std::string::npos);

  auto value = std::make_shared<int>(7);
  {
    Tensor v(DT_VARIANT, TensorShape({}));
    v.scalar<Variant>() = Variant::Of(value, "int");
    Tensor shared = v;
    EXPECT_EQ(*shared.scalar<Variant>().get<int>(), 7);
    EXPECT_EQ(shared.scalar<Variant>().get<float>(), nullptr);
    EXPECT_EQ(shared.scalar<Variant>().TypeName(), "int");
    EXPECT_EQ(value.use_count(), 2);
  }
  EXPECT_EQ(value.use_count(), 1);  // the tensor's element was destroyed
  EXPECT_TRUE(DataTypeIsStorable(DT_RESOURCE));
  EXPECT_FALSE(DataTypeIsSerializable(DT_RESOURCE));
  EXPECT_FALSE(DataTypeIsSerializable(DT_VARIANT));
}

TEST(TensorTest, AllocateRejectsBadTypesAndHugeShapes) {
  for (DataType d : {DT_INVALID, static_cast<DataType>(77)}) {
    StatusOr<Tensor> t = Tensor::Allocate(d, TensorShape({2}));
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), Code::kInvalidArgument) << t.status();
  }
  // 2^62 elements of 4 or 16 bytes: the byte count does not fit in 64 bits
  // and must not wrap around to a small allocation.
  TensorShape huge = *TensorShape::FromDims({int64_t{1} << 62});
  for (DataType d : {DT_FLOAT, DT_COMPLEX128, DT_STRING}) {
    StatusOr<Tensor> t = Tensor::Allocate(d, huge);
    ASSERT_FALSE(t.ok()) << DataTypeName(d);
    EXPECT_EQ(t.status().code(), Code::kResourceExhausted) << t.status();
    EXPECT_NE(t.status().message().find("[4611686018427387904]"), std::string::npos) << t.status();
  }
  // A ref type allocates its base type.
  EXPECT_EQ(Tensor::Allocate(DT_FLOAT_REF, TensorShape({1}))->dtype(), DT_FLOAT);
}

TEST(TensorTest, CopiesShareTheBuffer) {
  Tensor a = Tensor::FromVector<int32_t>({1, 2, 3});
  EXPECT_TRUE(a.RefCountIsOne());
  {
    Tensor b = a;
    EXPECT_TRUE(a.SharesBufferWith(b));
    EXPECT_FALSE(a.RefCountIsOne());
    b.data<int32_t>()[0] = 10;
    EXPECT_EQ(a.data<int32_t>()[0], 10);
    Tensor c;
    c = b;
    EXPECT_EQ(c.raw_data(), a.raw_data());
    Tensor& same = c;
    c = same;  // self-assignment keeps the reference
    EXPECT_TRUE(c.SharesBufferWith(a));
  }
  EXPECT_TRUE(a.RefCountIsOne());

  Tensor moved = std::move(a);
  EXPECT_TRUE(moved.RefCountIsOne());
  EXPECT_FALSE(a.IsInitialized());  // NOLINT: a moved-from tensor is empty by contract
  EXPECT_EQ(a.dtype(), DT_INVALID);
  Tensor other = Tensor::FromVector<int32_t>({7});
  other = std::move(moved);
  EXPECT_EQ(other.ValuesString(), "[10 2 3]");
  EXPECT_FALSE(moved.IsInitialized());
  EXPECT_FALSE(Tensor().SharesBufferWith(Tensor()));
}

TEST(TensorTest, ReferenceCountIsThreadSafe) {
  Tensor t = Tensor::FromVector<float>({1, 2});
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&t] {
      for (int j = 0; j < 20000; ++j) {
        Tensor copy = t;
        Tensor another(copy);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_TRUE(t.RefCountIsOne());
}

TEST(TensorTest, ReshapeSharesAndChecksElementCount) {
  Tensor t = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  StatusOr<Tensor> r = t.Reshape(TensorShape({3, 2}));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->SharesBufferWith(t));
  EXPECT_EQ(r->ValuesString(), "[[1 2] [3 4] [5 6]]");
  EXPECT_EQ(t.shape(), TensorShape({2, 3}));  // the original keeps its shape
  StatusOr<Tensor> bad = t.Reshape(TensorShape({4, 2}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "cannot reshape a tensor of shape [2,3] (6 elements) to [4,2] (8 elements)");
}

TEST(TensorTest, SliceSharesRowsAndChecksRange) {
  Tensor t = Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5, 6, 7}, TensorShape({4, 2}));
  StatusOr<Tensor> s = t.Slice(1, 3);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->SharesBufferWith(t));
  EXPECT_EQ(s->shape(), TensorShape({2, 2}));
  EXPECT_EQ(s->ValuesString(), "[[2 3] [4 5]]");
  EXPECT_EQ(s->raw_data(), t.data<int64_t>() + 2);
  s->data<int64_t>()[0] = 20;
  EXPECT_EQ(t.data<int64_t>()[2], 20);
  EXPECT_EQ(t.Slice(4, 4)->NumElements(), 0);
  EXPECT_EQ(t.Slice(0, 4)->NumElements(), 8);
  for (auto [start, limit] : {std::pair<int64_t, int64_t>{-1, 2}, {0, 5}, {3, 2}}) {
    StatusOr<Tensor> bad = t.Slice(start, limit);
    ASSERT_FALSE(bad.ok()) << start << "," << limit;
    EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
    EXPECT_NE(bad.status().message().find("out of range for 4 rows"), std::string::npos) << bad.status();
  }
  EXPECT_EQ(Tensor::Scalar<float>(1).Slice(0, 1).status().code(), Code::kInvalidArgument);
  // Rows of zero elements.
  Tensor z(DT_FLOAT, TensorShape({3, 0}));
  EXPECT_EQ(z.Slice(1, 2)->shape(), TensorShape({1, 0}));
}

TEST(TensorTest, DeepCopyOwnsItsBuffer) {
  Tensor t = Tensor::FromVector<double>({1, 2, 3, 4}, TensorShape({2, 2}));
  Tensor c = t.DeepCopy();
  EXPECT_FALSE(c.SharesBufferWith(t));
  EXPECT_TRUE(c.RefCountIsOne());
  EXPECT_TRUE(c.IsAligned());
  EXPECT_EQ(c.DebugString(), t.DebugString());
  c.data<double>()[0] = 9;
  EXPECT_EQ(t.data<double>()[0], 1);
  // A copy of a slice holds just the slice.
  Tensor row = t.Slice(1, 2)->DeepCopy();
  EXPECT_EQ(row.DebugString(), "double [1,2] [[3 4]]");
  Tensor empty = Tensor(DT_INT32, TensorShape({0, 3})).DeepCopy();
  EXPECT_TRUE(empty.IsInitialized());
  EXPECT_EQ(empty.shape(), TensorShape({0, 3}));
}

TEST(TensorTest, StringTensors) {
  Tensor t(DT_STRING, TensorShape({3}));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(t.data<std::string>()[i], "");
  t.data<std::string>()[0] = std::string(100, 'x');  // heap-allocated, freed with the buffer
  t.data<std::string>()[1] = "b";
  Tensor shared = t;
  Tensor copy = t.DeepCopy();
  t.data<std::string>()[1] = "changed";
  EXPECT_EQ(shared.data<std::string>()[1], "changed");
  EXPECT_EQ(copy.data<std::string>()[1], "b");
  EXPECT_EQ(copy.data<std::string>()[0].size(), 100u);
  EXPECT_EQ(t.TotalBytes(), 3 * sizeof(std::string));
  EXPECT_EQ(t.Slice(1, 3)->ValuesString(), "[\"changed\" \"\"]");
  EXPECT_EQ(Tensor::Scalar<std::string>("hi").DebugString(), "string [] \"hi\"");
}

TEST(TensorTest, ScalarAndFromVector) {
  Tensor s = Tensor::Scalar<int32_t>(7);
  EXPECT_EQ(s.dims(), 0);
  EXPECT_EQ(s.scalar<int32_t>(), 7);
  Tensor v = Tensor::FromVector<bool>({true, false});
  EXPECT_EQ(v.shape(), TensorShape({2}));
  Span<bool> f = v.flat<bool>();
  EXPECT_EQ(f.size(), 2);
  EXPECT_TRUE(f[0]);
  EXPECT_FALSE(f[1]);
}

TEST(TensorTest, DebugStringFormatting) {
  EXPECT_EQ(Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})).DebugString(),
            "float [2,2] [[1 2] [3 4]]");
  EXPECT_EQ(Tensor::Scalar<float>(0.1f).DebugString(), "float [] 0.1");
  EXPECT_EQ(Tensor::Scalar<float>(1.0f / 3).ValuesString(), "0.3333333");
  EXPECT_EQ(Tensor::Scalar<double>(1.0 / 3).ValuesString(), "0.333333333333333");
  EXPECT_EQ(Tensor::Scalar<double>(1e300).ValuesString(), "1e+300");
  EXPECT_EQ(Tensor::FromVector<bool>({true, false}).ValuesString(), "[True False]");
  EXPECT_EQ(Tensor::FromVector<int8_t>({-5, 65}).ValuesString(), "[-5 65]");  // numbers, not chars
  EXPECT_EQ(Tensor::FromVector<uint8_t>({255}).ValuesString(), "[255]");
  EXPECT_EQ(Tensor::FromVector<uint64_t>({UINT64_MAX}).ValuesString(), "[18446744073709551615]");
  EXPECT_EQ(Tensor::FromVector<complex64>({{1, 2}, {1.5f, -0.5f}}).ValuesString(), "[(1+2j) (1.5-0.5j)]");
  EXPECT_EQ(Tensor::Scalar<complex128>({0, -1}).DebugString(), "complex128 [] (0-1j)");
  EXPECT_EQ(Tensor::FromVector<half>({half(1.5f), half(-0.25f)}).DebugString(), "half [2] [1.5 -0.25]");
  EXPECT_EQ(Tensor::Scalar<bfloat16>(bfloat16(3.0f)).DebugString(), "bfloat16 [] 3");
  EXPECT_EQ(Tensor::FromVector<qint8>({qint8(-3), qint8(4)}).DebugString(), "qint8 [2] [-3 4]");
  EXPECT_EQ(Tensor::FromVector<std::string>({"a\"b", std::string("\x01\\", 2)}).ValuesString(),
            "[\"a\\\"b\" \"\\x01\\\\\"]");
  EXPECT_EQ(Tensor(DT_FLOAT, TensorShape({0})).DebugString(), "float [0] []");
  EXPECT_EQ(Tensor(DT_INT32, TensorShape({2, 0})).ValuesString(), "[[] []]");
}

TEST(TensorTest, ValuesStringStopsAtMaxValues) {
  Tensor v = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5});
  EXPECT_EQ(v.ValuesString(3), "[1 2 3...]");
  EXPECT_EQ(v.ValuesString(5), "[1 2 3 4 5]");
  EXPECT_EQ(v.ValuesString(0), "[...]");
  Tensor m = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  EXPECT_EQ(m.ValuesString(3), "[[1 2] [3...]...]");
  EXPECT_EQ(m.ValuesString(2), "[[1 2]...]");
  EXPECT_EQ(m.DebugString(4), "int32 [3,2] [[1 2] [3 4]...]");
  EXPECT_EQ(Tensor::FromVector<int32_t>(std::vector<int32_t>(20, 0)).ValuesString(),
            "[0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0...]");  // 16 by default
}

}  // namespace
}  // namespace flowvm
