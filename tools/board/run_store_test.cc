// RunStore: runs found under a logdir, the reservoirs' bounds, purging a
// restarted run, files and folders that appear later, several files per
// run, TF2 scalars, and damaged records.
#include "board/run_store.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "board/board_test_util.h"
#include "board/reservoir.h"

namespace flowvm::board {
namespace {

using testing::EventFileForTest;
using testing::TempDir;

RunStoreOptions Options(const std::string& logdir) {
  RunStoreOptions o;
  o.logdir = logdir;
  o.on_error = [](const Status& s) { ADD_FAILURE() << "unexpected error: " << s; };
  return o;
}

ScalarSeries Scalars(const RunStore& store, const std::string& run, const std::string& tag,
                     size_t max_points = 100000) {
  ScalarSeries s;
  Status status = store.GetScalars(run, tag, INT64_MIN, INT64_MAX, max_points, &s);
  EXPECT_TRUE(status.ok()) << status;
  return s;
}

TEST(ReservoirTest, KeepsEverythingUpToCapacityThenASampleWithTheNewest) {
  Reservoir<int64_t> r(10);
  auto key = [](int64_t v) { return v; };
  for (int64_t i = 0; i < 10; ++i) r.Add(i);
  EXPECT_EQ(r.size(), 10u);
  for (int64_t i = 10; i < 1000; ++i) {
    r.Add(i);
    ASSERT_EQ(r.size(), 10u);
    ASSERT_EQ(r.Sorted(key).back().item, i) << "the newest is always kept";
  }
  EXPECT_EQ(r.seen(), 1000u);
  // Deterministic: the same stream, the same sample.
  Reservoir<int64_t> again(10);
  for (int64_t i = 0; i < 1000; ++i) again.Add(i);
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(again.Sorted(key)[i].item, r.Sorted(key)[i].item);
  // Roughly uniform: over many items, the sample is not just the last ones.
  EXPECT_LT(r.Sorted(key).front().item, 900);
}

TEST(ReservoirTest, FilterDropsItemsAndScalesSeen) {
  Reservoir<int64_t> r(100);
  for (int64_t i = 0; i < 100; ++i) r.Add(i);
  EXPECT_EQ(r.Filter([](int64_t v) { return v < 50; }), 50u);
  EXPECT_EQ(r.size(), 50u);
  EXPECT_EQ(r.seen(), 50u);
  r.Add(7);
  EXPECT_EQ(r.Sorted([](int64_t v) { return v; }).size(), 51u);
}

TEST(RunStoreTest, FindsEveryFolderWithEventFilesAsARun) {
  TempDir logdir;
  std::filesystem::create_directories(logdir.path() + "/train");
  std::filesystem::create_directories(logdir.path() + "/eval/a");
  std::filesystem::create_directories(logdir.path() + "/empty");
  {
    EventFileForTest root(logdir.path());
    root.Scalar("loss", 1, 0.5f);
    EventFileForTest train(logdir.path() + "/train");
    for (int i = 0; i < 5; ++i) train.Scalar("loss", i, 2.0f - i * 0.25f);
    train.Scalar("accuracy", 4, 0.75f);
    EventFileForTest eval(logdir.path() + "/eval/a");
    eval.Scalar("accuracy", 3, 0.5f);
  }
  RunStore store(Options(logdir.path()));
  store.Reload();
  const std::vector<RunSummary> runs = store.ListRuns();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].name, ".");
  EXPECT_EQ(runs[1].name, "eval/a");
  EXPECT_EQ(runs[2].name, "train");
  EXPECT_EQ(runs[2].scalar_tags, (std::vector<std::string>{"accuracy", "loss"}));
  EXPECT_EQ(runs[2].last_step, 4);
  EXPECT_DOUBLE_EQ(runs[2].first_wall_time, 1700000000.5);
  EXPECT_FALSE(runs[2].has_graph);
  EXPECT_GT(store.generation(), 0u);

