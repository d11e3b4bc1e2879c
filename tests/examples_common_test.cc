// The training examples' support library (examples/common/): the real
// datasets as Debian installs them (scripts/setup.sh; a missing file fails
// with the setup hint rather than skipping), loader errors on malformed
// files, the deterministic split and batches, and the progress output.
//
// Facts about the real data were checked with NumPy:
//   d = np.loadtxt(gzip.open(digits.csv.gz), delimiter=',')
//   np.frombuffer(gzip.open(train-labels-idx1-ubyte.gz).read(), np.uint8, offset=8)
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/batches.h"
#include "common/datasets.h"
#include "common/progress.h"
#include "util/cli_runner.h"

namespace flowvm::examples {
namespace {

using ::testing::HasSubstr;

// ---- real data ----------------------------------------------------------------

std::vector<int64_t> LabelCounts(const Dataset& ds) {
  std::vector<int64_t> counts(ds.num_classes, 0);
  for (int32_t l : ds.labels.flat<int32_t>()) {
    EXPECT_GE(l, 0);
    EXPECT_LT(l, ds.num_classes);
    if (l >= 0 && l < ds.num_classes) ++counts[l];
  }
  return counts;
}

void ExpectPixelsInUnitRange(const Dataset& ds) {
  auto [lo, hi] = std::minmax_element(ds.images.flat<float>().begin(), ds.images.flat<float>().end());
  EXPECT_EQ(*lo, 0.0f);
  EXPECT_EQ(*hi, 1.0f);
}

double ImageSum(const Dataset& ds, int64_t i) {
  const int64_t row = ds.height * ds.width;
  const float* p = ds.images.data<float>() + i * row;
  return std::accumulate(p, p + row, 0.0);
}

TEST(DigitsTest, LoadsDebianFile) {
  auto ds = LoadDigits();
  ASSERT_TRUE(ds.ok()) << ds.status();
  EXPECT_EQ(ds->size(), 1797);
  EXPECT_EQ(ds->images.dtype(), DT_FLOAT);
  EXPECT_EQ(ds->images.shape(), TensorShape({1797, 64}));
  EXPECT_EQ(ds->labels.dtype(), DT_INT32);
  EXPECT_EQ(ds->labels.shape(), TensorShape({1797}));
  EXPECT_EQ(ds->height, 8);
  EXPECT_EQ(ds->width, 8);
  EXPECT_EQ(ds->num_classes, 10);
  ExpectPixelsInUnitRange(*ds);
  EXPECT_THAT(LabelCounts(*ds), ::testing::ElementsAre(178, 182, 177, 183, 181, 182, 181, 179, 174, 180));
  // Row 0 is a zero: 0,0,5,13,9,1,0,0,... label 0; row 1 a one; labels cycle 0..9 at first.
  const int32_t* labels = ds->labels.data<int32_t>();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(labels[i], i);
  const float* px = ds->images.data<float>();
  EXPECT_EQ(px[0], 0.0f);
  EXPECT_EQ(px[2], 5.0f / 16);
  EXPECT_EQ(px[3], 13.0f / 16);
  EXPECT_EQ(px[4], 9.0f / 16);
  EXPECT_DOUBLE_EQ(ImageSum(*ds, 0), 294.0 / 16);
}

TEST(DigitsTest, NHWCLayout) {
  auto ds = LoadDigits(kDigitsPath, ImageLayout::kNHWC);
  ASSERT_TRUE(ds.ok()) << ds.status();
  EXPECT_EQ(ds->images.shape(), TensorShape({1797, 8, 8, 1}));
  auto flat = ds->FlatImages();
  ASSERT_TRUE(flat.ok()) << flat.status();
  EXPECT_EQ(flat->shape(), TensorShape({1797, 64}));
  EXPECT_TRUE(flat->SharesBufferWith(ds->images));
}

TEST(FashionMnistTest, LoadsTrainingSet) {
  auto ds = LoadFashionMnist(Split::kTrain);
  ASSERT_TRUE(ds.ok()) << ds.status();
  EXPECT_EQ(ds->size(), 60000);
  EXPECT_EQ(ds->images.shape(), TensorShape({60000, 784}));
  EXPECT_EQ(ds->height, 28);
  EXPECT_EQ(ds->width, 28);
  EXPECT_EQ(ds->num_classes, 10);
  ExpectPixelsInUnitRange(*ds);
  EXPECT_EQ(LabelCounts(*ds), std::vector<int64_t>(10, 6000));
  // Label 9 is "Ankle boot".
  const std::vector<int32_t> first(ds->labels.data<int32_t>(), ds->labels.data<int32_t>() + 10);
  EXPECT_THAT(first, ::testing::ElementsAre(9, 0, 0, 3, 0, 2, 7, 2, 5, 5));
  EXPECT_NEAR(ImageSum(*ds, 0), 76247.0 / 255, 1e-3);
  EXPECT_EQ(ds->images.data<float>()[417], 1.0f);  // image 0's first 255 pixel
  EXPECT_EQ(ds->images.data<float>()[0], 0.0f);
}

TEST(FashionMnistTest, LoadsTestSetAsNHWC) {
  auto ds = LoadFashionMnist(Split::kTest, ImageLayout::kNHWC);
  ASSERT_TRUE(ds.ok()) << ds.status();
  EXPECT_EQ(ds->size(), 10000);
  EXPECT_EQ(ds->images.shape(), TensorShape({10000, 28, 28, 1}));
  ExpectPixelsInUnitRange(*ds);
  EXPECT_EQ(LabelCounts(*ds), std::vector<int64_t>(10, 1000));
  const std::vector<int32_t> first(ds->labels.data<int32_t>(), ds->labels.data<int32_t>() + 10);
  EXPECT_THAT(first, ::testing::ElementsAre(9, 2, 1, 1, 6, 1, 4, 6, 5, 7));
  EXPECT_NEAR(ImageSum(*ds, 0), 33456.0 / 255, 1e-3);
}

// ---- malformed files ------------------------------------------------------------

class DatasetErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/examples_common_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::string WriteGz(const std::string& name, const std::string& bytes) {
    const std::string path = Path(name);
    gzFile f = gzopen(path.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    EXPECT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
    EXPECT_EQ(gzclose(f), Z_OK);
    return path;
  }

