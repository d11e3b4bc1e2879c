// Our event files are TensorFlow's: files SummaryWriter writes parse with
// TensorFlow's own Event/Summary definitions (tensorflow.*, hand-written in
// tests/tf_compat/tensorflow/ from TensorFlow's .proto files) and give back
// the values written; a file of tensorflow::Event records reads with
// flowvm::Event; and every field of our messages has the number, name and
// type of TensorFlow's.
#include <stdlib.h>

#include <cfloat>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include "flowvm/event.pb.h"
#include "flowvm/record_io.h"
#include "flowvm/summary_writer.h"
#include "flowvm/tensor.h"
#include "tensorflow/core/util/event.pb.h"

namespace flowvm {
namespace {

namespace fs = std::filesystem;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

class TfEventCompatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/tf_compat_test_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string dir_;
};

std::vector<std::string> ReadRecords(const std::string& path) {
  std::vector<std::string> records;
  auto reader = RecordReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return records;
  uint64_t offset = 0;
  std::string record;
  Status s;
  while ((s = (*reader)->ReadRecord(&offset, &record)).ok()) records.push_back(record);
  EXPECT_EQ(s.code(), Code::kOutOfRange) << s;
  return records;
}

TEST_F(TfEventCompatTest, OurFilesParseWithTensorFlowsEvent) {
  auto w = SummaryWriter::Create(dir_);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_TRUE((*w)->AddScalar("loss", 0.125, 10).ok());
  ASSERT_TRUE((*w)->AddHistogram("weights", Tensor::FromVector<double>({-1.5, 0.0, 2.0, 2.0}), 10).ok());
  Tensor image(DT_UINT8, TensorShape({4, 5, 1}));
  for (int i = 0; i < 20; ++i) image.data<uint8_t>()[i] = static_cast<uint8_t>(i * 12);
  ASSERT_TRUE((*w)->AddImage("digits/image", image, 11).ok());
  GraphDef graph;
  graph.add_node()->set_name("layer1/MatMul");
  graph.mutable_node(0)->set_op("MatMul");
  ASSERT_TRUE((*w)->AddGraph(graph).ok());
  RunMetadata md;
  md.mutable_step_stats()->add_dev_stats()->set_device("/job:worker/replica:0/task:0/device:CPU:0");
  ASSERT_TRUE((*w)->AddRunMetadata("step_12", md, 12).ok());
  // A tensor summary, as TensorSummaryV2 makes one.
  Summary tensor_summary;
  Summary::Value* tv = tensor_summary.add_value();
  tv->set_tag("activations");
  tv->mutable_metadata()->mutable_plugin_data()->set_plugin_name("histograms");
  tv->mutable_metadata()->set_data_class(DATA_CLASS_TENSOR);
  Tensor t = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  t.AsProtoTensorContent(tv->mutable_tensor());
  ASSERT_TRUE((*w)->AddSummary(tensor_summary, 13).ok());
  ASSERT_TRUE((*w)->Close().ok());

  std::vector<std::string> records = ReadRecords((*w)->path());
  ASSERT_EQ(records.size(), 7u);
  std::vector<tensorflow::Event> ev(records.size());
  for (size_t i = 0; i < records.size(); ++i) ASSERT_TRUE(ev[i].ParseFromString(records[i])) << i;

  EXPECT_EQ(ev[0].file_version(), "brain.Event:2");
  EXPECT_GT(ev[0].wall_time(), 1.5e9);

  ASSERT_EQ(ev[1].what_case(), tensorflow::Event::kSummary);
  EXPECT_EQ(ev[1].step(), 10);
  EXPECT_EQ(ev[1].summary().value(0).tag(), "loss");
  EXPECT_EQ(ev[1].summary().value(0).simple_value(), 0.125f);

  const tensorflow::HistogramProto& h = ev[2].summary().value(0).histo();
  EXPECT_EQ(ev[2].summary().value(0).tag(), "weights");
  EXPECT_EQ(h.num(), 4);
  EXPECT_EQ(h.min(), -1.5);
  EXPECT_EQ(h.max(), 2.0);
  EXPECT_EQ(h.sum(), 2.5);
  EXPECT_EQ(h.sum_squares(), 2.25 + 8);
  ASSERT_EQ(h.bucket_size(), h.bucket_limit_size());
  double total = 0;
  for (double c : h.bucket()) total += c;
  EXPECT_EQ(total, 4);
  EXPECT_EQ(h.bucket_limit(h.bucket_limit_size() - 1), DBL_MAX);

  const tensorflow::Summary::Image& img = ev[3].summary().value(0).image();
  EXPECT_EQ(img.height(), 4);
  EXPECT_EQ(img.width(), 5);
  EXPECT_EQ(img.colorspace(), 1);
  EXPECT_EQ(img.encoded_image_string().substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));