  ScalarSeries loss = Scalars(store, "train", "loss");
  EXPECT_EQ(loss.step, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(loss.value, (std::vector<double>{2.0, 1.75, 1.5, 1.25, 1.0}));
  EXPECT_DOUBLE_EQ(loss.wall_time[2], 1700000000.5 + 0.5);
  EXPECT_EQ(loss.kept, 5u);
  EXPECT_EQ(loss.seen, 5u);

  // The same names with the logdir spelt with a trailing slash.
  RunStore slash(Options(logdir.path() + "/"));
  slash.Reload();
  EXPECT_EQ(slash.RunNames(), (std::vector<std::string>{".", "eval/a", "train"}));

  ScalarSeries s;
  Status missing = store.GetScalars("train", "nope", INT64_MIN, INT64_MAX, 10, &s);
  EXPECT_EQ(missing.code(), Code::kNotFound);
  EXPECT_NE(missing.message().find("'nope'"), std::string::npos) << missing;
  EXPECT_NE(missing.message().find("'train'"), std::string::npos) << missing;
  EXPECT_EQ(store.GetScalars("test", "loss", INT64_MIN, INT64_MAX, 10, &s).code(), Code::kNotFound);
}

TEST(RunStoreTest, TheReservoirIsBoundedAndKeepsTheNewestPoint) {
  TempDir logdir;
  {
    EventFileForTest f(logdir.path());
    for (int i = 0; i < 5000; ++i) f.Scalar("loss", i, static_cast<float>(i));
  }
  RunStoreOptions o = Options(logdir.path());
  o.max_scalars = 300;
  RunStore store(o);
  store.Reload();
  ScalarSeries all = Scalars(store, ".", "loss");
  EXPECT_EQ(all.step.size(), 300u);
  EXPECT_EQ(all.kept, 300u);
  EXPECT_EQ(all.seen, 5000u);
  EXPECT_EQ(all.step.back(), 4999);
  EXPECT_TRUE(std::is_sorted(all.step.begin(), all.step.end()));
  // Spread over the whole run, not only its end.
  EXPECT_LT(all.step[all.step.size() / 2], 4000);

  // Downsampled evenly, first and last kept; a step range.
  ScalarSeries ten = Scalars(store, ".", "loss", 10);
  ASSERT_EQ(ten.step.size(), 10u);
  EXPECT_EQ(ten.step.front(), all.step.front());
  EXPECT_EQ(ten.step.back(), 4999);
  ScalarSeries range;
  ASSERT_TRUE(store.GetScalars(".", "loss", 1000, 2000, 100000, &range).ok());
  ASSERT_FALSE(range.step.empty());
  EXPECT_GE(range.step.front(), 1000);
  EXPECT_LE(range.step.back(), 2000);
  EXPECT_EQ(range.kept, range.step.size());

  // The same file read again gives the same sample.
  RunStore again(o);
  again.Reload();
  EXPECT_EQ(Scalars(again, ".", "loss").step, all.step);
}

TEST(RunStoreTest, ARestartedRunDropsThePointsAtAndAfterItsStartStep) {
  TempDir logdir;
  {
    EventFileForTest f(logdir.path());
    for (int i = 0; i < 100; ++i) f.Scalar("loss", i, 1.0f);
    HistogramProto h;
    h.set_num(1);
    f.Histogram("w", 80, h);
    f.Image("img", 90, 1, 1, "png");
    // The job died after step 99 and resumed from a checkpoint at step 50.
    f.Start(50);
    for (int i = 50; i < 60; ++i) f.Scalar("loss", i, 2.0f);
  }
  RunStore store(Options(logdir.path()));
  store.Reload();
  ScalarSeries s = Scalars(store, ".", "loss");
  ASSERT_EQ(s.step.size(), 60u);
  for (size_t i = 0; i < 60; ++i) {
    EXPECT_EQ(s.step[i], static_cast<int64_t>(i));
    EXPECT_EQ(s.value[i], i < 50 ? 1.0 : 2.0) << "step " << i;
  }
  EXPECT_TRUE(store.GetHistograms(".", "w")->empty());
  EXPECT_TRUE(store.GetImages(".", "img")->empty());
}

// A job restarted from a checkpoint without a SessionLog (flowvm's
// trainers, like most TensorFlow programs): the first summary at a step
// below the newest seen drops its tags' points at and after that step, as
// TensorBoard does, and leaves the other tags alone.
TEST(RunStoreTest, ASummaryBackInStepsDropsItsTagsPointsFromThatStep) {
  TempDir logdir;
  {
    EventFileForTest f(logdir.path());
    for (int i = 0; i < 100; ++i) f.Scalar("loss", i, 1.0f);
    f.Scalar("other", 90, 7.0f);
    for (int i = 50; i < 60; ++i) f.Scalar("loss", i, 2.0f);  // resumed at step 50
  }
  RunStore store(Options(logdir.path()));
  store.Reload();
  ScalarSeries s = Scalars(store, ".", "loss");
  ASSERT_EQ(s.step.size(), 60u);
  for (size_t i = 0; i < 60; ++i) {
    EXPECT_EQ(s.step[i], static_cast<int64_t>(i));
    EXPECT_EQ(s.value[i], i < 50 ? 1.0 : 2.0) << "step " << i;
  }
  EXPECT_EQ(Scalars(store, ".", "other").step.size(), 1u);
}

TEST(RunStoreTest, FoldersAndFilesThatAppearLaterAreRead) {
  TempDir tmp;
  const std::string logdir = tmp.path() + "/logs";
  RunStore store(Options(logdir));
  store.Reload();  // no logdir yet: no runs, no error
  EXPECT_TRUE(store.ListRuns().empty());
  const uint64_t g0 = store.generation();

  std::filesystem::create_directories(logdir + "/run1");
  EventFileForTest f(logdir + "/run1");
  f.Scalar("loss", 0, 1.0f);
  f.Flush();
  store.Reload();
  ASSERT_EQ(store.ListRuns().size(), 1u);
  EXPECT_EQ(Scalars(store, "run1", "loss").step.size(), 1u);
  const uint64_t g1 = store.generation();
  EXPECT_GT(g1, g0);

  // Nothing new: the generation stays.
  store.Reload();
  EXPECT_EQ(store.generation(), g1);
  EXPECT_EQ(store.ListRuns()[0].generation, g1);

  // The file grows; a second run appears.
  f.Scalar("loss", 1, 0.5f);
  f.Flush();
  std::filesystem::create_directories(logdir + "/run2");
  EventFileForTest f2(logdir + "/run2");
  f2.Scalar("acc", 7, 0.9f);
  f2.Flush();
  store.Reload();
  EXPECT_EQ(Scalars(store, "run1", "loss").value, (std::vector<double>{1.0, 0.5}));
  EXPECT_EQ(Scalars(store, "run2", "acc").step, (std::vector<int64_t>{7}));
  EXPECT_GT(store.generation(), g1);
  EXPECT_EQ(store.RunNames(), (std::vector<std::string>{"run1", "run2"}));
}

TEST(RunStoreTest, SeveralFilesOfOneRunAreReadInNameOrder) {
  TempDir logdir;
  {
    EventFileForTest second(logdir.path(), "1700000100.host");
    second.Start(10);  // resumed at step 10: drops nothing of the first file
    for (int i = 10; i < 20; ++i) second.Scalar("loss", i, 2.0f);
    EventFileForTest first(logdir.path(), "1700000000.host");
    for (int i = 0; i < 10; ++i) first.Scalar("loss", i, 1.0f);
  }
  RunStore store(Options(logdir.path()));
  store.Reload();
  ASSERT_EQ(store.ListRuns().size(), 1u);
  ScalarSeries s = Scalars(store, ".", "loss");
  ASSERT_EQ(s.step.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(s.step[i], i);
}

TEST(RunStoreTest, Tf2ScalarTensorsAreScalarsThoughOnlyTheFirstNamesThePlugin) {
  TempDir logdir;
  {
    EventFileForTest f(logdir.path());
    f.TensorScalar("lr", 0, 0.1, /*with_metadata=*/true);
    f.TensorScalar("lr", 1, 0.05, /*with_metadata=*/false);
    f.TensorScalar("other", 1, 3.0, /*with_metadata=*/false);  // no plugin: not a scalar
  }
  RunStore store(Options(logdir.path()));
  store.Reload();
  EXPECT_EQ(Scalars(store, ".", "lr").value, (std::vector<double>{0.1, 0.05}));
  EXPECT_EQ(store.ListRuns()[0].scalar_tags, (std::vector<std::string>{"lr"}));
}

TEST(RunStoreTest, KeepsHistogramsImagesGraphsAndRunMetadata) {
  TempDir logdir;
  GraphDef g;
  NodeDef* n = g.add_node();
  n->set_name("a");
  n->set_op("Const");
  {
    EventFileForTest f(logdir.path());
    for (int i = 0; i < 20; ++i) {
      HistogramProto h;
      h.set_min(-i);
      h.set_max(i);
      h.set_num(3);
      h.add_bucket_limit(0);
      h.add_bucket(3);
      f.Histogram("w", i, h);
      f.Image("img", i, 4, 2, "png" + std::to_string(i));
    }
    f.Graph(g);
    RunMetadata md;
    GraphDef* part = md.add_partition_graphs();
    NodeDef* placed = part->add_node();
    placed->set_name("a");
    placed->set_device("/job:localhost/replica:0/task:0/device:CPU:1");
    for (int i = 0; i < 105; ++i) f.Metadata("step_" + std::to_string(i), i, i == 104 ? md : RunMetadata());
  }
  RunStoreOptions o = Options(logdir.path());
  o.max_histograms = 5;
  RunStore store(o);
  store.Reload();
  auto histos = store.GetHistograms(".", "w");
  ASSERT_TRUE(histos.ok());
  ASSERT_EQ(histos->size(), 5u);
  EXPECT_EQ(histos->back().step, 19);
  EXPECT_EQ(histos->back().histo.max(), 19);

  auto images = store.GetImages(".", "img");
  ASSERT_TRUE(images.ok());
  ASSERT_EQ(images->size(), 10u);  // the newest 10
  EXPECT_EQ(images->front().step, 10);
  EXPECT_EQ(images->back().index, 19);
  EXPECT_EQ(images->back().width, 4);
  EXPECT_EQ(*store.GetImage(".", "img", 19), "png19");
  EXPECT_EQ(store.GetImage(".", "img", 3).status().code(), Code::kNotFound);

  RunSummary run = store.ListRuns()[0];
  EXPECT_TRUE(run.has_graph);
  EXPECT_EQ(run.run_metadata_tags.size(), 100u);  // the newest 100 tags
  EXPECT_EQ(store.GetRunMetadata(".", "step_4").status().code(), Code::kNotFound);
  EXPECT_TRUE(store.GetRunMetadata(".", "step_5").ok());
  auto graph = store.GetGraph(".");
  ASSERT_TRUE(graph.ok());
  EXPECT_EQ(graph->graph_def, g.SerializeAsString());
  EXPECT_EQ(graph->placement.at("a"), "/job:localhost/replica:0/task:0/device:CPU:1");
}

TEST(RunStoreTest, DamagedRecordsAreReportedAndSkipped) {
  TempDir logdir;
  std::string path;
  {
    EventFileForTest f(logdir.path());
    for (int i = 0; i < 3; ++i) f.Scalar("loss", i, 1.0f);
    path = f.path();
  }
  // Where the record of step 1 (the third record) begins.
  uint64_t offset = 0;
  {
    auto reader = RecordReader::Open(path);
    ASSERT_TRUE(reader.ok());
    std::string record;
    for (int i = 0; i < 2; ++i) ASSERT_TRUE((*reader)->ReadRecord(&offset, &record).ok());
  }
  {
    std::fstream io(path, std::ios::binary | std::ios::in | std::ios::out);
    io.seekp(static_cast<std::streamoff>(offset + 14));  // inside its data
    io.put('\x7f');
  }
  std::vector<Status> errors;
  RunStoreOptions o = Options(logdir.path());
  o.on_error = [&](const Status& s) { errors.push_back(s); };
  RunStore store(o);
  store.Reload();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].code(), Code::kDataLoss);
  EXPECT_NE(errors[0].message().find(path), std::string::npos) << errors[0];
  EXPECT_EQ(Scalars(store, ".", "loss").step, (std::vector<int64_t>{0, 2}));
  store.Reload();  // reported once, not on every reload
  EXPECT_EQ(errors.size(), 1u);
}

