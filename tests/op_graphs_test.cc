// Every op-graph case under tests/data/op_graphs (see opgraph.py there) run
// through `flowvm run` as a user would: a GraphDef in TensorFlow's text
// format, validated, shape-inferred and executed, with its fetched tensors
// compared to values NumPy computed, or its failure checked for the error
// code and the node's name.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flowvm/graph_io.h"
#include "flowvm/npy.h"
#include "flowvm/session.h"
#include "util/cli_runner.h"
#include "util/op_test_util.h"
#include "util/test_paths.h"

namespace flowvm {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::ReadFileBytes;
using testing::ShellQuote;

// Case directories relative to tests/data/op_graphs, sorted.
std::vector<std::string> ListCases() {
  std::vector<std::string> cases;
  const fs::path root = testing::SourcePath("tests/data/op_graphs");
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file() && it->path().filename() == "graph.pbtxt")
      cases.push_back(fs::relative(it->path().parent_path(), root).string());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

template <typename T>
double Real(const T& v) {
  if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    return static_cast<double>(v.real());
  } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return static_cast<double>(static_cast<float>(v));
  } else if constexpr (std::is_arithmetic_v<T>) {
    return static_cast<double>(v);
  } else {
    return static_cast<double>(v.value);  // quantized types
  }
}

// Floating-point values agree within atol + rtol * |expected|; NaN matches
// NaN and infinities match exactly. Everything else compares exactly.
template <typename T>
void CompareValues(const Tensor& actual, const Tensor& expected, double rtol, double atol, const std::string& what) {
  const T* a = actual.data<T>();
  const T* e = expected.data<T>();
  int reported = 0;
  for (int64_t i = 0; i < expected.NumElements() && reported < 10; ++i) {
    bool ok;
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
      const double x = static_cast<double>(static_cast<float>(a[i])), y = static_cast<double>(static_cast<float>(e[i]));
      if (std::isnan(y)) ok = std::isnan(x);
      else if (std::isinf(y)) ok = x == y;
      else ok = std::fabs(x - y) <= atol + rtol * std::fabs(y);
    } else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
      ok = std::abs(std::complex<double>(a[i].real(), a[i].imag()) - std::complex<double>(e[i].real(), e[i].imag())) <=
           atol + rtol * std::abs(std::complex<double>(e[i].real(), e[i].imag()));
    } else if constexpr (std::is_arithmetic_v<T>) {
      ok = a[i] == e[i];
    } else {
      ok = a[i].value == e[i].value;
    }
    if (!ok) {
      ++reported;
      ADD_FAILURE() << what << ": element " << i << " is " << Real(a[i]) << ", expected " << Real(e[i]);
    }
  }
}

void CompareTensors(const Tensor& actual_in, const Tensor& expected, double rtol, double atol, const std::string& what) {
  // .npy has no bfloat16 or quantized types: the references store them as
  // the integer type of the same size, as `flowvm run` writes them.
  Tensor actual = actual_in;
  if (actual.dtype() != expected.dtype() && DataTypeSize(actual.dtype()) == DataTypeSize(expected.dtype()) &&
      actual.dtype() != DT_STRING && expected.dtype() != DT_STRING) {
    Tensor same(expected.dtype(), actual.shape());
    std::memcpy(same.raw_data(), actual.raw_data(), actual.TotalBytes());
    actual = same;
  }
  ASSERT_EQ(DataTypeName(actual.dtype()), DataTypeName(expected.dtype())) << what;
  ASSERT_EQ(actual.shape().DebugString(), expected.shape().DebugString()) << what;
  VisitDataType(expected.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, std::string>) {
      ADD_FAILURE() << what << ": string fetches are not compared";
    } else {
      CompareValues<T>(actual, expected, rtol, atol, what);
    }
  });
}

class OpGraphTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OpGraphTest, MatchesReference) {
  const fs::path dir = fs::path(testing::SourcePath("tests/data/op_graphs")) / GetParam();
  std::string work = ::testing::TempDir() + "/op_graph_XXXXXX";
  ASSERT_NE(::mkdtemp(work.data()), nullptr);

  const std::string error_file = (dir / "error.txt").string();
  const bool expect_error = fs::exists(error_file);
  std::vector<std::string> fetches = Lines(ReadFileBytes((dir / "fetches.txt").string()));
  ASSERT_FALSE(fetches.empty()) << "case has no fetches.txt";

  std::string args = "run " + ShellQuote((dir / "graph.pbtxt").string()) + " --output-dir out";
  for (const std::string& f : fetches) args += " --fetch " + ShellQuote(f);
  for (const std::string& n : Lines(ReadFileBytes((dir / "init.txt").string()))) args += " --init " + ShellQuote(n);
  const std::vector<std::string> repeat = Lines(ReadFileBytes((dir / "repeat.txt").string()));
  if (!repeat.empty()) args += " --repeat " + ShellQuote(repeat[0]);
  const CliResult r = testing::RunCli(work, args);