  ASSERT_EQ(ev[4].what_case(), tensorflow::Event::kGraphDef);
  GraphDef g;
  ASSERT_TRUE(g.ParseFromString(ev[4].graph_def()));
  EXPECT_EQ(g.node(0).name(), "layer1/MatMul");

  ASSERT_EQ(ev[5].what_case(), tensorflow::Event::kTaggedRunMetadata);
  EXPECT_EQ(ev[5].step(), 12);
  EXPECT_EQ(ev[5].tagged_run_metadata().tag(), "step_12");
  RunMetadata m;
  ASSERT_TRUE(m.ParseFromString(ev[5].tagged_run_metadata().run_metadata()));
  EXPECT_EQ(m.step_stats().dev_stats(0).device(), "/job:worker/replica:0/task:0/device:CPU:0");

  const tensorflow::Summary::Value& v = ev[6].summary().value(0);
  EXPECT_EQ(v.tag(), "activations");
  EXPECT_EQ(v.metadata().plugin_data().plugin_name(), "histograms");
  EXPECT_EQ(v.metadata().data_class(), tensorflow::DATA_CLASS_TENSOR);
  EXPECT_EQ(v.tensor().dtype(), tensorflow::DT_FLOAT);
  ASSERT_EQ(v.tensor().tensor_shape().dim_size(), 2);
  EXPECT_EQ(v.tensor().tensor_shape().dim(0).size(), 2);
  EXPECT_EQ(v.tensor().tensor_shape().dim(1).size(), 3);
  ASSERT_EQ(v.tensor().tensor_content().size(), 6 * sizeof(float));
  float values[6];
  std::memcpy(values, v.tensor().tensor_content().data(), sizeof(values));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(values[i], i + 1.0f);
}

