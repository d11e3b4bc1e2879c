#include "flowvm/cc/saver.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "flowvm/cc/ops.h"

namespace flowvm {

namespace {

namespace fs = std::filesystem;

constexpr char kStateFile[] = "checkpoint";
constexpr char kLatestKey[] = "model_checkpoint_path: ";
constexpr char kAllKey[] = "all_model_checkpoint_paths: ";

Status IoError(const std::string& what, const std::string& path) {
  return errors::Unavailable(what, " '", path, "': ", std::strerror(errno));
}

// Writes `text` to `path` atomically: a temporary file, fsynced, renamed
// over `path`, then the directory fsynced.
Status WriteFileAtomically(const fs::path& path, const std::string& text) {
  std::string tmp = path.string() + ".tmp" + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return IoError("cannot create", tmp);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      Status s = IoError("cannot write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return s;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    Status s = IoError("cannot fsync", tmp);
    ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status s = IoError("cannot rename to", path.string());
    ::unlink(tmp.c_str());
    return s;
  }
  int dir = ::open(path.parent_path().empty() ? "." : path.parent_path().c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return Status::OK();
}

// The checkpoints listed in <dir>/checkpoint, oldest first (basenames).
StatusOr<std::vector<std::string>> ReadState(const fs::path& dir) {
  fs::path path = dir / kStateFile;
  std::ifstream in(path);
  if (!in) return errors::NotFound("no checkpoint in '", dir.string(), "' (", path.string(), " does not exist)");
  std::vector<std::string> all;
  std::string latest, line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    std::string value;
    bool is_latest = line.rfind(kLatestKey, 0) == 0;
    bool is_all = line.rfind(kAllKey, 0) == 0;
    if (is_latest) value = line.substr(std::strlen(kLatestKey));
    if (is_all) value = line.substr(std::strlen(kAllKey));
    if ((!is_latest && !is_all) || value.size() < 2 || value.front() != '"' || value.back() != '"' ||
        value.find('/') != std::string::npos)
      return errors::DataLoss(path.string(), ":", line_no, ": malformed line '", line, "'");
    value = value.substr(1, value.size() - 2);
    if (is_latest) latest = value;
    if (is_all) all.push_back(value);
  }
  if (latest.empty()) return errors::DataLoss(path.string(), ": names no latest checkpoint");
  if (all.empty() || all.back() != latest) all.push_back(latest);
  return all;
}

Status WriteState(const fs::path& dir, const std::vector<std::string>& all) {
  std::ostringstream text;
  text << kLatestKey << '"' << all.back() << "\"\n";
  for (const std::string& name : all) text << kAllKey << '"' << name << "\"\n";
  return WriteFileAtomically(dir / kStateFile, text.str());
}

// Removes every ckpt-* file in `dir` that belongs to no checkpoint in
// `kept`: dropped checkpoints, and what a process killed mid-save left (a
// checkpoint written but never listed, temporary files).
void RemoveUnlistedCheckpointFiles(const fs::path& dir, const std::vector<std::string>& kept) {
  std::error_code ec;
  std::vector<fs::path> doomed;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string file = entry.path().filename().string();
    if (file.rfind("ckpt-", 0) != 0) continue;
    std::string name = file.substr(0, file.find('.'));
    if (std::find(kept.begin(), kept.end(), name) == kept.end()) doomed.push_back(entry.path());
  }
  for (const fs::path& p : doomed) fs::remove(p, ec);
}

}  // namespace