TEST(RunStoreTest, TheTailerThreadPicksUpNewEvents) {
  TempDir logdir;
  RunStoreOptions o = Options(logdir.path());
  o.reload_ms = 10;
  RunStore store(o);
  store.Start();
  EventFileForTest f(logdir.path());
  f.Scalar("loss", 3, 1.5f);
  f.Flush();
  ScalarSeries s;
  for (int i = 0; i < 1000 && !store.GetScalars(".", "loss", INT64_MIN, INT64_MAX, 10, &s).ok(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(s.step, (std::vector<int64_t>{3}));
  store.Stop();
  store.Stop();  // idempotent
}

TEST(RunStoreTest, ReadersAndTheTailerRunConcurrently) {
  TempDir logdir;
  RunStoreOptions o = Options(logdir.path());
  o.reload_ms = 1;
  o.max_scalars = 500;
  RunStore store(o);
  store.Start();
  std::atomic<bool> done{false};
  std::thread reader([&] {
    ScalarSeries s;
    while (!done.load()) {
      for (const RunSummary& r : store.ListRuns())
        if (store.GetScalars(r.name, "loss", INT64_MIN, INT64_MAX, 100, &s).ok() && !s.step.empty()) {
          EXPECT_TRUE(std::is_sorted(s.step.begin(), s.step.end()));
        }
    }
  });
  {
    EventFileForTest f(logdir.path());
    for (int i = 0; i < 2000; ++i) {
      f.Scalar("loss", i, 1.0f);
      if (i % 100 == 99) f.Flush();
    }
  }
  ScalarSeries s;
  for (int i = 0; i < 1000; ++i) {
    if (store.GetScalars(".", "loss", INT64_MIN, INT64_MAX, 100000, &s).ok() && s.seen == 2000) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  done = true;
  reader.join();
  store.Stop();
  EXPECT_EQ(s.seen, 2000u);
  EXPECT_EQ(s.step.size(), 500u);
  EXPECT_EQ(s.step.back(), 1999);
}

}  // namespace
}  // namespace flowvm::board