TEST_F(TfEventCompatTest, TensorFlowsEventsReadWithOurs) {
  std::vector<tensorflow::Event> written(6);
  written[0].set_wall_time(1700000000.25);
  written[0].set_file_version("brain.Event:2");
  written[0].mutable_source_metadata()->set_writer("tensorflow.core.util.events_writer");
  written[1].set_wall_time(1700000001.5);
  written[1].set_step(42);
  {
    tensorflow::Summary::Value* v = written[1].mutable_summary()->add_value();
    v->set_tag("accuracy");
    v->set_simple_value(0.875f);
    v = written[1].mutable_summary()->add_value();
    v->set_tag("h");
    tensorflow::HistogramProto* h = v->mutable_histo();
    h->set_min(1);
    h->set_max(3);
    h->set_num(2);
    h->set_sum(4);
    h->set_sum_squares(10);
    h->add_bucket_limit(1.1);
    h->add_bucket(1);
    h->add_bucket_limit(DBL_MAX);
    h->add_bucket(1);
  }
  written[2].set_step(43);
  {
    tensorflow::Summary::Value* v = written[2].mutable_summary()->add_value();
    v->set_tag("text_summary");
    v->mutable_metadata()->mutable_plugin_data()->set_plugin_name("text");
    v->mutable_tensor()->set_dtype(tensorflow::DT_STRING);
    v->mutable_tensor()->add_string_val("hello");
    v->mutable_tensor()->mutable_tensor_shape();
    tensorflow::Summary::Value* s = written[2].mutable_summary()->add_value();
    s->set_tag("scalars_v2");
    s->mutable_metadata()->mutable_plugin_data()->set_plugin_name("scalars");
    s->mutable_metadata()->set_data_class(tensorflow::DATA_CLASS_SCALAR);
    s->mutable_tensor()->set_dtype(tensorflow::DT_FLOAT);
    s->mutable_tensor()->add_float_val(3.5f);
  }
  written[3].mutable_summary()->add_value()->set_tag("img");
  written[3].mutable_summary()->mutable_value(0)->mutable_image()->set_height(2);
  written[3].mutable_summary()->mutable_value(0)->mutable_image()->set_width(3);
  written[3].mutable_summary()->mutable_value(0)->mutable_image()->set_colorspace(4);
  written[3].mutable_summary()->mutable_value(0)->mutable_image()->set_encoded_image_string("png bytes");
  written[4].mutable_session_log()->set_status(tensorflow::SessionLog::CHECKPOINT);
  written[4].mutable_session_log()->set_checkpoint_path("/ckpt/model-100");
  written[5].set_step(7);
  written[5].mutable_tagged_run_metadata()->set_tag("step7");
  written[5].mutable_tagged_run_metadata()->set_run_metadata("opaque");

  const std::string path = dir_ + "/events.out.tfevents.1700000000.tfhost";
  {
    auto rw = RecordWriter::Create(path);
    ASSERT_TRUE(rw.ok()) << rw.status();
    for (const auto& e : written) ASSERT_TRUE((*rw)->Write(e.SerializeAsString()).ok());
    ASSERT_TRUE((*rw)->Close().ok());
  }

  std::vector<std::string> records = ReadRecords(path);
  ASSERT_EQ(records.size(), written.size());
  std::vector<Event> ev(records.size());
  for (size_t i = 0; i < records.size(); ++i) ASSERT_TRUE(ev[i].ParseFromString(records[i])) << i;
  EXPECT_EQ(ev[0].wall_time(), 1700000000.25);
  EXPECT_EQ(ev[0].file_version(), "brain.Event:2");
  EXPECT_EQ(ev[1].step(), 42);
  EXPECT_EQ(ev[1].summary().value(0).tag(), "accuracy");
  EXPECT_EQ(ev[1].summary().value(0).simple_value(), 0.875f);
  const HistogramProto& h = ev[1].summary().value(1).histo();
  EXPECT_EQ(h.num(), 2);
  EXPECT_EQ(h.sum_squares(), 10);
  ASSERT_EQ(h.bucket_limit_size(), 2);
  EXPECT_EQ(h.bucket_limit(0), 1.1);
  EXPECT_EQ(h.bucket_limit(1), DBL_MAX);
  EXPECT_EQ(h.bucket(1), 1);
  const Summary::Value& text = ev[2].summary().value(0);
  EXPECT_EQ(text.metadata().plugin_data().plugin_name(), "text");
  auto text_tensor = Tensor::FromProto(text.tensor());
  ASSERT_TRUE(text_tensor.ok()) << text_tensor.status();
  EXPECT_EQ(text_tensor->scalar<std::string>(), "hello");
  const Summary::Value& scalar_v2 = ev[2].summary().value(1);
  EXPECT_EQ(scalar_v2.metadata().data_class(), DATA_CLASS_SCALAR);
  auto scalar_tensor = Tensor::FromProto(scalar_v2.tensor());
  ASSERT_TRUE(scalar_tensor.ok()) << scalar_tensor.status();
  EXPECT_EQ(scalar_tensor->scalar<float>(), 3.5f);
  EXPECT_EQ(ev[3].summary().value(0).image().colorspace(), 4);
  EXPECT_EQ(ev[3].summary().value(0).image().encoded_image_string(), "png bytes");
  EXPECT_EQ(ev[4].session_log().status(), SessionLog::CHECKPOINT);
  EXPECT_EQ(ev[4].session_log().checkpoint_path(), "/ckpt/model-100");
  EXPECT_EQ(ev[5].tagged_run_metadata().tag(), "step7");
  EXPECT_EQ(ev[5].tagged_run_metadata().run_metadata(), "opaque");
  // What we do not model (source_metadata) survives a round trip as an
  // unknown field.
  EXPECT_EQ(ev[0].SerializeAsString(), records[0]);
}

