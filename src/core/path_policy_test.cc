// PathPolicy: which paths a server's graphs may touch. Inside and outside,
// `..`, symbolic links to files and directories (also dangling ones and
// loops), relative paths, and "/tmp/a" not allowing "/tmp/ab".
#include "core/path_policy.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace flowvm {
namespace {

namespace fs = std::filesystem;

class PathPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string root = ::testing::TempDir() + "/path_policy_XXXXXX";
    ASSERT_NE(::mkdtemp(root.data()), nullptr);
    char real[PATH_MAX];
    ASSERT_NE(::realpath(root.c_str(), real), nullptr);
    root_ = real;
    allowed_ = root_ + "/allowed";
    outside_ = root_ + "/outside";
    fs::create_directories(allowed_ + "/sub");
    fs::create_directories(outside_);
    Touch(allowed_ + "/in.txt");
    Touch(allowed_ + "/sub/deep.txt");
    Touch(outside_ + "/secret.txt");
    auto p = PathPolicy::Create({allowed_});
    ASSERT_TRUE(p.ok()) << p.status();
    policy_ = *p;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  static void Touch(const std::string& path) { std::ofstream(path) << "x"; }

  void ExpectAllowed(const std::string& path, PathAccess access = PathAccess::kRead) {
    Status s = policy_->Check(path, access);
    EXPECT_TRUE(s.ok()) << path << ": " << s;
  }
  // Refused, naming the path and the allowed directory.
  void ExpectRefused(const std::string& path, PathAccess access = PathAccess::kRead) {
    Status s = policy_->Check(path, access);
    ASSERT_FALSE(s.ok()) << path << " was allowed";
    EXPECT_EQ(s.code(), Code::kPermissionDenied) << s;
    const std::string verb = access == PathAccess::kRead ? "may not read '" : "may not write '";
    EXPECT_NE(s.message().find(verb + path + "'"), std::string::npos) << s;
    EXPECT_NE(s.message().find(allowed_), std::string::npos) << s;
  }

  std::string root_, allowed_, outside_;
  std::shared_ptr<const PathPolicy> policy_;
};

TEST_F(PathPolicyTest, AllowsWhatLiesInsideForReadAndWrite) {
  for (PathAccess a : {PathAccess::kRead, PathAccess::kWrite}) {
    ExpectAllowed(allowed_, a);
    ExpectAllowed(allowed_ + "/", a);
    ExpectAllowed(allowed_ + "/in.txt", a);
    ExpectAllowed(allowed_ + "/sub/deep.txt", a);
    ExpectAllowed(allowed_ + "//sub/./deep.txt", a);
    ExpectAllowed(allowed_ + "/sub/../in.txt", a);  // `..` through a directory that exists
  }
  // Files and directories that do not exist yet (a checkpoint, a log).
  ExpectAllowed(allowed_ + "/new.txt", PathAccess::kWrite);
  ExpectAllowed(allowed_ + "/a/b/c/ckpt-1.index", PathAccess::kWrite);
  ExpectAllowed(allowed_ + "/a/./b/ckpt", PathAccess::kWrite);
}

TEST_F(PathPolicyTest, RefusesWhatLiesOutside) {
  ExpectRefused(outside_ + "/secret.txt");
  ExpectRefused(outside_ + "/new.txt", PathAccess::kWrite);
  ExpectRefused("/etc/passwd");
  ExpectRefused(root_);
  ExpectRefused("/");
  Status s = policy_->Check("/etc/x", PathAccess::kWrite);
  EXPECT_EQ(s.message(),
            "may not write '/etc/x': outside the directories this server allows (" + allowed_ + ")");
}

