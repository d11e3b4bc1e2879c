#include "graph/device_name.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <limits>

namespace flowvm {

namespace {

// Error messages quote at most this much of a name: a megabyte-long device
// string (a bug upstream) should not become a megabyte-long log line.
constexpr size_t kMaxQuoted = 200;

// `s` as an error message quotes it: cut when long, control characters
// escaped so that a stray '\n' is visible instead of breaking the line.
std::string Quote(std::string_view s) {
  std::string out;
  const size_t n = std::min(s.size(), kMaxQuoted);
  out.reserve(n + 24);
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > n) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

template <typename... Args>
Status BadName(std::string_view name, const Args&... detail) {
  return errors::InvalidArgument("device name '", Quote(name), "': ", detail...);
}

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// [A-Za-z][A-Za-z0-9_]*: TensorFlow's rule for both job names and device types.
bool IsIdentifier(std::string_view s) {
  if (s.empty() || !IsAlpha(s[0])) return false;
  return std::all_of(s.begin() + 1, s.end(), [](char c) { return IsAlpha(c) || IsDigit(c) || c == '_'; });
}
constexpr const char* kIdentifierRule = "[A-Za-z][A-Za-z0-9_]*";

// Replica, task and device id: an optional '*' (any) or decimal digits that
// fit in an int. Leading zeros are allowed, as TensorFlow allows them.
Status ParseNumber(std::string_view name, const char* what, std::string_view value, bool* has, int* out) {
  if (value.empty()) return BadName(name, "empty ", what);
  if (value == "*") {
    *has = false;
    *out = 0;
    return Status::OK();
  }
  int64_t v = 0;
  for (char c : value) {
    if (!IsDigit(c)) return BadName(name, what, " '", Quote(value), "' is not a non-negative integer");
    v = v * 10 + (c - '0');
    if (v > std::numeric_limits<int>::max()) {
      return BadName(name, what, " '", Quote(value), "' is out of range (at most ", std::numeric_limits<int>::max(),
                     ")");
    }
  }
  *has = true;
  *out = static_cast<int>(v);
  return Status::OK();
}

Status ParseJob(std::string_view name, std::string_view value, DeviceNameParts* p) {
  if (value.empty()) return BadName(name, "empty job");
  if (value == "*") {
    p->has_job = false;
    p->job.clear();
    return Status::OK();
  }
  if (!IsIdentifier(value)) {
    return BadName(name, "job '", Quote(value), "' is not a valid job name (", kIdentifierRule, ")");
  }
  p->has_job = true;
  p->job.assign(value.data(), value.size());
  return Status::OK();
}

// "TYPE", "TYPE:ID", "TYPE:*", "*:ID", ...: what follows "/device:", and the
// whole of a local name "CPU:0".
Status ParseDeviceValue(std::string_view name, std::string_view value, DeviceNameParts* p) {
  if (value.empty()) return BadName(name, "empty device");
  const size_t colon = value.find(':');
  const std::string_view type = value.substr(0, colon);
  if (type.empty()) return BadName(name, "empty device type");
  if (type == "*") {
    p->has_type = false;
    p->type.clear();
  } else if (!IsIdentifier(type)) {
    return BadName(name, "device type '", Quote(type), "' is not a valid type name (", kIdentifierRule, ")");
  } else {
    p->has_type = true;
    // The legacy lower-case spellings; every other type keeps its spelling.
    if (type == "cpu") {
      p->type = "CPU";
    } else if (type == "gpu") {
      p->type = "GPU";
    } else {
      p->type.assign(type.data(), type.size());
    }
  }
  if (colon == std::string_view::npos) {  // "/device:CPU": any id, as in TensorFlow
    p->has_id = false;
    p->id = 0;
    return Status::OK();
  }
  return ParseNumber(name, "device id", value.substr(colon + 1), &p->has_id, &p->id);
}

enum Part { kJob = 0, kReplica, kTask, kDevice, kNumParts };
constexpr const char* kPartNames[kNumParts] = {"job", "replica", "task", "device"};

// A local name is TYPE:ID with no '/'. Keys of the slash form ("job:ps")
// are not device types: those are missing their '/'.
bool IsSlashKey(std::string_view key) {
  return key == "job" || key == "replica" || key == "task" || key == "device";
}

Status ParseLocalName(std::string_view name, DeviceNameParts* p) {
  const size_t colon = name.find(':');
  if (name.find('/') == std::string_view::npos && colon != std::string_view::npos) {
    const std::string_view key = name.substr(0, colon);
    if (IsSlashKey(key)) return BadName(name, "parts start with '/' (did you mean '/", Quote(name), "'?)");
    if (IsIdentifier(key)) return ParseDeviceValue(name, name, p);
  }
  return BadName(name, "expected a name that starts with '/', like '/job:ps/task:0/device:CPU:0', or a local name ",
                 "TYPE:ID, like 'CPU:0'");
}

}  // namespace

bool DeviceNameParts::operator==(const DeviceNameParts& o) const {
  return has_job == o.has_job && (!has_job || job == o.job) && has_replica == o.has_replica &&
         (!has_replica || replica == o.replica) && has_task == o.has_task && (!has_task || task == o.task) &&
         has_type == o.has_type && (!has_type || type == o.type) && has_id == o.has_id && (!has_id || id == o.id);
}

StatusOr<DeviceNameParts> ParseDeviceName(std::string_view name) {
  DeviceNameParts p;
  if (name.empty() || name == "/") return p;
  if (name[0] != '/') {
    Status s = ParseLocalName(name, &p);
    if (!s.ok()) return s;
    return p;
  }
  // Each part's segment once seen, for the "given twice" message.
  std::string_view seen[kNumParts];
  size_t pos = 0;
  while (pos < name.size()) {  // name[pos] == '/'
    size_t end = name.find('/', pos + 1);
    if (end == std::string_view::npos) end = name.size();
    const std::string_view segment = name.substr(pos, end - pos);  // with its '/'
    const std::string_view body = segment.substr(1);
    pos = end;
    if (body.empty()) return BadName(name, pos == name.size() ? "ends with '/'" : "has an empty part ('//')");

    const size_t colon = body.find(':');
    const std::string_view key = body.substr(0, colon);
    const bool legacy = key == "cpu" || key == "CPU" || key == "gpu" || key == "GPU";
    Part part;
    if (key == "job") {
      part = kJob;
    } else if (key == "replica") {
      part = kReplica;
    } else if (key == "task") {
      part = kTask;
    } else if (key == "device" || legacy) {
      part = kDevice;
    } else {
      return BadName(name, "unknown part '", Quote(segment),
                     "' (expected /job:, /replica:, /task:, /device:, or the legacy /cpu:, /gpu:)");
    }
    if (colon == std::string_view::npos) {
      if (legacy) return BadName(name, "'", segment, "' needs an id, as in '", segment, ":0' or '", segment, ":*'");
      return BadName(name, "part '", segment, "' has no value (expected '", segment, ":...')");
    }
    if (!seen[part].empty()) {
      return BadName(name, kPartNames[part], " is given twice ('", Quote(seen[part]), "' and '", Quote(segment), "')");
    }
    seen[part] = segment;

    const std::string_view value = body.substr(colon + 1);
    Status s;
    switch (part) {
      case kJob:
        s = ParseJob(name, value, &p);
        break;
      case kReplica:
        s = ParseNumber(name, "replica", value, &p.has_replica, &p.replica);
        break;
      case kTask:
        s = ParseNumber(name, "task", value, &p.has_task, &p.task);
        break;
      case kDevice:
        if (legacy) {
          p.has_type = true;
          p.type = (key[0] == 'c' || key[0] == 'C') ? "CPU" : "GPU";
          s = ParseNumber(name, "device id", value, &p.has_id, &p.id);
        } else {
          s = ParseDeviceValue(name, value, &p);
        }
        break;
      case kNumParts:
        break;
    }
    if (!s.ok()) return s;
  }
  return p;
}

bool IsValidDeviceName(std::string_view name) { return ParseDeviceName(name).ok(); }

namespace {

void AppendInt(std::string* out, int v) {
  char buf[16];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  (void)ec;  // an int always fits in 16 chars
  out->append(buf, end);
}

void AppendTaskName(const DeviceNameParts& p, std::string* out) {
  if (p.has_job) {
    out->append("/job:");
    out->append(p.job);
  }
  if (p.has_replica) {
    out->append("/replica:");
    AppendInt(out, p.replica);
  }
  if (p.has_task) {
    out->append("/task:");
    AppendInt(out, p.task);
  }
}

void AppendLocalName(const DeviceNameParts& p, std::string* out) {
  out->append(p.has_type ? std::string_view(p.type) : std::string_view("*"));
  out->push_back(':');
  if (p.has_id) {
    AppendInt(out, p.id);
  } else {
    out->push_back('*');
  }
}

}  // namespace

std::string DeviceNameToString(const DeviceNameParts& p) {
  std::string out;
  out.reserve(48 + (p.has_job ? p.job.size() : 0) + (p.has_type ? p.type.size() : 0));
  AppendTaskName(p, &out);
  if (p.has_type || p.has_id) {
    out.append("/device:");
    AppendLocalName(p, &out);
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const DeviceNameParts& parts) {
  const std::string s = DeviceNameToString(parts);
  return os << (s.empty() ? std::string_view("<any device>") : std::string_view(s));
}

StatusOr<std::string> CanonicalizeDeviceName(std::string_view name) {
  StatusOr<DeviceNameParts> parts = ParseDeviceName(name);
  if (!parts.ok()) return parts.status();
  return DeviceNameToString(*parts);
}

std::string FullDeviceName(const std::string& job, int replica, int task, const std::string& type, int id) {
  DeviceNameParts p;
  p.has_job = p.has_replica = p.has_task = p.has_type = p.has_id = true;
  p.job = job;
  p.replica = replica;
  p.task = task;
  p.type = type;
  p.id = id;
  return DeviceNameToString(p);
}

bool IsFullySpecified(const DeviceNameParts& p) {
  return p.has_job && p.has_replica && p.has_task && p.has_type && p.has_id;
}

bool DeviceSpecMatches(const DeviceNameParts& spec, const DeviceNameParts& name) {
  if (spec.has_job && !(name.has_job && name.job == spec.job)) return false;
  if (spec.has_replica && !(name.has_replica && name.replica == spec.replica)) return false;
  if (spec.has_task && !(name.has_task && name.task == spec.task)) return false;
  if (spec.has_type && !(name.has_type && name.type == spec.type)) return false;
  if (spec.has_id && !(name.has_id && name.id == spec.id)) return false;
  return true;
}

namespace {

// The first part set in both with different values, or kNumParts when there
// is none. Allocation-free: the placer asks this of many device pairs.
Part FirstConflict(const DeviceNameParts& a, const DeviceNameParts& b) {
  if (a.has_job && b.has_job && a.job != b.job) return kJob;
  if (a.has_replica && b.has_replica && a.replica != b.replica) return kReplica;
  if (a.has_task && b.has_task && a.task != b.task) return kTask;
  if ((a.has_type && b.has_type && a.type != b.type) || (a.has_id && b.has_id && a.id != b.id)) return kDevice;
  return kNumParts;
}

// "job 'a' vs 'b'", "device id 0 vs 1", ...
std::string DescribeConflict(Part part, const DeviceNameParts& a, const DeviceNameParts& b) {
  using internal::StrCat;
  switch (part) {
    case kJob:
      return StrCat("job '", a.job, "' vs '", b.job, "'");
    case kReplica:
      return StrCat("replica ", a.replica, " vs ", b.replica);
    case kTask:
      return StrCat("task ", a.task, " vs ", b.task);
    case kDevice:
      if (a.has_type && b.has_type && a.type != b.type) {
        return StrCat("device type '", a.type, "' vs '", b.type, "'");
      }
      return StrCat("device id ", a.id, " vs ", b.id);
    case kNumParts:
      break;
  }
  return std::string();
}

}  // namespace

bool DeviceSpecsCompatible(const DeviceNameParts& a, const DeviceNameParts& b) {
  return FirstConflict(a, b) == kNumParts;
}

Status MergeDeviceSpecs(DeviceNameParts* target, const DeviceNameParts& other) {
  const Part conflict = FirstConflict(*target, other);
  if (conflict != kNumParts) {
    return errors::InvalidArgument("incompatible device specs '", DeviceNameToString(*target), "' and '",
                                   DeviceNameToString(other), "': ", DescribeConflict(conflict, *target, other));
  }
  if (other.has_job) {
    target->has_job = true;
    target->job = other.job;
  }
  if (other.has_replica) {
    target->has_replica = true;
    target->replica = other.replica;
  }
  if (other.has_task) {
    target->has_task = true;
    target->task = other.task;
  }
  if (other.has_type) {
    target->has_type = true;
    target->type = other.type;
  }
  if (other.has_id) {
    target->has_id = true;
    target->id = other.id;
  }
  return Status::OK();
}

std::string DeviceTaskName(const DeviceNameParts& parts) {
  std::string out;
  AppendTaskName(parts, &out);
  return out;
}

std::string DeviceLocalName(const DeviceNameParts& parts) {
  std::string out;
  if (parts.has_type || parts.has_id) AppendLocalName(parts, &out);
  return out;
}

std::string DeviceDisplayName(const DeviceNameParts& parts, bool with_task) {
  return with_task ? DeviceTaskName(parts) + "/" + DeviceLocalName(parts) : DeviceLocalName(parts);
}

}  // namespace flowvm