  std::string WriteRaw(const std::string& name, const std::string& bytes) {
    const std::string path = Path(name);
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  static std::string BigEndian(uint32_t v) {
    return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  }
  // n images of rows x cols: pixel p of image i is (i * 7 + p) % 256.
  static std::string IdxImages(uint32_t n, uint32_t rows, uint32_t cols, uint32_t magic = 0x803) {
    std::string s = BigEndian(magic) + BigEndian(n) + BigEndian(rows) + BigEndian(cols);
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t p = 0; p < rows * cols; ++p) s += char((i * 7 + p) % 256);
    return s;
  }
  static std::string IdxLabels(const std::string& labels, uint32_t magic = 0x801) {
    return BigEndian(magic) + BigEndian(static_cast<uint32_t>(labels.size())) + labels;
  }
  static std::string DigitsRow(int label, int pixel = 3) {
    std::string s;
    for (int i = 0; i < 64; ++i) s += std::to_string(i == 0 ? pixel : i % 17) + ",";
    return s + std::to_string(label);
  }

  std::string dir_;
};

void ExpectError(const Status& s, Code code, const std::vector<std::string>& parts) {
  EXPECT_EQ(s.code(), code) << s;
  for (const auto& part : parts) EXPECT_THAT(s.message(), HasSubstr(part));
}

TEST_F(DatasetErrorsTest, SmallIdxLoads) {
  auto ds = LoadIdx(WriteGz("img.gz", IdxImages(3, 2, 5)), WriteGz("lab.gz", IdxLabels({4, 0, 2})),
                    ImageLayout::kNHWC);
  ASSERT_TRUE(ds.ok()) << ds.status();
  EXPECT_EQ(ds->images.shape(), TensorShape({3, 2, 5, 1}));
  EXPECT_EQ(ds->height, 2);
  EXPECT_EQ(ds->width, 5);
  EXPECT_EQ(ds->num_classes, 5);
  EXPECT_EQ(ds->labels.data<int32_t>()[0], 4);
  EXPECT_EQ(ds->images.data<float>()[10 + 3], 10.0f / 255);  // image 1, pixel 3: 7 + 3
}

TEST_F(DatasetErrorsTest, MissingFileSaysRunSetup) {
  const std::string missing = Path("nope/train-images-idx3-ubyte.gz");
  ExpectError(LoadIdx(missing, WriteGz("lab.gz", IdxLabels({1}))).status(), Code::kNotFound,
              {missing, "scripts/setup.sh", "dataset-fashion-mnist", "python3-sklearn"});
  ExpectError(LoadDigits(Path("digits.csv.gz")).status(), Code::kNotFound, {Path("digits.csv.gz"), "setup.sh"});
  ExpectError(LoadFashionMnist(Split::kTest, ImageLayout::kFlat, dir_).status(), Code::kNotFound,
              {Path("t10k-images-idx3-ubyte.gz"), "setup.sh"});
  ExpectError(CheckDataFile(dir_), Code::kInvalidArgument, {dir_, "not a regular file"});
}

TEST_F(DatasetErrorsTest, TruncatedGzip) {
  const std::string images = WriteGz("img.gz", IdxImages(50, 28, 28));
  std::filesystem::resize_file(images, std::filesystem::file_size(images) / 2);
  ExpectError(LoadIdx(images, WriteGz("lab.gz", IdxLabels(std::string(50, 1)))).status(), Code::kDataLoss,
              {images, "gzip"});

  const std::string digits = WriteGz("digits.csv.gz", DigitsRow(1) + "\n" + DigitsRow(2) + "\n");
  std::filesystem::resize_file(digits, std::filesystem::file_size(digits) - 4);  // cut the trailer
  ExpectError(LoadDigits(digits).status(), Code::kDataLoss, {digits});
}

TEST_F(DatasetErrorsTest, CorruptGzip) {
  std::string bytes = flowvm::testing::ReadFileBytes(WriteGz("img.gz", IdxImages(4, 3, 3)));
  for (size_t i = 10; i < bytes.size() - 8; ++i) bytes[i] = char(0xff);
  const std::string images = WriteRaw("corrupt.gz", bytes);
  ExpectError(LoadIdx(images, WriteGz("lab.gz", IdxLabels({1, 2, 3, 4}))).status(), Code::kDataLoss, {images});
}

TEST_F(DatasetErrorsTest, TruncatedIdxData) {
  std::string bytes = IdxImages(5, 4, 4);
  bytes.resize(bytes.size() - 3);
  const std::string images = WriteGz("img.gz", bytes);
  ExpectError(LoadIdx(images, WriteGz("lab.gz", IdxLabels({1, 2, 3, 4, 5}))).status(), Code::kDataLoss,
              {images, "truncated", "80 bytes of pixels, found 77"});
  const std::string labels = WriteGz("lab2.gz", IdxLabels({1, 2, 3, 4, 5}).substr(0, 11));
  ExpectError(LoadIdx(WriteGz("img2.gz", IdxImages(5, 4, 4)), labels).status(), Code::kDataLoss,
              {labels, "truncated"});
  const std::string header = WriteGz("img3.gz", IdxImages(5, 4, 4).substr(0, 10));
  ExpectError(LoadIdx(header, WriteGz("lab3.gz", IdxLabels({1}))).status(), Code::kDataLoss,
              {header, "12 bytes of IDX dimensions, found 6"});
}

TEST_F(DatasetErrorsTest, WrongMagic) {
  const std::string labels = WriteGz("lab.gz", IdxLabels({1, 2}));
  const std::string swapped = WriteGz("img.gz", IdxLabels({1, 2}));  // a labels file given as images
  ExpectError(LoadIdx(swapped, labels).status(), Code::kInvalidArgument,
              {swapped, "magic number 0x00000801, expected 0x00000803"});
  const std::string bad_labels = WriteGz("lab2.gz", IdxLabels({1, 2}, 0x0d01));
  ExpectError(LoadIdx(WriteGz("img2.gz", IdxImages(2, 2, 2)), bad_labels).status(), Code::kInvalidArgument,
              {bad_labels, "magic number 0x00000d01, expected 0x00000801"});
}

TEST_F(DatasetErrorsTest, CountMismatch) {
  const std::string images = WriteGz("img.gz", IdxImages(5, 2, 2));
  const std::string labels = WriteGz("lab.gz", IdxLabels({1, 2, 3, 4}));
  ExpectError(LoadIdx(images, labels).status(), Code::kInvalidArgument,
              {images, labels, "holds 5 images", "holds 4 labels"});
}

TEST_F(DatasetErrorsTest, BadIdxDimensionsAndTrailingData) {
  const std::string zero = WriteGz("img.gz", IdxImages(0, 2, 2));
  ExpectError(LoadIdx(zero, WriteGz("lab.gz", IdxLabels(""))).status(), Code::kInvalidArgument, {zero, "is 0"});
  // A header claiming 2^32-1 images of 65535x65535 must fail without
  // allocating what it claims.
  const std::string huge = WriteGz("huge.gz", BigEndian(0x803) + BigEndian(0xffffffff) + BigEndian(0xffff) +
                                                  BigEndian(0xffff));
  ExpectError(LoadIdx(huge, WriteGz("lab2.gz", BigEndian(0x801) + BigEndian(0xffffffff))).status(),
              Code::kInvalidArgument, {huge, "too large"});
  const std::string many = WriteGz("many.gz", BigEndian(0x803) + BigEndian(1 << 30) + BigEndian(16) + BigEndian(16));
  const std::string many_labels = WriteGz("lab3.gz", BigEndian(0x801) + BigEndian(1 << 30) + std::string(100, 1));
  ExpectError(LoadIdx(many, many_labels).status(), Code::kDataLoss, {many_labels, "truncated"});
  const std::string trailing = WriteGz("img4.gz", IdxImages(2, 2, 2) + "x");
  ExpectError(LoadIdx(trailing, WriteGz("lab4.gz", IdxLabels({1, 2}))).status(), Code::kInvalidArgument,
              {trailing, "data after the end"});
}

TEST_F(DatasetErrorsTest, SmallDigitsCsvLoads) {
  // CRLF line ends, no final newline, a blank line.
  auto ds = LoadDigits(WriteGz("d.csv.gz", DigitsRow(7, 16) + "\r\n\r\n" + DigitsRow(3, 0)));
  ASSERT_TRUE(ds.ok()) << ds.status();
  EXPECT_EQ(ds->size(), 2);
  EXPECT_EQ(ds->labels.data<int32_t>()[0], 7);
  EXPECT_EQ(ds->labels.data<int32_t>()[1], 3);
  EXPECT_EQ(ds->images.data<float>()[0], 1.0f);
  EXPECT_EQ(ds->images.data<float>()[1], 1.0f / 16);
  EXPECT_EQ(ds->images.data<float>()[64], 0.0f);
}

TEST_F(DatasetErrorsTest, BadCsvFields) {
  struct Case {
    std::string row2, expect;
  };
  const std::vector<Case> cases = {
      {DigitsRow(1, 17), "line 2 field 1: '17' is not an integer in [0, 16] (a pixel)"},
      {DigitsRow(10), "line 2 field 65: '10' is not an integer in [0, 9] (the label)"},
      {DigitsRow(1, -1), "line 2 field 1: '-1'"},
      {std::string("x").append(DigitsRow(1)), "line 2 field 1: 'x3'"},
      {DigitsRow(1) + " ", "line 2 field 65: '1 '"},
      {DigitsRow(1).substr(2), "line 2: expected 65 comma-separated fields (64 pixels and a label), found 64"},
      {DigitsRow(1) + ",", "found 66"},
      {"3,,4", "found 3"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string path = WriteGz("bad" + std::to_string(i) + ".csv.gz", DigitsRow(0) + "\n" + cases[i].row2 + "\n");
    ExpectError(LoadDigits(path).status(), Code::kInvalidArgument, {path, cases[i].expect});
  }
  const std::string empty = WriteGz("empty.csv.gz", "\n");
  ExpectError(LoadDigits(empty).status(), Code::kInvalidArgument, {empty, "no rows"});
}

// ---- split, permutation, batches ---------------------------------------------------

// n examples whose image i is [i, i + 0.5] and label i % 10.
Dataset Numbered(int64_t n) {
  Dataset ds;
  ds.images = Tensor(DT_FLOAT, TensorShape({n, 2}));
  ds.labels = Tensor(DT_INT32, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) {
    ds.images.data<float>()[2 * i] = float(i);
    ds.images.data<float>()[2 * i + 1] = float(i) + 0.5f;
    ds.labels.data<int32_t>()[i] = int32_t(i % 10);
  }
  ds.height = 1;
  ds.width = 2;
  ds.num_classes = 10;
  return ds;
}

std::vector<int64_t> Ids(const Dataset& ds) {
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < ds.size(); ++i) {
    const float* row = ds.images.data<float>() + 2 * i;
    EXPECT_EQ(row[1], row[0] + 0.5f);
    EXPECT_EQ(ds.labels.data<int32_t>()[i], int64_t(row[0]) % 10);
    ids.push_back(int64_t(row[0]));
  }
  return ids;
}

TEST(PermutationTest, IsAFixedPermutation) {
  std::vector<int64_t> p = Permutation(1000, 7, 3);
  std::vector<int64_t> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> iota(1000);
  std::iota(iota.begin(), iota.end(), 0);
  EXPECT_EQ(sorted, iota);
  EXPECT_NE(p, iota);
  EXPECT_EQ(p, Permutation(1000, 7, 3));
  EXPECT_NE(p, Permutation(1000, 8, 3));
  EXPECT_NE(p, Permutation(1000, 7, 4));
  // Pinned (and computed independently in Python from the same splitmix64
  // recipe): a change here changes every example's split and batches.
  EXPECT_THAT(Permutation(8, 42, 0), ::testing::ElementsAre(3, 6, 0, 7, 1, 2, 5, 4));
  EXPECT_TRUE(Permutation(0, 1).empty());
  EXPECT_THAT(Permutation(1, 1), ::testing::ElementsAre(0));
}

TEST(SplitTest, DigitsEightyTwenty) {
  auto ds = LoadDigits();
  ASSERT_TRUE(ds.ok()) << ds.status();
  auto a = SplitTrainTest(*ds, 0.2, 1);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->test.size(), 359);  // round(1797 * 0.2)
  EXPECT_EQ(a->train.size(), 1438);
  EXPECT_EQ(a->train.images.shape(), TensorShape({1438, 64}));
  EXPECT_EQ(a->test.num_classes, 10);
  EXPECT_EQ(a->test.height, 8);
  auto b = SplitTrainTest(*ds, 0.2, 1);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->test.labels.ValuesString(2000), b->test.labels.ValuesString(2000));
  EXPECT_EQ(a->train.images.ValuesString(1 << 20), b->train.images.ValuesString(1 << 20));
  auto c = SplitTrainTest(*ds, 0.2, 2);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_NE(a->test.images.ValuesString(1 << 20), c->test.images.ValuesString(1 << 20));
}

