#include "core/path_policy.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace flowvm {

namespace {

// Linux gives up after 40 links in one lookup; so does a resolution here.
constexpr int kMaxLinks = 40;

std::vector<std::string> SplitComponents(const std::string& path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    if (j > i) out.push_back(path.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::string Join(const std::string& base, const std::vector<std::string>& parts, size_t from, size_t to) {
  std::string out = base;
  for (size_t i = from; i < to; ++i) {
    if (out.empty() || out.back() != '/') out += '/';
    out += parts[i];
  }
  return out.empty() ? "/" : out;
}

StatusOr<std::string> RealPath(const std::string& path, int* err) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) == nullptr) {
    *err = errno;
    return errors::PermissionDenied("cannot resolve '", path, "': ", std::strerror(errno));
  }
  *err = 0;
  return std::string(buf);
}

StatusOr<std::string> Resolve(const std::string& path, int links) {
  if (links > kMaxLinks) return errors::PermissionDenied("too many symbolic links");
  std::string absolute = path;
  if (path.empty() || path[0] != '/') {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd) == nullptr)
      return errors::PermissionDenied("the working directory is unknown: ", std::strerror(errno));
    absolute = std::string(cwd) + "/" + path;
  }
  const std::vector<std::string> parts = SplitComponents(absolute);
  // The deepest ancestor that exists, resolved; what follows it is missing.
  std::string base;
  size_t existing = parts.size();
  for (;; --existing) {
    int err = 0;
    auto real = RealPath(Join("/", parts, 0, existing), &err);
    if (real.ok()) {
      base = *real;
      break;
    }
    if ((err != ENOENT && err != ENOTDIR) || existing == 0) return real.status();
  }
  std::vector<std::string> rest;
  for (size_t i = existing; i < parts.size(); ++i) {
    if (parts[i] == "..")
      return errors::PermissionDenied("'..' follows '", parts[existing], "', which does not exist");
    if (parts[i] != ".") rest.push_back(parts[i]);
  }
  if (rest.empty()) return base;
  // The first missing component may still be there as a link that points
  // nowhere (realpath fails on it): writing through it would create its
  // target, so the target is what must be allowed.
  const std::string first = Join(base, rest, 0, 1);
  struct stat st;
  if (::lstat(first.c_str(), &st) != 0) {
    if (errno != ENOENT && errno != ENOTDIR)
      return errors::PermissionDenied("cannot resolve '", first, "': ", std::strerror(errno));
    return Join(base, rest, 0, rest.size());
  }
  if (S_ISLNK(st.st_mode)) {
    char target[PATH_MAX];
    const ssize_t n = ::readlink(first.c_str(), target, sizeof target - 1);
    if (n < 0) return errors::PermissionDenied("cannot read the link '", first, "': ", std::strerror(errno));
    if (n >= static_cast<ssize_t>(sizeof target - 1))
      return errors::PermissionDenied("the link '", first, "' points to a name too long to resolve");
    std::string next(target, static_cast<size_t>(n));
    if (next.empty() || next[0] != '/') next = Join(base, {next}, 0, 1);
    return Resolve(Join(next, rest, 1, rest.size()), links + 1);
  }
  // It appeared since realpath looked: resolve again from the start.
  return Resolve(absolute, links + 1);
}

}  // namespace

StatusOr<std::string> ResolvePathForPolicy(const std::string& path) { return Resolve(path, 0); }

StatusOr<std::shared_ptr<const PathPolicy>> PathPolicy::Create(const std::vector<std::string>& dirs) {
  if (dirs.empty()) return errors::InvalidArgument("a path policy needs at least one allowed directory");
  std::vector<std::string> canonical;
  for (const std::string& d : dirs) {
    if (d.empty()) return errors::InvalidArgument("an allowed directory is an empty string");
    int err = 0;
    auto real = RealPath(d, &err);
    if (!real.ok()) return errors::InvalidArgument("allowed directory '", d, "': ", std::strerror(err));
    struct stat st;
    if (::stat(real->c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return errors::InvalidArgument("allowed directory '", d, "' is not a directory");
    if (std::find(canonical.begin(), canonical.end(), *real) == canonical.end()) canonical.push_back(*real);
  }
  return std::shared_ptr<const PathPolicy>(new PathPolicy(std::move(canonical)));
}

bool PathPolicy::Allows(const std::string& resolved) const {
  for (const std::string& d : dirs_) {
    if (d == "/" || resolved == d) return true;
    if (resolved.size() > d.size() && resolved.compare(0, d.size(), d) == 0 && resolved[d.size()] == '/') return true;
  }
  return false;
}

std::string PathPolicy::Describe() const {
  std::string out;
  for (const std::string& d : dirs_) out += (out.empty() ? "" : ", ") + d;
  return out;
}

Status PathPolicy::Check(const std::string& path, PathAccess access) const {
  const char* verb = access == PathAccess::kRead ? "read" : "write";
  if (path.empty()) return errors::InvalidArgument("may not ", verb, " a file with an empty name");
  auto resolved = ResolvePathForPolicy(path);
  if (!resolved.ok())
    return errors::PermissionDenied("may not ", verb, " '", path, "': ", resolved.status().message(),
                                    " (this server allows only ", Describe(), ")");
  // Where the name itself lies, its directory resolved but not its last
  // component: a rename onto the path replaces a link there instead of
  // following it, so a link outside that points inside is refused too.
  std::string located = *resolved;
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  const size_t slash = trimmed.rfind('/');
  const std::string name = slash == std::string::npos ? trimmed : trimmed.substr(slash + 1);
  if (!name.empty() && name != "." && name != "..") {
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : trimmed.substr(0, slash);
    auto parent = ResolvePathForPolicy(dir);
    if (!parent.ok())
      return errors::PermissionDenied("may not ", verb, " '", path, "': ", parent.status().message(),
                                      " (this server allows only ", Describe(), ")");
    located = *parent == "/" ? "/" + name : *parent + "/" + name;
  }
  if (Allows(*resolved) && Allows(located)) return Status::OK();
  std::string via;
  if (!Allows(*resolved)) {
    if (*resolved != path) via = " (which resolves to '" + *resolved + "')";
  } else if (located != path) {
    via = " (which is '" + located + "')";
  }
  return errors::PermissionDenied("may not ", verb, " '", path, "'", via,
                                  ": outside the directories this server allows (", Describe(), ")");
}

}  // namespace flowvm