TEST_F(PathPolicyTest, RefusesEscapesThroughDotDot) {
  ExpectRefused(allowed_ + "/../outside/secret.txt");
  ExpectRefused(allowed_ + "/sub/../../outside/new.txt", PathAccess::kWrite);
  ExpectRefused(allowed_ + "/..");
  Status s = policy_->Check(allowed_ + "/../outside/secret.txt", PathAccess::kRead);
  EXPECT_NE(s.message().find("resolves to '" + outside_ + "/secret.txt'"), std::string::npos) << s;
  // `..` after a directory that does not exist: a writer creating parents
  // would make it and climb out, so it is refused even when it would land inside.
  ExpectRefused(allowed_ + "/missing/../../outside/x", PathAccess::kWrite);
  ExpectRefused(allowed_ + "/missing/../in.txt", PathAccess::kWrite);
  s = policy_->Check(allowed_ + "/missing/../in.txt", PathAccess::kWrite);
  EXPECT_NE(s.message().find("'missing', which does not exist"), std::string::npos) << s;
}

TEST_F(PathPolicyTest, FollowsSymbolicLinks) {
  fs::create_symlink(outside_ + "/secret.txt", allowed_ + "/file_link");
  fs::create_symlink(outside_, allowed_ + "/dir_link");
  fs::create_symlink("../outside", allowed_ + "/relative_link");
  fs::create_symlink(allowed_ + "/in.txt", allowed_ + "/inner_link");
  fs::create_symlink("sub", allowed_ + "/inner_dir_link");
  for (PathAccess a : {PathAccess::kRead, PathAccess::kWrite}) {
    ExpectRefused(allowed_ + "/file_link", a);
    ExpectRefused(allowed_ + "/dir_link/secret.txt", a);
    ExpectRefused(allowed_ + "/relative_link/secret.txt", a);
    ExpectAllowed(allowed_ + "/inner_link", a);
    ExpectAllowed(allowed_ + "/inner_dir_link/deep.txt", a);
  }
  ExpectRefused(allowed_ + "/dir_link/new/ckpt.index", PathAccess::kWrite);
  Status s = policy_->Check(allowed_ + "/file_link", PathAccess::kRead);
  EXPECT_NE(s.message().find("resolves to '" + outside_ + "/secret.txt'"), std::string::npos) << s;

  // A link outside that points inside: a rename onto it would replace the
  // link, outside.
  fs::create_symlink(allowed_ + "/in.txt", outside_ + "/points_in");
  ExpectRefused(outside_ + "/points_in", PathAccess::kWrite);
  // A directory outside reached through a link inside is still outside;
  // one inside reached through a link outside is inside.
  fs::create_symlink(allowed_ + "/sub", outside_ + "/sub_link");
  ExpectAllowed(outside_ + "/sub_link/deep.txt");
}

TEST_F(PathPolicyTest, FollowsDanglingLinks) {
  // Writing through a link that points nowhere creates its target.
  fs::create_symlink(outside_ + "/not_yet.txt", allowed_ + "/dangling");
  fs::create_symlink(outside_ + "/no_dir", allowed_ + "/dangling_dir");
  fs::create_symlink(allowed_ + "/not_yet.txt", allowed_ + "/dangling_inside");
  ExpectRefused(allowed_ + "/dangling", PathAccess::kWrite);
  ExpectRefused(allowed_ + "/dangling_dir/x", PathAccess::kWrite);
  ExpectAllowed(allowed_ + "/dangling_inside", PathAccess::kWrite);
  // A loop never resolves.
  fs::create_symlink(allowed_ + "/loop", allowed_ + "/loop");
  ExpectRefused(allowed_ + "/loop", PathAccess::kWrite);
  ExpectRefused(allowed_ + "/loop/x", PathAccess::kWrite);
}

TEST_F(PathPolicyTest, DoesNotTakeAPrefixForADirectory) {
  fs::create_directories(allowed_ + "b");
  Touch(allowed_ + "b/x");
  ExpectRefused(allowed_ + "b/x");
  ExpectRefused(allowed_ + "b/y", PathAccess::kWrite);
  ExpectRefused(allowed_ + "b");
  ExpectAllowed(allowed_ + "/b");  // a name inside, not the sibling
}