TEST(SplitTest, PartitionsTheExamples) {
  const Dataset ds = Numbered(100);
  auto split = SplitTrainTest(ds, 0.25, 9);
  ASSERT_TRUE(split.ok()) << split.status();
  std::vector<int64_t> train = Ids(split->train), test = Ids(split->test);
  EXPECT_EQ(test.size(), 25u);
  EXPECT_TRUE(std::is_sorted(train.begin(), train.end()));
  EXPECT_TRUE(std::is_sorted(test.begin(), test.end()));
  std::vector<int64_t> all = train;
  all.insert(all.end(), test.begin(), test.end());
  std::sort(all.begin(), all.end());
  std::vector<int64_t> iota(100);
  std::iota(iota.begin(), iota.end(), 0);
  EXPECT_EQ(all, iota);
  EXPECT_NE(test, std::vector<int64_t>(iota.begin(), iota.begin() + 25));  // shuffled, not the first 25
}

TEST(SplitTest, RejectsBadFractions) {
  const Dataset ds = Numbered(10);
  for (double f : {0.0, 1.0, -0.5, 1.5, 0.01, 0.99, std::nan("")}) {
    ExpectError(SplitTrainTest(ds, f, 1).status(), Code::kInvalidArgument, {"test_fraction"});
  }
  EXPECT_TRUE(SplitTrainTest(ds, 0.1, 1).ok());
  Dataset broken = ds;
  broken.labels = Tensor(DT_INT32, TensorShape({9}));
  ExpectError(SplitTrainTest(broken, 0.5, 1).status(), Code::kInvalidArgument, {"N = 9"});
}

