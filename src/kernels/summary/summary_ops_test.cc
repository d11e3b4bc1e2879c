// The summary kernels against TensorFlow's behaviour: what each puts in its
// Summary (tags, simple values, histograms, PNG pixels after float scaling,
// tensors with metadata, merges), the errors they give (naming the tag),
// and their shape functions.
#include <png.h>

#include <cfloat>
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "core/histogram.h"
#include "flowvm/summary.pb.h"
#include "graph/op_registry.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ConstNode;
using testing::InferShapes;
using testing::PlaceholderNode;
using testing::RunOpKernel;
using testing::TestNode;

Tensor Str(const std::string& s) { return Tensor::Scalar<std::string>(s); }

// Runs the node and parses its one output as a Summary.
StatusOr<Summary> RunSummary(const NodeDef& node, const std::vector<Tensor>& inputs) {
  FLOWVM_ASSIGN_OR_RETURN(std::vector<Tensor> out, RunOpKernel(node, inputs));
  if (out.size() != 1 || out[0].dtype() != DT_STRING || out[0].dims() != 0)
    return errors::Internal("expected one scalar string output");
  Summary s;
  if (!s.ParseFromString(out[0].scalar<std::string>())) return errors::Internal("output is not a Summary");
  return s;
}

// Decodes a PNG into its pixels (as many channels as it has).
std::vector<uint8_t> DecodePng(const std::string& png, int* channels) {
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  std::vector<uint8_t> pixels;
  if (!png_image_begin_read_from_memory(&image, png.data(), png.size())) return pixels;
  *channels = static_cast<int>(PNG_IMAGE_SAMPLE_CHANNELS(image.format));
  pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr)) pixels.clear();
  return pixels;
}

TEST(ScalarSummaryTest, OneSimpleValuePerTag) {
  auto s = RunSummary(TestNode("s", "ScalarSummary").Input("t").Input("v").Attr("T", DT_DOUBLE),
                      {Tensor::FromVector<std::string>({"loss", "accuracy"}), Tensor::FromVector<double>({0.5, 0.875})});
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->value_size(), 2);
  EXPECT_EQ(s->value(0).tag(), "loss");
  EXPECT_EQ(s->value(0).simple_value(), 0.5f);
  EXPECT_EQ(s->value(1).tag(), "accuracy");
  EXPECT_EQ(s->value(1).simple_value(), 0.875f);

  s = RunSummary(TestNode("s", "ScalarSummary").Input("t").Input("v").Attr("T", DT_INT64),
                 {Str("steps"), Tensor::Scalar<int64_t>(12)});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->value(0).simple_value(), 12.0f);
}

TEST(ScalarSummaryTest, TagsAndValuesMustHaveTheSameShape) {
  auto s = RunSummary(TestNode("s", "ScalarSummary").Input("t").Input("v").Attr("T", DT_FLOAT),
                      {Tensor::FromVector<std::string>({"a", "b"}), Tensor::FromVector<float>({1, 2, 3})});
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(s.status().message(), "tags and values not the same shape: [2] != [3]");
  s = RunSummary(TestNode("s", "ScalarSummary").Input("t").Input("v").Attr("T", DT_FLOAT),
                 {Str("loss"), Tensor::FromVector<float>({1})});
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("(tag 'loss')"), std::string::npos) << s.status();
}

TEST(HistogramSummaryTest, EncodesAsTheHistogramClassDoes) {
  auto s = RunSummary(TestNode("h", "HistogramSummary").Input("t").Input("v").Attr("T", DT_DOUBLE),
                      {Str("layer/w"), Tensor::FromVector<double>({-1, 0, 0.5, 3, 3}, TensorShape({5, 1}))});
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->value_size(), 1);
  EXPECT_EQ(s->value(0).tag(), "layer/w");
  Histogram h;
  for (double v : {-1.0, 0.0, 0.5, 3.0, 3.0}) h.Add(v);
  HistogramProto want;
  h.EncodeToProto(&want);
  EXPECT_EQ(s->value(0).histo().SerializeAsString(), want.SerializeAsString());
  EXPECT_EQ(s->value(0).histo().num(), 5);
}

TEST(HistogramSummaryTest, DefaultTypeIsFloatAndNonFiniteIsAnError) {
  auto s = RunSummary(TestNode("h", "HistogramSummary").Input("t").Input("v"),
                      {Str("w"), Tensor::FromVector<float>({1, NAN})});
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(s.status().message(), "Nan in summary histogram for: w");
  s = RunSummary(TestNode("h", "HistogramSummary").Input("t").Input("v"),
                 {Str("w"), Tensor::FromVector<float>({INFINITY})});
  EXPECT_EQ(s.status().message(), "Infinity in summary histogram for: w");
  s = RunSummary(TestNode("h", "HistogramSummary").Input("t").Input("v"),
                 {Tensor::FromVector<std::string>({"a", "b"}), Tensor::FromVector<float>({1})});
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("tags must be scalar"), std::string::npos) << s.status();
}

