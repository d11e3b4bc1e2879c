// `flowvm run` on a GraphDef whose loop nodes ask for different devices
// (issue 27, section 6): the loop runs, and -v says which control-flow
// nodes moved and why.
#include <stdlib.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "util/cli_runner.h"

namespace flowvm {
namespace {

using testing::CliResult;

// sum(i for i in 1..10) = 55 as tf.while_loop writes it, its Merges on
// CPU:1 and its NextIterations, Switches, Exits and Enters asked on CPU:0.
const char kLoopGraph[] = R"(
node { name: "start" op: "Const"
       attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
node { name: "zero" op: "Const"
       attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }
node { name: "limit" op: "Const"
       attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 11 } } } }
node { name: "while/Enter" op: "Enter" input: "start" device: "/device:CPU:0"
       attr { key: "T" value { type: DT_INT32 } }
       attr { key: "frame_name" value { s: "while/while_context" } }
       attr { key: "is_constant" value { b: false } }
       attr { key: "parallel_iterations" value { i: 10 } } }
node { name: "while/Enter_1" op: "Enter" input: "zero" device: "/device:CPU:0"
       attr { key: "T" value { type: DT_INT32 } }
       attr { key: "frame_name" value { s: "while/while_context" } }
       attr { key: "is_constant" value { b: false } }
       attr { key: "parallel_iterations" value { i: 10 } } }
node { name: "while/Less/Enter" op: "Enter" input: "limit" device: "/device:CPU:0"
       attr { key: "T" value { type: DT_INT32 } }
       attr { key: "frame_name" value { s: "while/while_context" } }
       attr { key: "is_constant" value { b: true } }
       attr { key: "parallel_iterations" value { i: 10 } } }
node { name: "while/Merge" op: "Merge" input: "while/Enter" input: "while/NextIteration" device: "/device:CPU:1"
       attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/Merge_1" op: "Merge" input: "while/Enter_1" input: "while/NextIteration_1"
       device: "/device:CPU:1"
       attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/Less" op: "Less" input: "while/Merge" input: "while/Less/Enter" device: "/device:CPU:0"
       attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/LoopCond" op: "LoopCond" input: "while/Less" device: "/device:CPU:0" }
node { name: "while/Switch" op: "Switch" input: "while/Merge" input: "while/LoopCond" device: "/device:CPU:0"
       attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/Switch_1" op: "Switch" input: "while/Merge_1" input: "while/LoopCond" device: "/device:CPU:0"
       attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/Identity" op: "Identity" input: "while/Switch:1" attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/Identity_1" op: "Identity" input: "while/Switch_1:1" attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/add/y" op: "Const" input: "^while/Identity"
       attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
node { name: "while/add" op: "Add" input: "while/Identity" input: "while/add/y" device: "/device:CPU:0"
       attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/add_1" op: "Add" input: "while/Identity_1" input: "while/Identity" device: "/device:CPU:0"
       attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/NextIteration" op: "NextIteration" input: "while/add" device: "/device:CPU:0"
       attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/NextIteration_1" op: "NextIteration" input: "while/add_1" device: "/device:CPU:0"
       attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/Exit" op: "Exit" input: "while/Switch" device: "/device:CPU:0"
       attr { key: "T" value { type: DT_INT32 } } }
node { name: "while/Exit_1" op: "Exit" input: "while/Switch_1" device: "/device:CPU:0"
       attr { key: "T" value { type: DT_INT32 } } }
versions { producer: 27 }
)";

class ControlFlowDevicesCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/cf_devices_cli_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
    std::ofstream(dir_ + "/loop.pbtxt") << kLoopGraph;
  }
  CliResult Run(const std::string& args) { return testing::RunCli(dir_, args); }
  std::string dir_;
};

TEST_F(ControlFlowDevicesCliTest, ALoopWhoseNodesAskForDifferentDevicesRuns) {
  for (const char* cpus : {"2", "3"}) {
    SCOPED_TRACE(std::string(cpus) + " CPUs");
    CliResult r = Run(std::string("run loop.pbtxt --fetch while/Exit_1 --fetch while/Exit --cpu-devices ") + cpus +
                      " -v");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("while/Exit_1:0 int32 [] 55"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("while/Exit:0 int32 [] 11"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("while/NextIteration_1 -> CPU:1 (colocated with while/Merge_1 (the loop's back edge); its "
                         "request '/device:CPU:0' gives way: a NextIteration runs beside its Merge (as in "
                         "TensorFlow))"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("while/Switch_1 -> CPU:1 (beside while/Merge_1, its data input: a Switch runs where the "
                         "value it routes is (as in TensorFlow); its request '/device:CPU:0' gives way)"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("while/Exit_1 -> CPU:1 (beside while/Switch_1, its input: an Exit runs where its input is"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("while/Enter_1 -> CPU:1 (beside while/Merge_1, its first consumer: an Enter runs where its "
                         "value is used"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("while/add_1 -> CPU:0 (requested '/device:CPU:0')"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace flowvm