TEST(BatchIteratorTest, BatchIsAPureFunctionOfSeedAndStep) {
  const Dataset ds = Numbered(10);
  auto a = BatchIterator::Create(ds, 3, 5);
  auto b = BatchIterator::Create(ds, 3, 5);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->steps_per_epoch(), 3);  // 10 / 3: the last partial batch is dropped
  EXPECT_EQ(a->EpochOf(8), 2);
  // a walks forward like a run; b jumps around like a run resumed at
  // different checkpoints.
  std::vector<std::vector<int64_t>> forward;
  for (int64_t s = 0; s < 30; ++s) {
    auto batch = a->Batch(s);
    ASSERT_TRUE(batch.ok()) << batch.status();
    EXPECT_EQ(batch->images.shape(), TensorShape({3, 2}));
    forward.push_back(Ids(*batch));
  }
  for (int64_t s : {17, 3, 29, 0, 16, 17, 9, 8, 25}) {
    auto batch = b->Batch(s);
    ASSERT_TRUE(batch.ok()) << batch.status();
    EXPECT_EQ(Ids(*batch), forward[s]) << "step " << s;
  }
  // Each epoch draws distinct examples, and epochs are shuffled differently.
  std::vector<std::vector<int64_t>> epochs;
  for (int e = 0; e < 10; ++e) {
    std::vector<int64_t> ids;
    for (int k = 0; k < 3; ++k) ids.insert(ids.end(), forward[3 * e + k].begin(), forward[3 * e + k].end());
    EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), 9u) << "epoch " << e;
    epochs.push_back(ids);
  }
  EXPECT_NE(epochs[0], epochs[1]);
  EXPECT_EQ(std::set<std::vector<int64_t>>(epochs.begin(), epochs.end()).size(), epochs.size());
  // Another seed, other batches.
  auto c = BatchIterator::Create(ds, 3, 6);
  ASSERT_TRUE(c.ok());
  EXPECT_NE(Ids(*c->Batch(0)), forward[0]);
}