TEST(ImageSummaryTest, Uint8ImagesAsTheyAreTaggedPerImage) {
  Tensor images(DT_UINT8, TensorShape({2, 2, 3, 1}));
  for (int i = 0; i < 12; ++i) images.data<uint8_t>()[i] = static_cast<uint8_t>(i * 20);
  auto s = RunSummary(TestNode("i", "ImageSummary").Input("t").Input("x").Attr("T", DT_UINT8), {Str("in"), images});
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->value_size(), 2);  // max_images 3, batch 2
  for (int i = 0; i < 2; ++i) {
    const Summary::Value& v = s->value(i);
    EXPECT_EQ(v.tag(), "in/image/" + std::to_string(i));
    EXPECT_EQ(v.image().height(), 2);
    EXPECT_EQ(v.image().width(), 3);
    EXPECT_EQ(v.image().colorspace(), 1);
    int channels = 0;
    std::vector<uint8_t> px = DecodePng(v.image().encoded_image_string(), &channels);
    EXPECT_EQ(channels, 1);
    EXPECT_EQ(px, std::vector<uint8_t>(images.data<uint8_t>() + 6 * i, images.data<uint8_t>() + 6 * i + 6));
  }
  s = RunSummary(TestNode("i", "ImageSummary").Input("t").Input("x").Attr("T", DT_UINT8).Attr("max_images", 1),
                 {Str("in"), images});
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->value_size(), 1);
  EXPECT_EQ(s->value(0).tag(), "in/image");
}

TEST(ImageSummaryTest, FloatImagesAreScaledAndNonFinitePixelsPainted) {
  // No negative value: scaled by 255 / max. With a negative one: 127 / max|v|
  // around 128. A pixel with a NaN channel takes the default red.
  Tensor positive = Tensor::FromVector<float>({0, 0.5f, 1, 0.25f}, TensorShape({1, 2, 2, 1}));
  auto s = RunSummary(TestNode("i", "ImageSummary").Input("t").Input("x"), {Str("p"), positive});
  ASSERT_TRUE(s.ok()) << s.status();
  int channels = 0;
  EXPECT_EQ(DecodePng(s->value(0).image().encoded_image_string(), &channels),
            (std::vector<uint8_t>{0, 127, 255, 63}));

  Tensor mixed = Tensor::FromVector<double>({-1, 0, 0.5, 1}, TensorShape({1, 1, 4, 1}));
  s = RunSummary(TestNode("i", "ImageSummary").Input("t").Input("x").Attr("T", DT_DOUBLE), {Str("m"), mixed});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(DecodePng(s->value(0).image().encoded_image_string(), &channels),
            (std::vector<uint8_t>{1, 128, 191, 255}));

  Tensor rgb = Tensor::FromVector<float>({2, 2, 2, NAN, 0, 0}, TensorShape({1, 1, 2, 3}));
  s = RunSummary(TestNode("i", "ImageSummary").Input("t").Input("x"), {Str("rgb"), rgb});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->value(0).image().colorspace(), 3);
  EXPECT_EQ(DecodePng(s->value(0).image().encoded_image_string(), &channels),
            (std::vector<uint8_t>{255, 255, 255, 255, 0, 0}));
  EXPECT_EQ(channels, 3);

  Tensor halves(DT_HALF, TensorShape({1, 1, 2, 1}));
  halves.data<half>()[0] = half(0.0f);
  halves.data<half>()[1] = half(2.0f);
  s = RunSummary(TestNode("i", "ImageSummary").Input("t").Input("x").Attr("T", DT_HALF), {Str("h"), halves});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(DecodePng(s->value(0).image().encoded_image_string(), &channels), (std::vector<uint8_t>{0, 255}));
}

TEST(ImageSummaryTest, BadShapesAndColoursAreInvalidArgument) {
  auto s = RunSummary(TestNode("i", "ImageSummary").Input("t").Input("x"),
                      {Str("pic"), Tensor(DT_FLOAT, TensorShape({1, 2, 2, 2}))});
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("image summary 'pic': Tensor must be 4-D with last dim 1, 3, or 4"),
            std::string::npos)
      << s.status();
  Tensor gray_bad = Tensor::FromVector<uint8_t>({9});
  Tensor rgba(DT_FLOAT, TensorShape({1, 1, 1, 4}));
  for (int i = 0; i < 4; ++i) rgba.data<float>()[i] = 1;
  NodeDef node = TestNode("i", "ImageSummary").Input("t").Input("x");
  SetAttrValue(gray_bad, &(*node.mutable_attr())["bad_color"]);
  s = RunSummary(node, {Str("pic"), rgba});
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("expected depth <= bad_color.size"), std::string::npos) << s.status();
  s = RunSummary(TestNode("i", "ImageSummary").Input("t").Input("x"),
                 {Str("pic"), Tensor(DT_FLOAT, TensorShape({1, 0, 2, 1}))});
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument) << s.status();
}