// Each field of ours has TensorFlow's number, name, type, cardinality and
// packing; TensorFlow fields we lack are listed in `known_missing`.
void ExpectSameFields(const Descriptor* ours, const Descriptor* theirs, const std::set<std::string>& known_missing) {
  ASSERT_NE(ours, nullptr);
  ASSERT_NE(theirs, nullptr);
  EXPECT_EQ(ours->name(), theirs->name());
  for (int i = 0; i < ours->field_count(); ++i) {
    const FieldDescriptor* f = ours->field(i);
    const FieldDescriptor* tf = theirs->FindFieldByNumber(f->number());
    ASSERT_NE(tf, nullptr) << ours->full_name() << "." << f->name() << " = " << f->number()
                           << " is not in TensorFlow's " << theirs->full_name();
    EXPECT_EQ(f->name(), tf->name()) << ours->full_name() << " field " << f->number();
    EXPECT_EQ(f->type(), tf->type()) << ours->full_name() << "." << f->name();
    EXPECT_EQ(f->is_repeated(), tf->is_repeated()) << ours->full_name() << "." << f->name();
    EXPECT_EQ(f->is_packed(), tf->is_packed()) << ours->full_name() << "." << f->name();
    EXPECT_EQ(f->containing_oneof() != nullptr, tf->containing_oneof() != nullptr)
        << ours->full_name() << "." << f->name();
    if (f->message_type() != nullptr) {
      EXPECT_EQ(f->message_type()->name(), tf->message_type()->name());
    }
    if (f->enum_type() != nullptr) {
      for (int v = 0; v < f->enum_type()->value_count(); ++v) {
        const auto* ev = f->enum_type()->value(v);
        const auto* tv = tf->enum_type()->FindValueByNumber(ev->number());
        ASSERT_NE(tv, nullptr) << ev->full_name();
        EXPECT_EQ(ev->name(), tv->name());
      }
    }
  }
  for (int i = 0; i < theirs->field_count(); ++i) {
    const FieldDescriptor* tf = theirs->field(i);
    if (ours->FindFieldByNumber(tf->number()) == nullptr) {
      EXPECT_TRUE(known_missing.count(tf->name())) << "TensorFlow's " << tf->full_name() << " = " << tf->number()
                                                   << " is missing from " << ours->full_name();
    }
  }
}

TEST(TfProtoDefinitionsTest, OurMessagesMatchTensorFlowsFieldByField) {
  ExpectSameFields(Event::descriptor(), tensorflow::Event::descriptor(), {"source_metadata"});
  ExpectSameFields(LogMessage::descriptor(), tensorflow::LogMessage::descriptor(), {});
  ExpectSameFields(SessionLog::descriptor(), tensorflow::SessionLog::descriptor(), {});
  ExpectSameFields(TaggedRunMetadata::descriptor(), tensorflow::TaggedRunMetadata::descriptor(), {});
  ExpectSameFields(Summary::descriptor(), tensorflow::Summary::descriptor(), {});
  ExpectSameFields(Summary::Value::descriptor(), tensorflow::Summary::Value::descriptor(), {});
  ExpectSameFields(Summary::Image::descriptor(), tensorflow::Summary::Image::descriptor(), {});
  ExpectSameFields(Summary::Audio::descriptor(), tensorflow::Summary::Audio::descriptor(), {});
  ExpectSameFields(HistogramProto::descriptor(), tensorflow::HistogramProto::descriptor(), {});
  ExpectSameFields(SummaryMetadata::descriptor(), tensorflow::SummaryMetadata::descriptor(), {});
  ExpectSameFields(SummaryMetadata::PluginData::descriptor(), tensorflow::SummaryMetadata::PluginData::descriptor(),
                   {});
  ExpectSameFields(SummaryDescription::descriptor(), tensorflow::SummaryDescription::descriptor(), {});
  ExpectSameFields(TensorProto::descriptor(), tensorflow::TensorProto::descriptor(), {"float8_val"});
  ExpectSameFields(TensorShapeProto::descriptor(), tensorflow::TensorShapeProto::descriptor(), {});
  ExpectSameFields(TensorShapeProto::Dim::descriptor(), tensorflow::TensorShapeProto::Dim::descriptor(), {});
  ExpectSameFields(ResourceHandleProto::descriptor(), tensorflow::ResourceHandleProto::descriptor(),
                   {"dtypes_and_shapes"});
  ExpectSameFields(VariantTensorDataProto::descriptor(), tensorflow::VariantTensorDataProto::descriptor(), {});
}

}  // namespace
}  // namespace flowvm
