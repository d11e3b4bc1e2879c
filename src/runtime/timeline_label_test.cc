// ParseTimelineLabel / FormatTimelineLabel: the executor's labels round-trip,
// and text that is not a label gives op "unknown" instead of a bad guess.
#include "runtime/timeline_label.h"

#include <gtest/gtest.h>

namespace flowvm {
namespace {

using Inputs = std::vector<std::string>;

TEST(TimelineLabelTest, OrdinaryNode) {
  TimelineLabel l = ParseTimelineLabel("layer1/MatMul = MatMul(x, layer1/w:1, ^init)");
  EXPECT_EQ(l.node, "layer1/MatMul");
  EXPECT_EQ(l.op, "MatMul");
  EXPECT_EQ(l.inputs, (Inputs{"x", "layer1/w:1", "^init"}));
  EXPECT_FALSE(l.has_transfer);
}

TEST(TimelineLabelTest, NoInputs) {
  TimelineLabel l = ParseTimelineLabel("c = Const()");
  EXPECT_EQ(l.node, "c");
  EXPECT_EQ(l.op, "Const");
  EXPECT_TRUE(l.inputs.empty());
  EXPECT_FALSE(l.has_transfer);
}

TEST(TimelineLabelTest, RecvAndSendCarryTheTransfer) {
  const std::string cpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
  const std::string cpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";
  TimelineLabel r = ParseTimelineLabel("b/_recv_a_0 = _Recv() a:0 from " + cpu0 + " to " + cpu1);
  EXPECT_EQ(r.node, "b/_recv_a_0");
  EXPECT_EQ(r.op, "_Recv");
  EXPECT_TRUE(r.inputs.empty());
  ASSERT_TRUE(r.has_transfer);
  EXPECT_EQ(r.tensor_name, "a:0");
  EXPECT_EQ(r.send_device, cpu0);
  EXPECT_EQ(r.recv_device, cpu1);
  EXPECT_TRUE(IsRecvOp(r.op));
  EXPECT_FALSE(IsSendOp(r.op));

  TimelineLabel s = ParseTimelineLabel("a/_send_0 = _Send(a) a:0 from " + cpu0 + " to " + cpu1);
  EXPECT_EQ(s.op, "_Send");
  EXPECT_EQ(s.inputs, (Inputs{"a"}));
  ASSERT_TRUE(s.has_transfer);
  EXPECT_EQ(s.tensor_name, "a:0");
  EXPECT_EQ(s.send_device, cpu0);
  EXPECT_EQ(s.recv_device, cpu1);
  EXPECT_TRUE(IsSendOp(s.op));
  EXPECT_TRUE(IsSendOp("_HostSend"));
  EXPECT_TRUE(IsRecvOp("_HostRecv"));
}

TEST(TimelineLabelTest, FormatRoundTrips) {
  std::string plain = FormatTimelineLabel("y", "Add", {"x", "b:2"});
  EXPECT_EQ(plain, "y = Add(x, b:2)");
  TimelineLabel p = ParseTimelineLabel(plain);
  EXPECT_EQ(p.op, "Add");
  EXPECT_EQ(p.inputs, (Inputs{"x", "b:2"}));

  std::string recv = FormatTransferLabel("r", "_Recv", {}, "a:0", "/device:CPU:0", "/device:CPU:1");
  EXPECT_EQ(recv, "r = _Recv() a:0 from /device:CPU:0 to /device:CPU:1");
  TimelineLabel t = ParseTimelineLabel(recv);
  EXPECT_TRUE(t.has_transfer);
  EXPECT_EQ(t.tensor_name, "a:0");
  EXPECT_EQ(t.recv_device, "/device:CPU:1");
}

TEST(TimelineLabelTest, TextThatIsNotALabelIsUnknown) {
  for (const char* text : {"", "x", "x = ", " = MatMul(a)", "x = MatMul(a", "x = MatMul a)", "x = (a)",
                           "x = Mat Mul(a)", "x = MatMul(a)junk", "x=MatMul(a)"}) {
    TimelineLabel l = ParseTimelineLabel(text);
    EXPECT_EQ(l.op, "unknown") << "'" << text << "'";
    EXPECT_TRUE(l.node.empty()) << "'" << text << "'";
    EXPECT_TRUE(l.inputs.empty()) << "'" << text << "'";
    EXPECT_FALSE(l.has_transfer) << "'" << text << "'";
  }
}

TEST(TimelineLabelTest, MalformedTransferSuffixIsIgnored) {
  for (const char* text : {"r = _Recv() a:0 from /device:CPU:0", "r = _Recv() a:0", "r = _Recv()  from x to y",
                           "r = _Recv() a:0 from  to /device:CPU:1"}) {
    TimelineLabel l = ParseTimelineLabel(text);
    EXPECT_EQ(l.op, "_Recv") << text;
    EXPECT_FALSE(l.has_transfer) << text;
  }
}

}  // namespace
}  // namespace flowvm