TEST(ImageSummaryTest, DefaultBadColorIsOpaqueRed) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUpOrNull("ImageSummary");
  ASSERT_NE(op, nullptr);
  for (const auto& attr : op->op_def.attr()) {
    if (attr.name() != "bad_color") continue;
    auto t = Tensor::FromProto(attr.default_value().tensor());
    ASSERT_TRUE(t.ok()) << t.status();
    testing::ExpectTensorEqual(*t, Tensor::FromVector<uint8_t>({255, 0, 0, 255}));
    return;
  }
  FAIL() << "ImageSummary has no bad_color attr";
}

TEST(TensorSummaryV2Test, HoldsTheTensorAndItsMetadata) {
  SummaryMetadata md;
  md.mutable_plugin_data()->set_plugin_name("custom");
  md.set_display_name("Weights");
  Tensor t = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  auto s = RunSummary(TestNode("ts", "TensorSummaryV2").Input("t").Input("x").Input("m").Attr("T", DT_INT32),
                      {Str("w"), t, Str(md.SerializeAsString())});
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->value_size(), 1);
  EXPECT_EQ(s->value(0).tag(), "w");
  EXPECT_EQ(s->value(0).metadata().plugin_data().plugin_name(), "custom");
  EXPECT_EQ(s->value(0).metadata().display_name(), "Weights");
  EXPECT_FALSE(s->value(0).tensor().tensor_content().empty());
  auto back = Tensor::FromProto(s->value(0).tensor());
  ASSERT_TRUE(back.ok()) << back.status();
  testing::ExpectTensorEqual(*back, t);

  s = RunSummary(TestNode("ts", "TensorSummaryV2").Input("t").Input("x").Input("m").Attr("T", DT_STRING),
                 {Str("text"), Str("hello"), Str("")});
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->value(0).tensor().string_val_size(), 1);
  EXPECT_EQ(s->value(0).tensor().string_val(0), "hello");

  s = RunSummary(TestNode("ts", "TensorSummaryV2").Input("t").Input("x").Input("m").Attr("T", DT_FLOAT),
                 {Str("w"), Tensor::Scalar<float>(1), Str("\xff\xff")});
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("tensor summary 'w'"), std::string::npos) << s.status();
}

std::string OneScalar(const std::string& tag, float v) {
  Summary s;
  s.add_value()->set_tag(tag);
  s.mutable_value(0)->set_simple_value(v);
  return s.SerializeAsString();
}

TEST(MergeSummaryTest, UnionOfValuesAndDuplicateTagsRefused) {
  NodeDef node = TestNode("m", "MergeSummary").Input("a").Input("b").Attr("N", 2);
  auto s = RunSummary(node, {Str(OneScalar("a", 1)), Tensor::FromVector<std::string>({OneScalar("b", 2), OneScalar("c", 3)})});
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->value_size(), 3);
  EXPECT_EQ(s->value(0).tag(), "a");
  EXPECT_EQ(s->value(1).tag(), "b");
  EXPECT_EQ(s->value(2).simple_value(), 3.0f);

  s = RunSummary(node, {Str(OneScalar("a", 1)), Str(OneScalar("a", 2))});
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("Duplicate tag a found in summary inputs"), std::string::npos) << s.status();

  s = RunSummary(node, {Str(OneScalar("a", 1)), Str("\x0a\xff")});
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("Could not parse one of the summary inputs"), std::string::npos)
      << s.status();
}

TEST(SummaryShapeTest, OutputsAreScalarsAndInputsAreChecked) {
  auto shapes = InferShapes({PlaceholderNode("t", DT_STRING, PartialTensorShape({3})),
                             PlaceholderNode("v", DT_FLOAT, PartialTensorShape({-1})),
                             TestNode("s", "ScalarSummary").Input("t").Input("v").Attr("T", DT_FLOAT)},
                            "s");
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_EQ((*shapes)[0].DebugString(), "[]");
  shapes = InferShapes({PlaceholderNode("t", DT_STRING, PartialTensorShape({3})),
                        PlaceholderNode("v", DT_FLOAT, PartialTensorShape({2})),
                        TestNode("s", "ScalarSummary").Input("t").Input("v").Attr("T", DT_FLOAT)},
                       "s");
  EXPECT_EQ(shapes.status().code(), Code::kInvalidArgument) << shapes.status();
  shapes = InferShapes({ConstNode("t", Str("img")), PlaceholderNode("x", DT_FLOAT, PartialTensorShape({-1, 8, 8, 2})),
                        TestNode("i", "ImageSummary").Input("t").Input("x")},
                       "i");
  EXPECT_EQ(shapes.status().code(), Code::kInvalidArgument) << shapes.status();
  shapes = InferShapes({ConstNode("t", Tensor::FromVector<std::string>({"a", "b"})),
                        PlaceholderNode("x", DT_FLOAT, PartialTensorShape({-1})),
                        TestNode("h", "HistogramSummary").Input("t").Input("x")},
                       "h");
  EXPECT_EQ(shapes.status().code(), Code::kInvalidArgument) << shapes.status();
}

}  // namespace
}  // namespace flowvm