  if (expect_error) {
    EXPECT_NE(r.exit_code, 0) << "expected the run to fail; stdout:\n" << r.out;
    for (const std::string& want : Lines(ReadFileBytes(error_file)))
      EXPECT_NE(r.err.find(want), std::string::npos) << "stderr lacks \"" << want << "\":\n" << r.err;
  } else {
    ASSERT_EQ(r.exit_code, 0) << r.err;
    double rtol = 1e-5, atol = 1e-6;
    const std::string tol = ReadFileBytes((dir / "tolerance.txt").string());
    if (!tol.empty()) std::istringstream(tol) >> rtol >> atol;
    for (size_t i = 0; i < fetches.size(); ++i) {
      std::string name = fetches[i];
      size_t colon = name.rfind(':');
      std::string port = "0";
      if (colon != std::string::npos && name.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
        port = name.substr(colon + 1);
        name = name.substr(0, colon);
      }
      std::string file;
      for (char c : name) file += c == '/' ? std::string("__") : std::string(1, c);
      auto actual = ReadNpyFile(work + "/out/" + file + "_" + port + ".npy");
      auto expected = ReadNpyFile((dir / ("expected_" + std::to_string(i) + ".npy")).string());
      ASSERT_TRUE(actual.ok()) << actual.status() << "\nstderr: " << r.err;
      ASSERT_TRUE(expected.ok()) << expected.status();
      CompareTensors(*actual, *expected, rtol, atol, fetches[i]);
    }
  }
  std::error_code ec;
  fs::remove_all(work, ec);
}

// The same cases in-process on 2 and 4 CPU devices, every node given a
// device in turn (node i on CPU:i mod N), so that nearly every edge crosses
// devices through a Send/Recv pair. Variables and the nodes that take them
// by reference are left to the placer (state stays where it was first put,
// so contradicting requests for a variable and its updates would be the
// graph's error, not the runtime's). Results must equal the NumPy reference
// as on one device, and errors must still name the failing node.
struct DeviceCase {
  std::string name;
  int devices;
};

class OpGraphDevicesTest : public ::testing::TestWithParam<DeviceCase> {};

TEST_P(OpGraphDevicesTest, MatchesReferenceWithNodesSpreadOverDevices) {
  const fs::path dir = fs::path(testing::SourcePath("tests/data/op_graphs")) / GetParam().name;
  const int devices = GetParam().devices;
  // Checkpoint cases write files relative to the working directory: each
  // case (its own process under ctest) works in a fresh one.
  std::string work = ::testing::TempDir() + "/op_graph_devices_XXXXXX";
  ASSERT_NE(::mkdtemp(work.data()), nullptr);
  const fs::path previous = fs::current_path();
  fs::current_path(work);
  struct Restore {
    fs::path previous, work;
    ~Restore() {
      std::error_code ec;
      fs::current_path(previous, ec);
      fs::remove_all(work, ec);
    }
  } restore{previous, work};
  auto graph = ReadGraphDefFile((dir / "graph.pbtxt").string());
  ASSERT_TRUE(graph.ok()) << graph.status();
  testing::SpreadOverDevices(&*graph, devices);  // an invalid graph's error is checked below
  SessionOptions options;
  options.cpu_devices = devices;
  options.allow_soft_placement = true;
  options.num_threads = 2;
  std::vector<std::string> fetches = Lines(ReadFileBytes((dir / "fetches.txt").string()));
  for (std::string& f : fetches) {
    size_t colon = f.rfind(':');
    if (colon == std::string::npos || f.find_first_not_of("0123456789", colon + 1) != std::string::npos) f += ":0";
  }
  const std::string error_file = (dir / "error.txt").string();
  const bool expect_error = fs::exists(error_file);
  Status status;
  std::vector<Tensor> out;
  auto session = Session::Create(options, *graph);
  status = session.status();
  if (status.ok()) {
    const std::vector<std::string> inits = Lines(ReadFileBytes((dir / "init.txt").string()));
    if (!inits.empty()) status = (*session)->Run({}, {}, inits, &out);
    const std::vector<std::string> repeat = Lines(ReadFileBytes((dir / "repeat.txt").string()));
    const int steps = repeat.empty() ? 1 : std::stoi(repeat[0]);
    RunStats stats;
    for (int i = 0; i < steps && status.ok(); ++i) status = (*session)->Run({}, fetches, {}, &out, &stats);
  }
  if (expect_error) {
    EXPECT_FALSE(status.ok()) << "expected the run to fail";
    const std::string text = status.ToString();
    for (const std::string& want : Lines(ReadFileBytes(error_file)))
      EXPECT_NE(text.find(want), std::string::npos) << "error lacks \"" << want << "\":\n" << text;
    return;
  }
  ASSERT_TRUE(status.ok()) << status;
  double rtol = 1e-5, atol = 1e-6;
  const std::string tol = ReadFileBytes((dir / "tolerance.txt").string());
  if (!tol.empty()) std::istringstream(tol) >> rtol >> atol;
  for (size_t i = 0; i < fetches.size(); ++i) {
    auto expected = ReadNpyFile((dir / ("expected_" + std::to_string(i) + ".npy")).string());
    ASSERT_TRUE(expected.ok()) << expected.status();
    CompareTensors(out[i], *expected, rtol, atol, fetches[i]);
  }
}

std::vector<DeviceCase> DeviceCases() {
  std::vector<DeviceCase> cases;
  for (int devices : {2, 4})
    for (const std::string& c : ListCases()) cases.push_back({c, devices});
  return cases;
}

std::string DeviceCaseName(const ::testing::TestParamInfo<DeviceCase>& info) {
  std::string name;
  for (char c : info.param.name) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name + "_on_" + std::to_string(info.param.devices) + "_devices";
}

INSTANTIATE_TEST_SUITE_P(Cases, OpGraphDevicesTest, ::testing::ValuesIn(DeviceCases()), DeviceCaseName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpGraphDevicesTest);

std::string CaseName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name;
  for (char c : info.param) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, OpGraphTest, ::testing::ValuesIn(ListCases()), CaseName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpGraphTest);

}  // namespace
}  // namespace flowvm
