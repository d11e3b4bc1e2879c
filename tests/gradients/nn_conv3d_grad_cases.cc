// Gradient checks for the 3-D convolution and pooling ops
// (ops/nn_conv3d_ops.cc), first order and the backprop ops themselves.
// MaxPool3D has float kernels only (as TensorFlow's): its check runs
// through casts, with a step and tolerance sized for float32.
#include "gradients/gradient_cases.h"

namespace flowvm::testing {
namespace {

struct Conv3 {
  const char* name;
  std::vector<int64_t> input, filter, strides, dilations;
  const char* padding;
  const char* format;
};

Tensor R(const std::vector<int64_t>& dims, uint64_t seed) {
  return RandomDoubles(TensorShape::FromDims(dims).value(), -1, 1, seed);
}

NodeOut Sizes(const GraphScope& s, const std::vector<int64_t>& dims) {
  return I32(s, std::vector<int32_t>(dims.begin(), dims.end()));
}

std::vector<GradCase> Conv3DCases() {
  std::vector<GradCase> cases;
  // Shapes in the case's format; outputs as the forward op computes them.
  struct WithOut {
    Conv3 c;
    std::vector<int64_t> out;
  };
  for (const WithOut& w :
       {WithOut{Conv3{"valid", {1, 3, 4, 3, 2}, {2, 2, 2, 2, 2}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID", "NDHWC"},
                {1, 2, 3, 2, 2}},
        WithOut{Conv3{"same_strided", {1, 4, 3, 4, 1}, {3, 2, 3, 1, 2}, {1, 2, 1, 2, 1}, {1, 1, 1, 1, 1}, "SAME",
                      "NDHWC"},
                {1, 2, 3, 2, 2}},
        WithOut{Conv3{"ncdhw_dilated", {1, 2, 4, 3, 3}, {2, 1, 2, 2, 2}, {1, 1, 1, 1, 1}, {1, 1, 2, 1, 1}, "VALID",
                      "NCDHW"},
                {1, 2, 2, 3, 2}}}) {
    const Conv3 c = w.c;
    auto attrs = [c]() {
      return AttrMap{{"strides", MakeAttrValue(c.strides)},
                     {"dilations", MakeAttrValue(c.dilations)},
                     {"padding", MakeAttrValue(std::string(c.padding))},
                     {"data_format", MakeAttrValue(std::string(c.format))}};
    };
    cases.push_back({std::string("Conv3D_") + c.name, "Conv3D", {R(c.input, 41), R(c.filter, 42)},
                     [attrs](const GraphScope& s, const std::vector<NodeOut>& x) {
                       return Ys(s.Op("Conv3D", {x[0], x[1]}, attrs()));
                     }});
    cases.push_back({std::string("Conv3DBackpropInputV2_") + c.name, "Conv3DBackpropInputV2",
                     {R(c.filter, 43), R(w.out, 44)},
                     [attrs, c](const GraphScope& s, const std::vector<NodeOut>& x) {
                       return Ys(s.Op("Conv3DBackpropInputV2", {Sizes(s, c.input), x[0], x[1]}, attrs()));
                     }});
    cases.push_back({std::string("Conv3DBackpropFilterV2_") + c.name, "Conv3DBackpropFilterV2",
                     {R(c.input, 45), R(w.out, 46)},
                     [attrs, c](const GraphScope& s, const std::vector<NodeOut>& x) {
                       return Ys(s.Op("Conv3DBackpropFilterV2", {x[0], Sizes(s, c.filter), x[1]}, attrs()));
                     }});
  }

  struct Pool3 {
    const char* name;
    std::vector<int64_t> input, ksize, strides, out;
    const char* padding;
    const char* format;
  };
  for (const Pool3& p : {Pool3{"valid", {1, 4, 4, 2, 2}, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, {1, 2, 2, 1, 2}, "VALID",
                               "NDHWC"},
                         Pool3{"same_overlapping", {1, 3, 4, 3, 1}, {1, 2, 3, 2, 1}, {1, 1, 2, 2, 1},
                               {1, 3, 2, 2, 1}, "SAME", "NDHWC"},
                         Pool3{"ncdhw", {1, 2, 3, 4, 2}, {1, 1, 2, 2, 2}, {1, 1, 2, 2, 2}, {1, 2, 2, 2, 1}, "SAME",
                               "NCDHW"}}) {
    auto attrs = [p]() {
      return AttrMap{{"ksize", MakeAttrValue(p.ksize)},
                     {"strides", MakeAttrValue(p.strides)},
                     {"padding", MakeAttrValue(std::string(p.padding))},
                     {"data_format", MakeAttrValue(std::string(p.format))}};
    };
    cases.push_back({std::string("AvgPool3D_") + p.name, "AvgPool3D", {R(p.input, 47)},
                     [attrs](const GraphScope& s, const std::vector<NodeOut>& x) {
                       return Ys(s.Op("AvgPool3D", {x[0]}, attrs()));
                     }});
    cases.push_back({std::string("AvgPool3DGrad_") + p.name, "AvgPool3DGrad", {R(p.out, 48)},
                     [attrs, p](const GraphScope& s, const std::vector<NodeOut>& x) {
                       return Ys(s.Op("AvgPool3DGrad", {Sizes(s, p.input), x[0]}, attrs()));
                     }});
    cases.push_back({std::string("MaxPool3D_") + p.name, "MaxPool3D", {R(p.input, 49)},
                     [attrs](const GraphScope& s, const std::vector<NodeOut>& x) {
                       NodeOut f = s.Op("Cast", {x[0]}, {{"DstT", MakeAttrValue(DT_FLOAT)}});
                       NodeOut y = s.Op("MaxPool3D", {f}, attrs());
                       return Ys(s.Op("Cast", {y}, {{"DstT", MakeAttrValue(DT_DOUBLE)}}));
                     },
                     1e-3, 1e-3});
  }
  return cases;
}

GradCaseRegistrar registrar(Conv3DCases());

}  // namespace
}  // namespace flowvm::testing