TEST_F(PathPolicyTest, ResolvesRelativePathsAgainstTheWorkingDirectory) {
  char before[PATH_MAX];
  ASSERT_NE(::getcwd(before, sizeof before), nullptr);
  ASSERT_EQ(::chdir(allowed_.c_str()), 0);
  Status inside = policy_->Check("sub/deep.txt", PathAccess::kRead);
  Status created = policy_->Check("logs/run1/events", PathAccess::kWrite);
  Status dot = policy_->Check(".", PathAccess::kRead);
  Status escape = policy_->Check("../outside/secret.txt", PathAccess::kRead);
  auto from_cwd = PathPolicy::Create({"."});
  ASSERT_EQ(::chdir(before), 0);
  EXPECT_TRUE(inside.ok()) << inside;
  EXPECT_TRUE(created.ok()) << created;
  EXPECT_TRUE(dot.ok()) << dot;
  EXPECT_EQ(escape.code(), Code::kPermissionDenied) << escape;
  EXPECT_NE(escape.message().find("'../outside/secret.txt' (which resolves to '" + outside_ + "/secret.txt')"),
            std::string::npos)
      << escape;
  ASSERT_TRUE(from_cwd.ok()) << from_cwd.status();
  EXPECT_EQ((*from_cwd)->dirs(), std::vector<std::string>{allowed_});
}

TEST_F(PathPolicyTest, SeveralDirectoriesAndTheRoot) {
  auto two = PathPolicy::Create({allowed_, outside_ + "/", allowed_});
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ((*two)->dirs(), (std::vector<std::string>{allowed_, outside_}));
  EXPECT_EQ((*two)->Describe(), allowed_ + ", " + outside_);
  EXPECT_TRUE((*two)->Check(outside_ + "/secret.txt", PathAccess::kRead).ok());
  EXPECT_TRUE((*two)->Check(allowed_ + "/in.txt", PathAccess::kRead).ok());
  Status s = (*two)->Check(root_ + "/elsewhere", PathAccess::kWrite);
  EXPECT_NE(s.message().find("(" + allowed_ + ", " + outside_ + ")"), std::string::npos) << s;

  auto root = PathPolicy::Create({"/"});
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_TRUE((*root)->Check("/etc/passwd", PathAccess::kRead).ok());
  EXPECT_TRUE((*root)->Check(outside_ + "/x/y", PathAccess::kWrite).ok());
}

TEST_F(PathPolicyTest, AllowedDirectoriesAreCanonical) {
  fs::create_symlink(allowed_, root_ + "/allowed_link");
  auto p = PathPolicy::Create({root_ + "/allowed_link"});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ((*p)->dirs(), std::vector<std::string>{allowed_});
  EXPECT_TRUE((*p)->Check(root_ + "/allowed_link/in.txt", PathAccess::kRead).ok());
  EXPECT_TRUE((*p)->Check(allowed_ + "/in.txt", PathAccess::kRead).ok());
}

TEST_F(PathPolicyTest, BadDirectoriesAreInvalidArguments) {
  auto missing = PathPolicy::Create({allowed_, root_ + "/missing"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("'" + root_ + "/missing'"), std::string::npos) << missing.status();
  auto file = PathPolicy::Create({allowed_ + "/in.txt"});
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), Code::kInvalidArgument);
  EXPECT_NE(file.status().message().find("'" + allowed_ + "/in.txt' is not a directory"), std::string::npos)
      << file.status();
  EXPECT_EQ(PathPolicy::Create({}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(PathPolicy::Create({""}).status().code(), Code::kInvalidArgument);
}

TEST_F(PathPolicyTest, AnEmptyNameIsInvalid) {
  EXPECT_EQ(policy_->Check("", PathAccess::kRead).code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace flowvm
