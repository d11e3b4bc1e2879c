// Summaries from the C++ client API: the generated builders of the summary
// ops, run with ClientSession, and their output written by SummaryWriter,
// as a training program does it.
#include <stdlib.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "flowvm/cc/client_session.h"
#include "flowvm/cc/ops.h"
#include "flowvm/record_io.h"
#include "flowvm/summary_writer.h"

namespace flowvm {
namespace {

TEST(SummaryApiTest, MergedSummaryOpsWrittenBySummaryWriter) {
  std::string dir = ::testing::TempDir() + "/summary_api_XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);

  Scope root = Scope::NewRootScope();
  auto loss = ops::Placeholder(root.WithOpName("loss"), DT_FLOAT);
  auto weights = ops::Const(root, Tensor::FromVector<float>({0.5f, -1.0f, 2.0f}));
  auto loss_summary = ops::ScalarSummary(root, ops::Const(root, Tensor::Scalar<std::string>("loss")), loss);
  auto weights_summary =
      ops::HistogramSummary(root, ops::Const(root, Tensor::Scalar<std::string>("weights")), weights);
  auto merged = ops::MergeSummary(root.WithOpName("summaries"), {loss_summary, weights_summary});
  ASSERT_TRUE(root.ok()) << root.status();

  auto writer = SummaryWriter::Create(dir);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ClientSession session(root);
  for (int step = 0; step < 3; ++step) {
    std::vector<Tensor> out;
    Status s = session.Run({{loss, Tensor::Scalar<float>(1.0f / (step + 1))}}, {merged}, &out);
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_TRUE((*writer)->AddSerializedSummary(out[0].scalar<std::string>(), step).ok());
  }
  ASSERT_TRUE((*writer)->Close().ok());

  auto reader = RecordReader::Open((*writer)->path());
  ASSERT_TRUE(reader.ok()) << reader.status();
  uint64_t offset = 0;
  std::string record;
  std::vector<Event> events;
  while ((*reader)->ReadRecord(&offset, &record).ok()) {
    events.emplace_back();
    ASSERT_TRUE(events.back().ParseFromString(record));
  }
  ASSERT_EQ(events.size(), 4u);
  for (int step = 0; step < 3; ++step) {
    const Event& e = events[step + 1];
    EXPECT_EQ(e.step(), step);
    ASSERT_EQ(e.summary().value_size(), 2);
    EXPECT_EQ(e.summary().value(0).tag(), "loss");
    EXPECT_EQ(e.summary().value(0).simple_value(), 1.0f / (step + 1));
    EXPECT_EQ(e.summary().value(1).histo().num(), 3);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace
}  // namespace flowvm