TEST(BatchIteratorTest, RealDataResumesIdentically) {
  auto ds = LoadFashionMnist(Split::kTest, ImageLayout::kNHWC);
  ASSERT_TRUE(ds.ok()) << ds.status();
  auto run = BatchIterator::Create(*ds, 64, 1234);
  auto resumed = BatchIterator::Create(*ds, 64, 1234);
  ASSERT_TRUE(run.ok() && resumed.ok());
  EXPECT_EQ(run->steps_per_epoch(), 156);
  std::vector<std::string> seen;
  for (int64_t s = 150; s < 170; ++s) {
    auto batch = run->Batch(s);
    ASSERT_TRUE(batch.ok()) << batch.status();
    EXPECT_EQ(batch->images.shape(), TensorShape({64, 28, 28, 1}));
    EXPECT_EQ(batch->labels.shape(), TensorShape({64}));
    seen.push_back(batch->images.ValuesString(1 << 20) + batch->labels.ValuesString(64));
  }
  for (int64_t s = 160; s < 170; ++s) {
    auto batch = resumed->Batch(s);
    ASSERT_TRUE(batch.ok()) << batch.status();
    EXPECT_EQ(batch->images.ValuesString(1 << 20) + batch->labels.ValuesString(64), seen[s - 150]) << s;
  }
}

