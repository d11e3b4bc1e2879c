// The command line with several devices: --cpu-devices, --soft-placement,
// -v explaining placement and transfers, `inspect --placement`, --trace
// writing a Chrome trace, and --timeout-ms.
#include <stdlib.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "util/cli_runner.h"
#include "util/test_paths.h"

namespace flowvm {
namespace {

using testing::CliResult;
using testing::ReadFileBytes;

// y = relu(x @ w) on CPU:0, z = y * 2 on CPU:1; x has a default value (a
// PlaceholderWithDefault, so constant folding leaves the graph alone).
const char kTwoDeviceGraph[] = R"(
node { name: "x_default" op: "Const" device: "/device:CPU:0"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 2 } }
                                            float_val: 1 float_val: -2 } } } }
node { name: "x" op: "PlaceholderWithDefault" input: "x_default" device: "/device:CPU:0"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
node { name: "w" op: "Placeholder" device: "/device:CPU:0"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } dim { size: 2 } } } } }
node { name: "w_value" op: "Const"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } }
                                            float_val: 1 float_val: 2 float_val: 3 float_val: 4 } } } }
node { name: "m" op: "MatMul" input: "x" input: "w_value" device: "/device:CPU:0"
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "y" op: "Relu" input: "m" device: "/device:CPU:0"
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "two" op: "Const" device: "/device:CPU:1"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
node { name: "z" op: "Mul" input: "y" input: "two" device: "/device:CPU:1"
       attr { key: "T" value { type: DT_FLOAT } } }
)";

class DevicesCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/devices_cli_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
    std::ofstream(dir_ + "/g.pbtxt") << kTwoDeviceGraph;
  }
  CliResult Run(const std::string& args) { return testing::RunCli(dir_, args); }
  std::string dir_;
};

TEST_F(DevicesCliTest, RunsOnTwoDevicesAndExplainsThePlacement) {
  // x @ w = [1*1 - 2*3, 1*2 - 2*4] = [-5, -6]; relu -> 0; * 2 -> 0. Use
  // a fetch of m too.
  CliResult r = Run("run g.pbtxt --fetch z --fetch m --cpu-devices 2 --threads 1 -v");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("z:0 float [1,2] [[0 0]]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("m:0 float [1,2] [[-5 -6]]"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("placement (node -> device (why))"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("z -> CPU:1 (requested '/device:CPU:1')"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 partitions, 1 transfer between devices"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("y:0 CPU:0 -> CPU:1 (1 consumer)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("optimization passes"), std::string::npos) << r.err;
}

TEST_F(DevicesCliTest, MissingDevicesFailUnlessSoftPlacement) {
  CliResult r = Run("run g.pbtxt --fetch z");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("InvalidArgument: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("node 'two' (Const) requests device '/device:CPU:1', which does not exist"),
            std::string::npos)
      << r.err;
  r = Run("run g.pbtxt --fetch z --soft-placement");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("z:0 float [1,2] [[0 0]]"), std::string::npos) << r.out;
}

TEST_F(DevicesCliTest, InspectPlacementSaysWhereAndWhy) {
  CliResult r = Run("inspect g.pbtxt --placement --cpu-devices 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("on 2 devices"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("m (MatMul) -> CPU:0: requested '/device:CPU:0'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("w_value (Const) -> CPU:0: with its first consumer, m (cost model)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("y:0 CPU:0 -> CPU:1 (1 consumer)"), std::string::npos) << r.out;
  r = Run("inspect g.pbtxt --placement");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  // Plain inspect checks the devices as a session with the same flags would.
  r = Run("inspect g.pbtxt");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("error: InvalidArgument: node 'two' (Const) requests device '/device:CPU:1'"),
            std::string::npos)
      << r.out;
  r = Run("inspect g.pbtxt --cpu-devices 2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("valid:"), std::string::npos) << r.out;
}

TEST_F(DevicesCliTest, TraceWritesChromeTraceJson) {
  CliResult r = Run("run g.pbtxt --fetch z --cpu-devices 2 --repeat 2 --trace t.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("wrote a trace of step"), std::string::npos) << r.err;
  const std::string text = ReadFileBytes(dir_ + "/t.json");
  ASSERT_FALSE(text.empty());
  nlohmann::json trace = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(trace.is_discarded()) << text.substr(0, 400);
  int slices = 0, flows = 0;
  std::set<std::string> processes;
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e.value("ph", "");
    if (ph == "X") ++slices;
    if (ph == "s" || ph == "f") ++flows;
    if (ph == "M" && e.value("name", "") == "process_name") processes.insert(e["args"].value("name", ""));
  }
  EXPECT_GE(slices, 8);  // every node of both partitions, Send and Recv included
  EXPECT_EQ(flows, 2);   // one Send -> Recv arrow
  EXPECT_EQ(processes.count("/job:localhost/replica:0/task:0/device:CPU:0"), 1u);
  EXPECT_EQ(processes.count("/job:localhost/replica:0/task:0/device:CPU:1"), 1u);
}

TEST_F(DevicesCliTest, TimeoutStopsASlowStep) {
  // Ten 1024^2 MatMuls of random values: far more than 20 ms of work.
  std::string graph = R"(
node { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 1024 int_val: 1024 } } } }
node { name: "r" op: "RandomUniform" input: "shape" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "T" value { type: DT_INT32 } } }
node { name: "m0" op: "MatMul" input: "r" input: "r" attr { key: "T" value { type: DT_FLOAT } } }
)";
  for (int i = 1; i < 10; ++i)
    graph += "node { name: \"m" + std::to_string(i) + "\" op: \"MatMul\" input: \"m" + std::to_string(i - 1) +
             "\" input: \"r\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
  std::ofstream(dir_ + "/slow.pbtxt") << graph;
  CliResult r = Run("run slow.pbtxt --fetch m9 --threads 1 --timeout-ms 20");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("DeadlineExceeded: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("deadline of 20 ms"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace flowvm
