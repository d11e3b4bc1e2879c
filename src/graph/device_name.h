// Device names, as TensorFlow spells them.
//
// A full name says where a device lives and which one it is:
//   /job:worker/replica:0/task:1/device:CPU:0
// A request (a NodeDef's `device`, GraphScope::WithDevice) may leave any part
// out, or give `*` for it, and the placer fills in the rest: "/job:ps",
// "/device:GPU:*", "/task:2", "" (anything). ParseDeviceName also accepts
// TensorFlow's legacy spellings "/cpu:0", "/GPU:1", "/job:ps/cpu:*",
// "/device:cpu:0" and the local form "CPU:0" (no leading '/'), which Python's
// tf.device passes through.
//
// Rules, following tensorflow/core/util/device_name_utils.cc:
//   job            [A-Za-z][A-Za-z0-9_]*   (TensorFlow's IsJobName; no '-')
//   replica, task  decimal digits, no sign, at most 2147483647
//   device type    [A-Za-z][A-Za-z0-9_]*; "cpu"/"gpu" become "CPU"/"GPU",
//                  any other spelling is kept ("TPU", "XLA_CPU", "Cpu")
//   device id      like replica; "/device:CPU" without ":id" means any id
// Parts may come in any order (as in TensorFlow) but each at most once; the
// legacy "/cpu:N" counts as the device part. Stricter than TensorFlow, which
// lets a repeated part silently overwrite and wraps ids past 2^31.
//
// Everything here is a pure function of its arguments: thread-safe.
#ifndef FLOWVM_GRAPH_DEVICE_NAME_H_
#define FLOWVM_GRAPH_DEVICE_NAME_H_

#include <ostream>
#include <string>
#include <string_view>

#include "flowvm/status.h"

namespace flowvm {

// A parsed device name. A part whose has_* flag is false is unspecified
// ("any"); its value field is then meaningless (the parser leaves it at the
// default).
struct DeviceNameParts {
  bool has_job = false;
  std::string job;
  bool has_replica = false;
  int replica = 0;
  bool has_task = false;
  int task = 0;
  bool has_type = false;
  std::string type;  // "CPU", "GPU", ...
  bool has_id = false;
  int id = 0;  // has_id is false for "*" or an absent id

  // Equal when the same parts are set to the same values; the value fields of
  // unset parts are ignored.
  bool operator==(const DeviceNameParts& other) const;
  bool operator!=(const DeviceNameParts& other) const { return !(*this == other); }
};

// Parses any of the forms above. "" and "/" parse to a spec with nothing
// set. Errors are InvalidArgument, quote the whole name (long names are
// shortened) and say which part is wrong, e.g.
//   device name '/job:a/job:b': job is given twice ('/job:a' and '/job:b')
// Allocates only for a job or type name too long for std::string's inline
// buffer, and on error.
StatusOr<DeviceNameParts> ParseDeviceName(std::string_view name);

// True when `name` parses; for quick checks where the reason is not needed.
bool IsValidDeviceName(std::string_view name);

// The canonical string of the parts that are set, in the order job, replica,
// task, device: "/job:ps/replica:0/task:1/device:CPU:0", "/job:ps",
// "/device:CPU:*" (type without id), "/device:*:1" (id without type), and ""
// when nothing is set. For parts that satisfy the rules above,
// ParseDeviceName(DeviceNameToString(p)) == p.
std::string DeviceNameToString(const DeviceNameParts& parts);
std::ostream& operator<<(std::ostream& os, const DeviceNameParts& parts);

// ParseDeviceName then DeviceNameToString: "/cpu:0" -> "/device:CPU:0",
// "gpu:1" -> "/device:GPU:1", "/job:ps/task:*" -> "/job:ps".
StatusOr<std::string> CanonicalizeDeviceName(std::string_view name);

// "/job:J/replica:R/task:T/device:TYPE:N". REQUIRES: the arguments satisfy
// the rules above (not checked).
std::string FullDeviceName(const std::string& job, int replica, int task, const std::string& type, int id);

// True when all five parts are set (the name of one concrete device).
bool IsFullySpecified(const DeviceNameParts& parts);

// True when every part set in `spec` is set in `name` with the same value,
// so "/job:ps" matches "/job:ps/replica:0/task:1/device:CPU:0" and "" matches
// everything. A part unset in `name` does not match a part set in `spec`.
bool DeviceSpecMatches(const DeviceNameParts& spec, const DeviceNameParts& name);

// True when no part is set in both `a` and `b` with different values, i.e.
// some device could satisfy both requests.
bool DeviceSpecsCompatible(const DeviceNameParts& a, const DeviceNameParts& b);

// Sets in `target` every part set in `other`. If a part is set in both with
// different values, returns InvalidArgument naming both specs and the part,
//   incompatible device specs '/job:a' and '/job:b': job 'a' vs 'b'
// and leaves `target` unchanged. The placer merges the requests of
// colocated nodes with this.
Status MergeDeviceSpecs(DeviceNameParts* target, const DeviceNameParts& other);

// The task part of a name, "/job:J/replica:R/task:T" (only the parts that
// are set; "" if none), and the local part, "CPU:0" ("CPU:*" without id,
// "*:0" without type, "" if neither), for short display.
std::string DeviceTaskName(const DeviceNameParts& parts);
std::string DeviceLocalName(const DeviceNameParts& parts);
// For messages that may mention devices of several tasks: the local name,
// or with `with_task` the task then the local name
// ("/job:ps/replica:0/task:0/CPU:0").
std::string DeviceDisplayName(const DeviceNameParts& parts, bool with_task);

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_DEVICE_NAME_H_