Saver::Saver(const Scope& scope, const SaverOptions& options, const std::vector<Variable>& vars)
    : options_(options), last_save_(std::chrono::steady_clock::now()) {
  std::vector<Variable> saved = vars.empty() ? GlobalVariables(scope) : vars;
  if (saved.empty()) {
    scope.UpdateStatus(errors::InvalidArgument("Saver: there are no variables to save"));
    return;
  }
  Scope s = scope.NewSubScope("save").WithNoControlDependencies();
  std::vector<std::string> names;
  std::vector<DataType> dtypes;
  std::vector<Input> tensors;
  for (const Variable& v : saved) {
    names.push_back(v.name());
    dtypes.push_back(v.dtype());
    tensors.emplace_back(v.ref());
  }
  prefix_ = ops::Placeholder(s.WithOpName("prefix"), DT_STRING, ops::Placeholder::Shape(PartialTensorShape({})));
  auto tensor_names = ops::Const(s.WithOpName("tensor_names"), Tensor::FromVector<std::string>(names));
  auto slices = ops::Const(s.WithOpName("shape_and_slices"),
                           Tensor::FromVector<std::string>(std::vector<std::string>(names.size())));
  save_ = ops::SaveV2(s.WithOpName("SaveV2"), prefix_, tensor_names, slices, InputList(tensors)).operation;
  auto restored = ops::RestoreV2(s.WithOpName("RestoreV2"), prefix_, tensor_names, slices, dtypes);
  // Each Assign goes where its variable is (it takes it by reference), not
  // to the device the saver's scope names (the chief's, on a cluster).
  const Scope assign_scope = s.WithDevice("");
  std::vector<Operation> assigns;
  for (size_t i = 0; i < saved.size() && i < restored.tensors.size(); ++i)
    assigns.push_back(ops::Assign(assign_scope, saved[i], restored.tensors[i]).operation);
  restore_ = ops::NoOp(s.WithControlDependencies(assigns).WithOpName("restore_all")).operation;
}

StatusOr<std::string> Saver::Save(const ClientSession& session, const std::string& dir, int64_t step) {
  if (!save_.valid()) return errors::FailedPrecondition("Saver: not built (see the scope's status)");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return errors::Unavailable("cannot create checkpoint directory '", dir, "': ", ec.message());
  std::string name = "ckpt-" + std::to_string(step);
  std::string prefix = (fs::path(dir) / name).string();
  FLOWVM_RETURN_IF_ERROR(session.Run({{prefix_, Tensor::Scalar<std::string>(prefix)}}, {}, {save_}, nullptr));
  std::vector<std::string> all;
  auto state = ReadState(dir);
  if (state.ok()) all = *state;
  all.erase(std::remove(all.begin(), all.end(), name), all.end());
  all.push_back(name);
  while (options_.max_to_keep > 0 && static_cast<int>(all.size()) > options_.max_to_keep) all.erase(all.begin());
  FLOWVM_RETURN_IF_ERROR(WriteState(dir, all));
  // Only once the new list is in place are files it does not name deleted.
  RemoveUnlistedCheckpointFiles(dir, all);
  last_save_ = std::chrono::steady_clock::now();
  return prefix;
}

StatusOr<std::string> Saver::MaybeSave(const ClientSession& session, const std::string& dir, int64_t step) {
  bool due = options_.save_every_steps > 0 && step % options_.save_every_steps == 0;
  double since = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_save_).count();
  due = due || (options_.save_every_secs > 0 && since >= options_.save_every_secs);
  if (!due) return std::string();
  return Save(session, dir, step);
}

Status Saver::Restore(const ClientSession& session, const std::string& prefix) const {
  if (!restore_.valid()) return errors::FailedPrecondition("Saver: not built (see the scope's status)");
  return session.Run({{prefix_, Tensor::Scalar<std::string>(prefix)}}, {}, {restore_}, nullptr);
}

StatusOr<std::string> Saver::LatestCheckpoint(const std::string& dir) {
  FLOWVM_ASSIGN_OR_RETURN(std::vector<std::string> all, ReadState(dir));
  std::string prefix = (fs::path(dir) / all.back()).string();
  if (!fs::exists(prefix + ".index"))
    return errors::DataLoss(dir, "/", kStateFile, " names checkpoint '", all.back(), "' but ", prefix,
                            ".index does not exist");
  return prefix;
}

}  // namespace flowvm
