#include "core/memory_info.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>

namespace flowvm {

namespace {

constexpr int64_t kUnknown = std::numeric_limits<int64_t>::max();

// The first integer in `path`, or kUnknown ("max", missing, unreadable).
int64_t ReadNumber(const std::string& path) {
  std::ifstream f(path);
  std::string word;
  if (!(f >> word)) return kUnknown;
  char* end = nullptr;
  const long long v = std::strtoll(word.c_str(), &end, 10);
  if (end == word.c_str() || *end != '\0' || v < 0) return kUnknown;
  return static_cast<int64_t>(v);
}

int64_t MemAvailable() {
  std::ifstream f("/proc/meminfo");
  std::string line;
  while (std::getline(f, line)) {
    long long kb = 0;
    if (std::sscanf(line.c_str(), "MemAvailable: %lld kB", &kb) == 1) return static_cast<int64_t>(kb) * 1024;
  }
  return kUnknown;
}

// Room under the memory limit of the process's cgroup, if it has one.
int64_t CgroupRoom() {
  std::ifstream f("/proc/self/cgroup");
  std::string line;
  int64_t room = kUnknown;
  while (std::getline(f, line)) {
    // "0::/path" (v2) or "4:memory:/path" (v1).
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    std::string limit, usage;
    if (controllers.empty()) {
      limit = "/sys/fs/cgroup" + path + "/memory.max";
      usage = "/sys/fs/cgroup" + path + "/memory.current";
    } else if (controllers == "memory" || controllers.find("memory,") == 0 ||
               controllers.find(",memory") != std::string::npos) {
      // Inside a container the process's own cgroup is often the mount's
      // root; try its path, then the root.
      for (const std::string& dir : {"/sys/fs/cgroup/memory" + path, std::string("/sys/fs/cgroup/memory")}) {
        if (ReadNumber(dir + "/memory.limit_in_bytes") != kUnknown) {
          limit = dir + "/memory.limit_in_bytes";
          usage = dir + "/memory.usage_in_bytes";
          break;
        }
      }
    }
    if (limit.empty()) continue;
    const int64_t max = ReadNumber(limit), used = ReadNumber(usage);
    // v1 says "no limit" with a number near INT64_MAX.
    if (max == kUnknown || used == kUnknown || max >= (int64_t{1} << 60)) continue;
    room = std::min(room, std::max<int64_t>(0, max - used));
  }
  return room;
}

}  // namespace

int64_t AvailableMemoryBytes() { return std::min(MemAvailable(), CgroupRoom()); }

}  // namespace flowvm
