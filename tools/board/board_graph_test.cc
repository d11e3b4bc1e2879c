// The board's graph JSON: requested device names resolved to the devices a
// traced step ran on, where they name exactly one.
#include "board/board_graph.h"

#include <gtest/gtest.h>

namespace flowvm::board {
namespace {

TEST(BoardGraphTest, ARequestedDeviceResolvesToTheOnePlacedDeviceItNames) {
  const std::set<std::string> placed = {"/job:ps/replica:0/task:0/device:CPU:0",
                                        "/job:worker/replica:0/task:0/device:CPU:0",
                                        "/job:worker/replica:0/task:1/device:CPU:0",
                                        "/job:worker/replica:0/task:1/device:CPU:1"};
  EXPECT_EQ(ResolveRequestedDevice("/job:ps/task:0", placed), "/job:ps/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(ResolveRequestedDevice("/job:worker/task:0", placed), "/job:worker/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(ResolveRequestedDevice("/job:worker/task:1/device:CPU:1", placed),
            "/job:worker/replica:0/task:1/device:CPU:1");
  EXPECT_EQ(ResolveRequestedDevice("/job:worker/task:1/cpu:1", placed), "/job:worker/replica:0/task:1/device:CPU:1");
  // Several match, or none: what was asked for stays.
  EXPECT_EQ(ResolveRequestedDevice("/job:worker/task:1", placed), "/job:worker/task:1");
  EXPECT_EQ(ResolveRequestedDevice("/job:worker", placed), "/job:worker");
  EXPECT_EQ(ResolveRequestedDevice("/job:eval/task:0", placed), "/job:eval/task:0");
  EXPECT_EQ(ResolveRequestedDevice("", placed), "");
  EXPECT_EQ(ResolveRequestedDevice("/job:ps/task:0", {}), "/job:ps/task:0");
}

TEST(BoardGraphTest, NodesTheTracedStepDidNotRunAreColouredByTheirRequestedDevice) {
  GraphDef graph;
  NodeDef* ran = graph.add_node();
  ran->set_name("w");
  ran->set_op("NoOp");
  ran->set_device("/job:ps/task:0");
  NodeDef* init = graph.add_node();
  init->set_name("init");
  init->set_op("NoOp");
  init->set_device("/job:ps/task:0");
  const std::string json =
      GraphToJson("run", graph, {{"w", "/job:ps/replica:0/task:0/device:CPU:0"}});
  EXPECT_NE(json.find("\"devices\":[\"/job:ps/replica:0/task:0/device:CPU:0\"]"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"device\":\"/job:ps/task:0\""), std::string::npos) << json;
}

}  // namespace
}  // namespace flowvm::board