TEST(BatchIteratorTest, Errors) {
  const Dataset ds = Numbered(10);
  ExpectError(BatchIterator::Create(ds, 0, 1).status(), Code::kInvalidArgument, {"batch size 0", "[1, 10]"});
  ExpectError(BatchIterator::Create(ds, 11, 1).status(), Code::kInvalidArgument, {"batch size 11"});
  auto it = BatchIterator::Create(ds, 10, 1);
  ASSERT_TRUE(it.ok());
  EXPECT_EQ(it->steps_per_epoch(), 1);
  ExpectError(it->Batch(-1).status(), Code::kInvalidArgument, {"step -1"});
  ExpectError(Gather(ds, {0, 10}).status(), Code::kOutOfRange, {"index 10"});
}

// ---- progress ------------------------------------------------------------------------

class ProgressTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NE(file_ = std::tmpfile(), nullptr); }
  void TearDown() override { std::fclose(file_); }
  std::string Output() {
    std::fflush(file_);
    std::rewind(file_);
    std::string s;
    for (int c; (c = std::fgetc(file_)) != EOF;) s += char(c);
    return s;
  }
  std::vector<std::string> Lines() {
    std::vector<std::string> lines;
    std::string all = Output();
    for (size_t b = 0, e; (e = all.find('\n', b)) != std::string::npos; b = e + 1) lines.push_back(all.substr(b, e - b));
    return lines;
  }
  std::FILE* file_ = nullptr;
};

TEST_F(ProgressTest, PlainLinesEveryNStepsAndTheLast) {
  {
    ProgressBar bar(10, file_);
    EXPECT_FALSE(bar.is_bar());  // a file is not a terminal
    bar.SetLogInterval(4, 0);
    for (int s = 1; s <= 10; ++s) bar.Update(s, 1.0 / s, s / 10.0, 12345.4);
    bar.Finish();
  }
  EXPECT_THAT(Lines(), ::testing::ElementsAre("step 4/10 (40%) loss 0.2500 acc 40.0% 12,345 ex/s",
                                              "step 8/10 (80%) loss 0.1250 acc 80.0% 12,345 ex/s",
                                              "step 10/10 (100%) loss 0.1000 acc 100.0% 12,345 ex/s"));
}

