// A word-count map-reduce built with the generated op builders and run by a
// session: each shard is read (ReadFile), split into words (StringSplitV2)
// and counted (UniqueWithCounts); the shards' words and counts are
// concatenated (ConcatV2 of strings and of int32) and reduced (Unique, then
// UnsortedSegmentSum of the counts by the int64 ids). Checked against a
// std::map, with the files fed by name and with constant names (which
// constant folding evaluates while the step is prepared).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flowvm/cc/client_session.h"
#include "flowvm/cc/ops.h"

namespace flowvm {
namespace {

class WordCountTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/word_count_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // The map-reduce over one input per shard (a filename: fed or constant).
  struct Graph {
    Output words, counts;
  };
  static Graph Build(const Scope& root, const std::vector<Input>& filenames) {
    std::vector<Output> shard_words, shard_counts;
    for (size_t i = 0; i < filenames.size(); ++i) {
      const Scope s = root.NewSubScope("shard" + std::to_string(i));
      auto text = ops::ReadFile(s, filenames[i]);
      auto split = ops::StringSplitV2(s, ops::Reshape(s, text, {1}), "");
      auto counted = ops::UniqueWithCounts(s, split.values);
      shard_words.push_back(counted.y);
      shard_counts.push_back(counted.count);
    }
    const Scope r = root.NewSubScope("reduce");
    auto words = ops::ConcatV2(r, shard_words, 0);
    auto counts = ops::ConcatV2(r, shard_counts, 0);
    auto unique = ops::Unique(r, words, ops::Unique::OutIdx(DT_INT64));
    auto totals = ops::UnsortedSegmentSum(r, counts, unique.idx, ops::Size(r, unique.y));
    return {unique.y, totals};
  }

  static std::map<std::string, int32_t> Expected(const std::vector<std::string>& texts) {
    std::map<std::string, int32_t> counts;
    for (const std::string& t : texts) {
      std::istringstream in(t);
      for (std::string w; in >> w;) ++counts[w];
    }
    return counts;
  }

  static std::map<std::string, int32_t> AsMap(const Tensor& words, const Tensor& counts) {
    std::map<std::string, int32_t> m;
    EXPECT_EQ(words.NumElements(), counts.NumElements());
    for (int64_t i = 0; i < words.NumElements(); ++i) {
      EXPECT_TRUE(m.emplace(words.data<std::string>()[i], counts.data<int32_t>()[i]).second)
          << "word listed twice: " << words.data<std::string>()[i];
    }
    return m;
  }

  std::string dir_;
};

std::vector<std::string> Texts() {
  std::vector<std::string> texts(3);
  uint32_t r = 7;
  for (int shard = 0; shard < 3; ++shard) {
    for (int i = 0; i < 20000; ++i) {
      r = r * 1664525u + 1013904223u;
      texts[shard] += "w" + std::to_string((r >> 10) % (500 + 300 * shard));
      texts[shard] += (i % 12 == 11) ? "\n" : (i % 5 == 0 ? " \t " : " ");
    }
  }
  texts[2] += "\n\n   only-in-shard-2 \n";
  return texts;
}

TEST_F(WordCountTest, FedFilenames) {
  const std::vector<std::string> texts = Texts();
  Scope root = Scope::NewRootScope();
  std::vector<Output> names;
  std::vector<Input> inputs;
  for (int i = 0; i < 3; ++i) {
    names.push_back(ops::Placeholder(root.WithOpName("file" + std::to_string(i)), DT_STRING));
    inputs.emplace_back(names.back());
  }
  Graph g = Build(root, inputs);
  ASSERT_TRUE(root.ok()) << root.status();
  ClientSession session(root);
  ClientSession::FeedType feeds;
  for (int i = 0; i < 3; ++i)
    feeds[names[i]] = Tensor::Scalar<std::string>(Write("part" + std::to_string(i), texts[i]));
  std::vector<Tensor> out;
  Status s = session.Run(feeds, {g.words, g.counts}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(AsMap(out[0], out[1]), Expected(texts));

  // The files are read at every step: new contents, new counts.
  const std::vector<std::string> again = {"b a b", "", "a  c\n"};
  for (int i = 0; i < 3; ++i) Write("part" + std::to_string(i), again[i]);
  s = session.Run(feeds, {g.words, g.counts}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(AsMap(out[0], out[1]), Expected(again));
  // First-occurrence order, shard by shard.
  ASSERT_EQ(out[0].NumElements(), 3);
  EXPECT_EQ(out[0].data<std::string>()[0], "b");
  EXPECT_EQ(out[0].data<std::string>()[1], "a");
  EXPECT_EQ(out[0].data<std::string>()[2], "c");

  // A missing shard fails the step with NotFound naming the file and node.
  feeds[names[1]] = Tensor::Scalar<std::string>(dir_ + "/missing_part");
  s = session.Run(feeds, {g.words, g.counts}, &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kNotFound) << s;
  EXPECT_NE(s.message().find(dir_ + "/missing_part"), std::string::npos) << s;
  EXPECT_NE(s.ToString().find("shard1/ReadFile"), std::string::npos) << s;
}

TEST_F(WordCountTest, ConstantFilenames) {
  const std::vector<std::string> texts = Texts();
  Scope root = Scope::NewRootScope();
  std::vector<Input> inputs;
  for (int i = 0; i < 3; ++i) inputs.emplace_back(Write("part" + std::to_string(i), texts[i]));
  Graph g = Build(root, inputs);
  ASSERT_TRUE(root.ok()) << root.status();
  ClientSession session(root);
  std::vector<Tensor> out;
  Status s = session.Run({g.words, g.counts}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(AsMap(out[0], out[1]), Expected(texts));
}

}  // namespace
}  // namespace flowvm
