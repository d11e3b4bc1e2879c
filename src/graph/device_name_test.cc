// Device names: every form ParseDeviceName accepts and rejects (with what the
// message says), canonical strings and round trips, matching, compatibility
// and merging.
#include "graph/device_name.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace flowvm {
namespace {

DeviceNameParts Parse(std::string_view name) {
  auto p = ParseDeviceName(name);
  EXPECT_TRUE(p.ok()) << "'" << name << "': " << p.status();
  return p.ok() ? *p : DeviceNameParts{};
}

std::string Canonical(std::string_view name) {
  auto s = CanonicalizeDeviceName(name);
  EXPECT_TRUE(s.ok()) << "'" << name << "': " << s.status();
  return s.ok() ? *s : "<error>";
}

// The error message for `name`, which must be rejected with InvalidArgument.
std::string ErrorOf(std::string_view name) {
  auto p = ParseDeviceName(name);
  EXPECT_FALSE(p.ok()) << "'" << name << "' parsed as " << (p.ok() ? DeviceNameToString(*p) : "");
  if (p.ok()) return "";
  EXPECT_EQ(p.status().code(), Code::kInvalidArgument) << p.status();
  EXPECT_FALSE(IsValidDeviceName(name));
  return p.status().message();
}

#define EXPECT_CONTAINS(haystack, needle)                          \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) \
      << "'" << (haystack) << "' lacks '" << (needle) << "'"

DeviceNameParts Full(const std::string& job, int replica, int task, const std::string& type, int id) {
  DeviceNameParts p;
  p.has_job = p.has_replica = p.has_task = p.has_type = p.has_id = true;
  p.job = job;
  p.replica = replica;
  p.task = task;
  p.type = type;
  p.id = id;
  return p;
}

TEST(ParseDeviceNameTest, FullName) {
  DeviceNameParts p = Parse("/job:worker/replica:0/task:1/device:CPU:0");
  EXPECT_TRUE(p.has_job);
  EXPECT_EQ(p.job, "worker");
  EXPECT_TRUE(p.has_replica);
  EXPECT_EQ(p.replica, 0);
  EXPECT_TRUE(p.has_task);
  EXPECT_EQ(p.task, 1);
  EXPECT_TRUE(p.has_type);
  EXPECT_EQ(p.type, "CPU");
  EXPECT_TRUE(p.has_id);
  EXPECT_EQ(p.id, 0);
  EXPECT_TRUE(IsFullySpecified(p));
  EXPECT_EQ(p, Full("worker", 0, 1, "CPU", 0));
  EXPECT_EQ(DeviceNameToString(p), "/job:worker/replica:0/task:1/device:CPU:0");
  EXPECT_EQ(Parse("/job:ps/replica:3/task:12/device:GPU:7"), Full("ps", 3, 12, "GPU", 7));
  EXPECT_EQ(Parse("/job:localhost/replica:0/task:0/device:XLA_CPU:0"), Full("localhost", 0, 0, "XLA_CPU", 0));
}

TEST(ParseDeviceNameTest, EmptyMeansAnything) {
  for (std::string_view name : {"", "/"}) {
    DeviceNameParts p = Parse(name);
    EXPECT_EQ(p, DeviceNameParts{}) << name;
    EXPECT_FALSE(p.has_job || p.has_replica || p.has_task || p.has_type || p.has_id);
    EXPECT_FALSE(IsFullySpecified(p));
    EXPECT_EQ(DeviceNameToString(p), "");
  }
}

TEST(ParseDeviceNameTest, PartialNames) {
  DeviceNameParts p = Parse("/job:ps");
  EXPECT_TRUE(p.has_job);
  EXPECT_EQ(p.job, "ps");
  EXPECT_FALSE(p.has_replica || p.has_task || p.has_type || p.has_id);

  p = Parse("/task:2");
  EXPECT_TRUE(p.has_task);
  EXPECT_EQ(p.task, 2);
  EXPECT_FALSE(p.has_job || p.has_replica || p.has_type || p.has_id);

  p = Parse("/replica:5");
  EXPECT_TRUE(p.has_replica);
  EXPECT_EQ(p.replica, 5);

  p = Parse("/device:CPU:1");
  EXPECT_FALSE(p.has_job || p.has_replica || p.has_task);
  EXPECT_TRUE(p.has_type);
  EXPECT_EQ(p.type, "CPU");
  EXPECT_TRUE(p.has_id);
  EXPECT_EQ(p.id, 1);

  p = Parse("/job:worker/task:3/device:GPU:0");
  EXPECT_EQ(p.job, "worker");
  EXPECT_FALSE(p.has_replica);
  EXPECT_EQ(p.task, 3);
  EXPECT_EQ(p.type, "GPU");
  EXPECT_EQ(p.id, 0);
  EXPECT_FALSE(IsFullySpecified(p));
}

TEST(ParseDeviceNameTest, Wildcards) {
  DeviceNameParts p = Parse("/device:CPU:*");
  EXPECT_TRUE(p.has_type);
  EXPECT_EQ(p.type, "CPU");
  EXPECT_FALSE(p.has_id);
  EXPECT_EQ(DeviceNameToString(p), "/device:CPU:*");

  // "/device:CPU" without an id means any id, as in TensorFlow.
  EXPECT_EQ(Parse("/device:CPU"), p);

  // Every part may be '*', which is the same as leaving it out.
  EXPECT_EQ(Parse("/job:*/replica:*/task:*/device:*:*"), DeviceNameParts{});
  EXPECT_EQ(Parse("/device:*"), DeviceNameParts{});
  EXPECT_EQ(Parse("/job:*/task:1"), Parse("/task:1"));
  EXPECT_EQ(Canonical("/job:ps/task:*"), "/job:ps");

  // An id without a type.
  p = Parse("/device:*:3");
  EXPECT_FALSE(p.has_type);
  EXPECT_TRUE(p.has_id);
  EXPECT_EQ(p.id, 3);
  EXPECT_EQ(DeviceNameToString(p), "/device:*:3");

  EXPECT_EQ(Parse("/cpu:*"), Parse("/device:CPU:*"));
  EXPECT_EQ(Parse("/job:ps/gpu:*"), Parse("/job:ps/device:GPU:*"));
}

TEST(ParseDeviceNameTest, LegacyForms) {
  EXPECT_EQ(Canonical("/cpu:0"), "/device:CPU:0");
  EXPECT_EQ(Canonical("/CPU:0"), "/device:CPU:0");
  EXPECT_EQ(Canonical("/gpu:1"), "/device:GPU:1");
  EXPECT_EQ(Canonical("/GPU:1"), "/device:GPU:1");
  EXPECT_EQ(Canonical("/job:ps/cpu:0"), "/job:ps/device:CPU:0");
  EXPECT_EQ(Canonical("/job:worker/replica:0/task:2/gpu:3"), "/job:worker/replica:0/task:2/device:GPU:3");
  EXPECT_EQ(Canonical("/device:cpu:0"), "/device:CPU:0");
  EXPECT_EQ(Canonical("/device:gpu:2"), "/device:GPU:2");
  EXPECT_EQ(Parse("/job:ps/cpu:0"), Parse("/job:ps/device:CPU:0"));
}

TEST(ParseDeviceNameTest, LocalFormWithoutLeadingSlash) {
  EXPECT_EQ(Canonical("CPU:0"), "/device:CPU:0");
  EXPECT_EQ(Canonical("cpu:0"), "/device:CPU:0");
  EXPECT_EQ(Canonical("GPU:1"), "/device:GPU:1");
  EXPECT_EQ(Canonical("gpu:1"), "/device:GPU:1");
  EXPECT_EQ(Canonical("TPU:4"), "/device:TPU:4");
  EXPECT_EQ(Canonical("CPU:*"), "/device:CPU:*");
  DeviceNameParts p = Parse("CPU:0");
  EXPECT_FALSE(p.has_job || p.has_replica || p.has_task);
}

TEST(ParseDeviceNameTest, TypeSpelling) {
  // Only the legacy lower-case cpu/gpu are rewritten; other types keep their
  // spelling (types compare case-sensitively, as in TensorFlow).
  EXPECT_EQ(Parse("/device:TPU:0").type, "TPU");
  EXPECT_EQ(Parse("/device:tpu:0").type, "tpu");
  EXPECT_EQ(Parse("/device:Cpu:0").type, "Cpu");
  EXPECT_EQ(Parse("/device:XLA_GPU:0").type, "XLA_GPU");
  EXPECT_EQ(Parse("/device:MyDevice2:0").type, "MyDevice2");
  EXPECT_EQ(Parse("/device:CPU:0").type, "CPU");
}

TEST(ParseDeviceNameTest, JobNames) {
  // TensorFlow's IsJobName: [A-Za-z][A-Za-z0-9_]*.
  for (std::string_view job : {"ps", "worker", "w", "chief", "worker_2", "localhost", "Worker", "a1_b2"}) {
    std::string name = "/job:" + std::string(job);
    EXPECT_EQ(Parse(name).job, job);
  }
  for (std::string_view job : {"1ps", "_ps", "my-job", "ps.0", "ps:0", "p s", "ps$"}) {
    std::string name = "/job:" + std::string(job) + "/task:0";
    std::string msg = ErrorOf(name);
    EXPECT_CONTAINS(msg, "job '" + std::string(job) + "' is not a valid job name");
    EXPECT_CONTAINS(msg, "[A-Za-z][A-Za-z0-9_]*");
  }
}

TEST(ParseDeviceNameTest, PartsInAnyOrder) {
  // TensorFlow's parser loops over the parts in any order; so does ours.
  EXPECT_EQ(Parse("/device:CPU:0/task:1/replica:0/job:w"), Full("w", 0, 1, "CPU", 0));
  EXPECT_EQ(Canonical("/task:1/job:w"), "/job:w/task:1");
  EXPECT_EQ(Canonical("/cpu:0/job:ps"), "/job:ps/device:CPU:0");
}

TEST(ParseDeviceNameTest, Numbers) {
  EXPECT_EQ(Parse("/task:2147483647").task, 2147483647);
  EXPECT_EQ(Parse("/replica:2147483647").replica, 2147483647);
  EXPECT_EQ(Parse("/device:CPU:2147483647").id, 2147483647);
  EXPECT_EQ(Parse("/cpu:2147483647").id, 2147483647);
  EXPECT_EQ(Parse("/task:007").task, 7);  // leading zeros, as in TensorFlow
  EXPECT_EQ(Canonical("/task:007"), "/task:7");
  EXPECT_EQ(Parse("/task:0000000000000000000001").task, 1);
}

TEST(ParseDeviceNameTest, Overflow) {
  std::string msg = ErrorOf("/task:2147483648");
  EXPECT_CONTAINS(msg, "device name '/task:2147483648'");
  EXPECT_CONTAINS(msg, "task '2147483648' is out of range (at most 2147483647)");
  EXPECT_CONTAINS(ErrorOf("/replica:99999999999999999999999"), "replica '99999999999999999999999' is out of range");
  EXPECT_CONTAINS(ErrorOf("/device:CPU:4294967296"), "device id '4294967296' is out of range");
  EXPECT_CONTAINS(ErrorOf("/gpu:4294967297"), "device id '4294967297' is out of range");
  EXPECT_CONTAINS(ErrorOf("CPU:2147483648"), "device id '2147483648' is out of range");
}

TEST(ParseDeviceNameTest, BadNumbers) {
  struct Case {
    const char* name;
    const char* what;
  };
  for (const Case& c : std::vector<Case>{{"/task:-1", "task '-1'"},
                                         {"/task:+1", "task '+1'"},
                                         {"/task:1x", "task '1x'"},
                                         {"/task:x", "task 'x'"},
                                         {"/task:1.0", "task '1.0'"},
                                         {"/task:0x10", "task '0x10'"},
                                         {"/replica:one", "replica 'one'"},
                                         {"/device:CPU:-1", "device id '-1'"},
                                         {"/device:CPU:a", "device id 'a'"},
                                         {"/device:CPU:0:1", "device id '0:1'"},
                                         {"/device:CPU:**", "device id '**'"},
                                         {"/cpu:x", "device id 'x'"},
                                         {"/cpu:0:0", "device id '0:0'"},
                                         {"CPU:-1", "device id '-1'"},
                                         {"CPU:0:0", "device id '0:0'"}}) {
    std::string msg = ErrorOf(c.name);
    EXPECT_CONTAINS(msg, std::string("device name '") + c.name + "'");
    EXPECT_CONTAINS(msg, std::string(c.what) + " is not a non-negative integer");
  }
}

TEST(ParseDeviceNameTest, EmptyValues) {
  EXPECT_CONTAINS(ErrorOf("/job:"), "device name '/job:': empty job");
  EXPECT_CONTAINS(ErrorOf("/job:/task:0"), "empty job");
  EXPECT_CONTAINS(ErrorOf("/replica:"), "empty replica");
  EXPECT_CONTAINS(ErrorOf("/task:"), "empty task");
  EXPECT_CONTAINS(ErrorOf("/device:"), "empty device");
  EXPECT_CONTAINS(ErrorOf("/device::0"), "empty device type");
  EXPECT_CONTAINS(ErrorOf("/device:CPU:"), "empty device id");
  EXPECT_CONTAINS(ErrorOf("/cpu:"), "empty device id");
  EXPECT_CONTAINS(ErrorOf("CPU:"), "empty device id");
}

TEST(ParseDeviceNameTest, BadDeviceTypes) {
  for (std::string_view type : {"0CPU", "_CPU", "C-PU", "C.PU", "C PU", "**"}) {
    std::string name = "/device:" + std::string(type) + ":0";
    std::string msg = ErrorOf(name);
    EXPECT_CONTAINS(msg, "device type '" + std::string(type) + "' is not a valid type name");
  }
}

TEST(ParseDeviceNameTest, PartGivenTwice) {
  EXPECT_CONTAINS(ErrorOf("/job:a/job:b"), "device name '/job:a/job:b': job is given twice ('/job:a' and '/job:b')");
  EXPECT_CONTAINS(ErrorOf("/job:a/job:a"), "job is given twice");
  EXPECT_CONTAINS(ErrorOf("/job:*/job:a"), "job is given twice");
  EXPECT_CONTAINS(ErrorOf("/replica:0/replica:0"), "replica is given twice");
  EXPECT_CONTAINS(ErrorOf("/task:0/job:a/task:1"), "task is given twice ('/task:0' and '/task:1')");
  EXPECT_CONTAINS(ErrorOf("/device:CPU:0/device:CPU:0"), "device is given twice");
  // The legacy forms name the device too.
  EXPECT_CONTAINS(ErrorOf("/device:CPU:0/cpu:0"), "device is given twice ('/device:CPU:0' and '/cpu:0')");
  EXPECT_CONTAINS(ErrorOf("/cpu:0/gpu:0"), "device is given twice ('/cpu:0' and '/gpu:0')");
}

TEST(ParseDeviceNameTest, UnknownParts) {
  std::string msg = ErrorOf("/foo:1");
  EXPECT_CONTAINS(msg, "device name '/foo:1': unknown part '/foo:1'");
  EXPECT_CONTAINS(msg, "/job:, /replica:, /task:, /device:");
  EXPECT_CONTAINS(ErrorOf("/job:ps/foo:1"), "unknown part '/foo:1'");
  EXPECT_CONTAINS(ErrorOf("/Job:ps"), "unknown part '/Job:ps'");
  EXPECT_CONTAINS(ErrorOf("/tpu:0"), "unknown part '/tpu:0'");  // only cpu/gpu have legacy forms
  EXPECT_CONTAINS(ErrorOf("/Cpu:0"), "unknown part '/Cpu:0'");
  EXPECT_CONTAINS(ErrorOf("/job:ps/task:0x"), "task '0x'");
  EXPECT_CONTAINS(ErrorOf("/job"), "part '/job' has no value");
  EXPECT_CONTAINS(ErrorOf("/job:ps/task"), "part '/task' has no value");
  EXPECT_CONTAINS(ErrorOf("/device"), "part '/device' has no value");
  EXPECT_CONTAINS(ErrorOf("/cpu"), "'/cpu' needs an id, as in '/cpu:0' or '/cpu:*'");
  EXPECT_CONTAINS(ErrorOf("/job:ps/GPU"), "'/GPU' needs an id");
}

TEST(ParseDeviceNameTest, StraySlashes) {
  EXPECT_CONTAINS(ErrorOf("/job:ps/"), "device name '/job:ps/': ends with '/'");
  EXPECT_CONTAINS(ErrorOf("//job:ps"), "has an empty part ('//')");
  EXPECT_CONTAINS(ErrorOf("/job:ps//task:0"), "has an empty part ('//')");
  EXPECT_CONTAINS(ErrorOf("//"), "has an empty part ('//')");
}

TEST(ParseDeviceNameTest, WithoutLeadingSlash) {
  // Only the local form TYPE:ID may omit the '/'.
  for (std::string_view name : {"CPU", "cpu", "job", "0:1", "*:0", "C-PU:0", "ps/task:0", "CPU:0/job:ps"}) {
    std::string msg = ErrorOf(name);
    EXPECT_CONTAINS(msg, "device name '" + std::string(name) + "': expected a name that starts with '/'");
    EXPECT_CONTAINS(msg, "TYPE:ID");
  }
  EXPECT_CONTAINS(ErrorOf("job:ps"), "parts start with '/' (did you mean '/job:ps'?)");
  EXPECT_CONTAINS(ErrorOf("task:0"), "did you mean '/task:0'?");
  EXPECT_CONTAINS(ErrorOf("device:CPU:0"), "did you mean '/device:CPU:0'?");
}

TEST(ParseDeviceNameTest, WhitespaceIsRejected) {
  EXPECT_CONTAINS(ErrorOf(" /cpu:0"), "expected a name that starts with '/'");
  EXPECT_CONTAINS(ErrorOf("/cpu:0 "), "device id '0 '");
  EXPECT_CONTAINS(ErrorOf("/job: ps"), "job ' ps' is not a valid job name");
  EXPECT_CONTAINS(ErrorOf("/job:ps "), "job 'ps ' is not a valid job name");
  EXPECT_CONTAINS(ErrorOf("/job:ps /task:0"), "job 'ps '");
  EXPECT_CONTAINS(ErrorOf("/ job:ps"), "unknown part '/ job:ps'");
  EXPECT_CONTAINS(ErrorOf("/device: CPU:0"), "device type ' CPU'");
  EXPECT_CONTAINS(ErrorOf("/task:\t1"), "task '\\x091'");  // control characters are escaped
  EXPECT_CONTAINS(ErrorOf("/job:ps\n"), "device name '/job:ps\\x0a'");
  EXPECT_CONTAINS(ErrorOf(" "), "expected a name that starts with '/'");
  EXPECT_CONTAINS(ErrorOf("CPU: 0"), "device id ' 0'");
}

TEST(ParseDeviceNameTest, EmbeddedNul) {
  std::string name("/job:ps\0x", 9);
  EXPECT_CONTAINS(ErrorOf(name), "job 'ps\\x00x'");
}

TEST(ParseDeviceNameTest, VeryLongNames) {
  // A long valid job name parses; it is only ever the user's own string.
  std::string job = "j" + std::string(5000, 'a');
  DeviceNameParts p = Parse("/job:" + job + "/task:0");
  EXPECT_EQ(p.job, job);
  EXPECT_EQ(DeviceNameToString(p), "/job:" + job + "/task:0");

  // A long bad name is rejected with a message that quotes only its start.
  std::string bad = "/job:ps/" + std::string(100000, 'x');
  std::string msg = ErrorOf(bad);
  EXPECT_CONTAINS(msg, "device name '/job:ps/xxxx");
  EXPECT_CONTAINS(msg, "... (100008 bytes)'");
  EXPECT_CONTAINS(msg, "unknown part '/xxxx");
  EXPECT_LT(msg.size(), 1000u);

  // Many parts: all but the first of a kind are rejected.
  std::string repeated;
  for (int i = 0; i < 10000; ++i) repeated += "/task:" + std::to_string(i);
  msg = ErrorOf(repeated);
  EXPECT_CONTAINS(msg, "task is given twice ('/task:0' and '/task:1')");
  EXPECT_LT(msg.size(), 1000u);

  std::string digits(10000, '9');
  EXPECT_CONTAINS(ErrorOf("/task:" + digits), "is out of range");
  EXPECT_EQ(Parse("/task:" + std::string(10000, '0') + "5").task, 5);
}

TEST(DeviceNameToStringTest, CanonicalForms) {
  DeviceNameParts p;
  EXPECT_EQ(DeviceNameToString(p), "");
  p.has_job = true;
  p.job = "ps";
  EXPECT_EQ(DeviceNameToString(p), "/job:ps");
  p.has_task = true;
  p.task = 1;
  EXPECT_EQ(DeviceNameToString(p), "/job:ps/task:1");
  p.has_replica = true;
  p.replica = 0;
  EXPECT_EQ(DeviceNameToString(p), "/job:ps/replica:0/task:1");
  p.has_type = true;
  p.type = "CPU";
  EXPECT_EQ(DeviceNameToString(p), "/job:ps/replica:0/task:1/device:CPU:*");
  p.has_id = true;
  p.id = 0;
  EXPECT_EQ(DeviceNameToString(p), "/job:ps/replica:0/task:1/device:CPU:0");
  p.has_type = false;
  EXPECT_EQ(DeviceNameToString(p), "/job:ps/replica:0/task:1/device:*:0");

  // Values of unset parts are ignored.
  DeviceNameParts q;
  q.job = "ignored";
  q.task = 9;
  EXPECT_EQ(DeviceNameToString(q), "");
  EXPECT_EQ(q, DeviceNameParts{});

  std::ostringstream os;
  os << Parse("/cpu:0") << " " << DeviceNameParts{};
  EXPECT_EQ(os.str(), "/device:CPU:0 <any device>");
}

TEST(DeviceNameToStringTest, FullDeviceName) {
  EXPECT_EQ(FullDeviceName("worker", 0, 1, "CPU", 0), "/job:worker/replica:0/task:1/device:CPU:0");
  EXPECT_EQ(FullDeviceName("ps", 2, 3, "GPU", 4), "/job:ps/replica:2/task:3/device:GPU:4");
  EXPECT_EQ(Parse(FullDeviceName("ps", 2, 3, "GPU", 4)), Full("ps", 2, 3, "GPU", 4));
}

TEST(DeviceNameToStringTest, RoundTrips) {
  const std::vector<std::string> names = {
      "",
      "/job:ps",
      "/replica:3",
      "/task:2",
      "/device:CPU:1",
      "/device:CPU:*",
      "/device:*:4",
      "/job:worker/replica:0/task:1/device:CPU:0",
      "/job:worker/task:1",
      "/job:a_1/replica:2147483647/task:0/device:XLA_GPU:2147483647",
      "/job:ps/device:TPU:*",
  };
  for (const std::string& name : names) {
    DeviceNameParts p = Parse(name);
    EXPECT_EQ(DeviceNameToString(p), name);  // already canonical
    EXPECT_EQ(Parse(DeviceNameToString(p)), p) << name;
  }
  // Every combination of set parts survives the trip.
  for (int mask = 0; mask < 32; ++mask) {
    DeviceNameParts p;
    p.has_job = mask & 1;
    p.has_replica = mask & 2;
    p.has_task = mask & 4;
    p.has_type = mask & 8;
    p.has_id = mask & 16;
    if (p.has_job) p.job = "w";
    if (p.has_replica) p.replica = 1;
    if (p.has_task) p.task = 22;
    if (p.has_type) p.type = "GPU";
    if (p.has_id) p.id = 333;
    EXPECT_EQ(Parse(DeviceNameToString(p)), p) << DeviceNameToString(p);
    EXPECT_EQ(IsFullySpecified(p), mask == 31);
  }
  // Non-canonical inputs reach a fixed point after one trip.
  for (std::string_view name : {"/cpu:0", "gpu:1", "/device:CPU", "/task:01/job:x", "/job:*/device:cpu:*"}) {
    std::string once = Canonical(name);
    EXPECT_EQ(Canonical(once), once) << name;
    EXPECT_EQ(Parse(once), Parse(name)) << name;
  }
}

TEST(DeviceNameToStringTest, TaskAndLocalNames) {
  DeviceNameParts p = Parse("/job:worker/replica:0/task:1/device:GPU:2");
  EXPECT_EQ(DeviceTaskName(p), "/job:worker/replica:0/task:1");
  EXPECT_EQ(DeviceLocalName(p), "GPU:2");
  EXPECT_EQ(DeviceTaskName(Parse("/job:ps/device:CPU:0")), "/job:ps");
  EXPECT_EQ(DeviceTaskName(Parse("/device:CPU:0")), "");
  EXPECT_EQ(DeviceLocalName(Parse("/job:ps")), "");
  EXPECT_EQ(DeviceLocalName(Parse("/device:CPU")), "CPU:*");
  EXPECT_EQ(DeviceLocalName(Parse("/device:*:3")), "*:3");
  // The local name parses back (as the no-slash local form).
  EXPECT_EQ(Parse(DeviceLocalName(p)), Parse("/device:GPU:2"));
}

TEST(DeviceSpecTest, Matches) {
  const DeviceNameParts cpu0 = Parse("/job:worker/replica:0/task:1/device:CPU:0");
  const DeviceNameParts gpu1 = Parse("/job:worker/replica:0/task:1/device:GPU:1");
  const DeviceNameParts ps_cpu0 = Parse("/job:ps/replica:0/task:0/device:CPU:0");

  EXPECT_TRUE(DeviceSpecMatches(Parse(""), cpu0));
  EXPECT_TRUE(DeviceSpecMatches(Parse("/job:worker"), cpu0));
  EXPECT_TRUE(DeviceSpecMatches(Parse("/job:worker"), gpu1));
  EXPECT_FALSE(DeviceSpecMatches(Parse("/job:worker"), ps_cpu0));
  EXPECT_TRUE(DeviceSpecMatches(Parse("/task:1"), cpu0));
  EXPECT_FALSE(DeviceSpecMatches(Parse("/task:0"), cpu0));
  EXPECT_TRUE(DeviceSpecMatches(Parse("/replica:0"), ps_cpu0));
  EXPECT_FALSE(DeviceSpecMatches(Parse("/replica:1"), ps_cpu0));
  EXPECT_TRUE(DeviceSpecMatches(Parse("/device:CPU:0"), cpu0));
  EXPECT_TRUE(DeviceSpecMatches(Parse("/device:CPU:0"), ps_cpu0));
  EXPECT_TRUE(DeviceSpecMatches(Parse("/cpu:0"), cpu0));
  EXPECT_FALSE(DeviceSpecMatches(Parse("/device:CPU:1"), cpu0));  // id mismatch
  EXPECT_FALSE(DeviceSpecMatches(Parse("/device:GPU:0"), cpu0));  // type mismatch
  EXPECT_FALSE(DeviceSpecMatches(Parse("/device:GPU:*"), cpu0));
  EXPECT_TRUE(DeviceSpecMatches(Parse("/device:GPU:*"), gpu1));  // wildcard id
  EXPECT_TRUE(DeviceSpecMatches(Parse("/device:GPU"), gpu1));
  EXPECT_TRUE(DeviceSpecMatches(Parse("/device:*:1"), gpu1));
  EXPECT_FALSE(DeviceSpecMatches(Parse("/device:*:1"), cpu0));
  EXPECT_TRUE(DeviceSpecMatches(Parse("/job:worker/device:GPU:1"), gpu1));
  EXPECT_FALSE(DeviceSpecMatches(Parse("/job:worker/device:GPU:1"), cpu0));
  EXPECT_TRUE(DeviceSpecMatches(cpu0, cpu0));
  EXPECT_FALSE(DeviceSpecMatches(cpu0, gpu1));
  // Types compare case-sensitively after the legacy rewrite.
  EXPECT_FALSE(DeviceSpecMatches(Parse("/device:Cpu:0"), cpu0));

  // A part unset in the name does not satisfy a part set in the spec.
  EXPECT_FALSE(DeviceSpecMatches(Parse("/job:ps"), Parse("/device:CPU:0")));
  EXPECT_FALSE(DeviceSpecMatches(Parse("/device:CPU:0"), Parse("/device:CPU:*")));
  EXPECT_TRUE(DeviceSpecMatches(Parse("/device:CPU:*"), Parse("/device:CPU:0")));
}

TEST(DeviceSpecTest, Compatible) {
  EXPECT_TRUE(DeviceSpecsCompatible(Parse(""), Parse("/job:ps/task:0/device:CPU:0")));
  EXPECT_TRUE(DeviceSpecsCompatible(Parse("/job:ps"), Parse("/device:GPU:0")));
  EXPECT_TRUE(DeviceSpecsCompatible(Parse("/job:ps/task:1"), Parse("/job:ps/device:CPU:0")));
  EXPECT_TRUE(DeviceSpecsCompatible(Parse("/device:GPU:*"), Parse("/device:GPU:1")));
  EXPECT_TRUE(DeviceSpecsCompatible(Parse("/device:*:1"), Parse("/device:GPU:*")));
  EXPECT_FALSE(DeviceSpecsCompatible(Parse("/job:ps"), Parse("/job:worker")));
  EXPECT_FALSE(DeviceSpecsCompatible(Parse("/replica:0"), Parse("/replica:1")));
  EXPECT_FALSE(DeviceSpecsCompatible(Parse("/task:0"), Parse("/job:ps/task:1")));
  EXPECT_FALSE(DeviceSpecsCompatible(Parse("/device:CPU:0"), Parse("/device:GPU:0")));
  EXPECT_FALSE(DeviceSpecsCompatible(Parse("/device:GPU:0"), Parse("/device:GPU:1")));
  EXPECT_FALSE(DeviceSpecsCompatible(Parse("/device:CPU:*"), Parse("/gpu:*")));
  // Symmetric.
  EXPECT_FALSE(DeviceSpecsCompatible(Parse("/job:worker"), Parse("/job:ps")));
  EXPECT_TRUE(DeviceSpecsCompatible(Parse("/device:GPU:0"), Parse("/job:ps")));
}

TEST(DeviceSpecTest, Merge) {
  DeviceNameParts target = Parse("/job:ps");
  ASSERT_TRUE(MergeDeviceSpecs(&target, Parse("/task:1/device:CPU:*")).ok());
  EXPECT_EQ(DeviceNameToString(target), "/job:ps/task:1/device:CPU:*");
  ASSERT_TRUE(MergeDeviceSpecs(&target, Parse("/device:CPU:0")).ok());
  EXPECT_EQ(DeviceNameToString(target), "/job:ps/task:1/device:CPU:0");
  ASSERT_TRUE(MergeDeviceSpecs(&target, Parse("/job:ps/replica:0")).ok());  // agreeing parts are fine
  EXPECT_EQ(target, Parse("/job:ps/replica:0/task:1/device:CPU:0"));
  ASSERT_TRUE(MergeDeviceSpecs(&target, Parse("")).ok());
  EXPECT_EQ(target, Parse("/job:ps/replica:0/task:1/device:CPU:0"));

  DeviceNameParts empty;
  ASSERT_TRUE(MergeDeviceSpecs(&empty, Parse("/job:w/replica:2/task:3/device:GPU:4")).ok());
  EXPECT_EQ(empty, Full("w", 2, 3, "GPU", 4));

  // An id merges onto a type and vice versa.
  DeviceNameParts any_id = Parse("/device:GPU:*");
  ASSERT_TRUE(MergeDeviceSpecs(&any_id, Parse("/device:*:2")).ok());
  EXPECT_EQ(any_id, Parse("/device:GPU:2"));
}

TEST(DeviceSpecTest, MergeConflicts) {
  struct Case {
    const char* target;
    const char* other;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"/job:a", "/job:b", "incompatible device specs '/job:a' and '/job:b': job 'a' vs 'b'"},
           {"/job:ps/replica:0", "/replica:1", "incompatible device specs '/job:ps/replica:0' and '/replica:1': "
                                               "replica 0 vs 1"},
           {"/task:1/device:CPU:0", "/task:2", "'/task:1/device:CPU:0' and '/task:2': task 1 vs 2"},
           {"/device:CPU:0", "/gpu:0", "'/device:CPU:0' and '/device:GPU:0': device type 'CPU' vs 'GPU'"},
           {"/device:GPU:0", "/device:GPU:1", "device id 0 vs 1"},
           {"/device:*:0", "/device:*:1", "'/device:*:0' and '/device:*:1': device id 0 vs 1"},
       }) {
    DeviceNameParts target = Parse(c.target);
    const DeviceNameParts before = target;
    Status s = MergeDeviceSpecs(&target, Parse(c.other));
    ASSERT_FALSE(s.ok()) << c.target << " + " << c.other;
    EXPECT_EQ(s.code(), Code::kInvalidArgument);
    EXPECT_CONTAINS(s.message(), c.message);
    EXPECT_EQ(target, before) << "a failed merge leaves the target unchanged";
    EXPECT_FALSE(DeviceSpecsCompatible(Parse(c.target), Parse(c.other)));
  }
  // A conflict late in the spec leaves earlier parts unmerged too.
  DeviceNameParts target = Parse("/device:CPU:0");
  EXPECT_FALSE(MergeDeviceSpecs(&target, Parse("/job:ps/device:GPU:0")).ok());
  EXPECT_FALSE(target.has_job);
}

TEST(ParseDeviceNameTest, IsValidDeviceName) {
  EXPECT_TRUE(IsValidDeviceName(""));
  EXPECT_TRUE(IsValidDeviceName("/cpu:0"));
  EXPECT_TRUE(IsValidDeviceName("CPU:0"));
  EXPECT_TRUE(IsValidDeviceName("/job:worker/replica:0/task:1/device:CPU:0"));
  EXPECT_FALSE(IsValidDeviceName("/job:"));
  EXPECT_FALSE(IsValidDeviceName("cpu"));
  EXPECT_FALSE(IsValidDeviceName("/job:a/job:b"));
}

TEST(ParseDeviceNameTest, CanonicalizeErrorsPassThrough) {
  auto s = CanonicalizeDeviceName("/job:a/job:b");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_CONTAINS(s.status().message(), "job is given twice");
}

}  // namespace
}  // namespace flowvm