TEST_F(ProgressTest, DefaultIntervalIsATenth) {
  {
    ProgressBar bar(1000, file_);  // and 30 seconds, far more than this takes
    for (int s = 1; s <= 1000; ++s) bar.Update(s, 0.3121, 0.912, 999);
  }
  const auto lines = Lines();
  ASSERT_EQ(lines.size(), 10u);
  EXPECT_EQ(lines[4], "step 500/1000 (50%) loss 0.3121 acc 91.2% 999 ex/s");
}

TEST_F(ProgressTest, FinishShowsAnUnshownLastUpdateOnce) {
  {
    ProgressBar bar(100, file_, ProgressBar::Style::kLines);
    bar.SetLogInterval(50, 0);
    for (int s = 1; s <= 30; ++s) bar.Update(s, 2, 0.5, 1e6);
    bar.Finish();
    bar.Finish();
    bar.Update(31, 2, 0.5, 1e6);  // ignored after Finish
  }
  EXPECT_THAT(Lines(), ::testing::ElementsAre("step 30/100 (30%) loss 2.0000 acc 50.0% 1,000,000 ex/s"));
}

TEST_F(ProgressTest, TimeTriggerPrintsEveryUpdateWhenZeroSecondsApart) {
  {
    ProgressBar bar(100, file_);
    bar.SetLogInterval(1000, 1e-9);
    bar.Update(1, 1, 0, 0);
    bar.Update(2, 1, 0, 0);
  }
  EXPECT_EQ(Lines().size(), 2u);
}

TEST_F(ProgressTest, BarRedrawsOneLine) {
  {
    ProgressBar bar(100, file_, ProgressBar::Style::kBar);
    EXPECT_TRUE(bar.is_bar());
    bar.Update(45, 0.3121, 0.912, 12345);  // the first update is drawn at once
    for (int s = 46; s <= 100; ++s) bar.Update(s, 0.25, 0.95, 20000);  // too fast to redraw, but the last
  }
  // Steps 46..99 come faster than the redraw rate; a slow machine may
  // still draw some of them, so only the first and last draws are pinned.
  const std::string out = Output();
  const std::string first = "\r[#############.................]  45% step 45/100 loss 0.3121 acc 91.2% 12,345 ex/s\x1b[K";
  const std::string last = "\r[##############################] 100% step 100/100 loss 0.2500 acc 95.0% 20,000 ex/s\x1b[K\n";
  EXPECT_EQ(out.substr(0, first.size()), first);
  ASSERT_GE(out.size(), last.size());
  EXPECT_EQ(out.substr(out.size() - last.size()), last);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1);
}

// Programs that are not trainers (the word count) name their steps and show
// their own metrics.
TEST_F(ProgressTest, CustomUnitAndMetrics) {
  {
    ProgressBar bar(4, file_, ProgressBar::Style::kLines);
    bar.SetUnit("files");
    bar.SetLogInterval(2, 0);
    for (int s = 1; s <= 4; ++s) bar.Update(s, std::to_string(s * 10) + " MB");
  }
  EXPECT_THAT(Lines(), ::testing::ElementsAre("files 2/4 (50%) 20 MB", "files 4/4 (100%) 40 MB"));
  ProgressBar bar(10, file_, ProgressBar::Style::kBar);
  bar.SetUnit("round");
  EXPECT_EQ(bar.FormatBar(3, "1.5 MB/s"), "[#########.....................]  30% round 3/10 1.5 MB/s");
  EXPECT_EQ(bar.FormatLine(3, ""), "round 3/10 (30%)");
}

TEST(FormatThousandsTest, Groups) {
  EXPECT_EQ(FormatThousands(0), "0");
  EXPECT_EQ(FormatThousands(999.4), "999");
  EXPECT_EQ(FormatThousands(999.6), "1,000");
  EXPECT_EQ(FormatThousands(1234567), "1,234,567");
  EXPECT_EQ(FormatThousands(-12345), "-12,345");
}

}  // namespace
}  // namespace flowvm::examples
