// FunctionDefs shared by the tests of functions (header-only).
#ifndef FLOWVM_TESTS_UTIL_FUNCTION_TEST_UTIL_H_
#define FLOWVM_TESTS_UTIL_FUNCTION_TEST_UTIL_H_

#include <string>

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "flowvm/function.pb.h"

namespace flowvm::testing {

// A FunctionDef from TensorFlow's text format (a failed test if it does not parse).
inline FunctionDef ParseFunctionDef(const std::string& text) {
  FunctionDef f;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &f)) << text;
  return f;
}

// Fact(n) = n <= 1 ? 1 : n * Fact(n - 1), the recursion in the false branch
// of a Switch, on floats.
inline FunctionDef FactorialFunction() {
  return ParseFunctionDef(R"pb(
    signature { name: "Fact" input_arg { name: "n" type: DT_FLOAT } output_arg { name: "f" type: DT_FLOAT } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
    node_def { name: "le" op: "LessEqual" input: "n" input: "one:output:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "sw" op: "Switch" input: "n" input: "le:z:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "base" op: "OnesLike" input: "sw:output_true:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "nm1" op: "Sub" input: "sw:output_false:0" input: "one:output:0"
               attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "rec" op: "Fact" input: "nm1:z:0" }
    node_def { name: "prod" op: "Mul" input: "sw:output_false:0" input: "rec:f:0"
               attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "merge" op: "Merge" input: "base:y:0" input: "prod:z:0"
               attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
    ret { key: "f" value: "merge:output:0" })pb");
}

}  // namespace flowvm::testing

#endif  // FLOWVM_TESTS_UTIL_FUNCTION_TEST_UTIL_H_
