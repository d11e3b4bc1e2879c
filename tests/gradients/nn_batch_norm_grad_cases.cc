// Gradient checks for the fused batch-norm ops (ops/nn_batch_norm_ops.cc).
// Their kernels are float only (as TensorFlow's), so the checks run through
// casts with a step and tolerance sized for float32 rounding.
#include "gradients/gradient_cases.h"

namespace flowvm::testing {
namespace {

struct Bn {
  const char* name;
  const char* op;
  std::vector<int64_t> x;
  const char* format;
  bool training;
};

NodeOut ToFloat(const GraphScope& s, NodeOut x) { return s.Op("Cast", {x}, {{"DstT", MakeAttrValue(DT_FLOAT)}}); }

std::vector<GradCase> BatchNormCases() {
  std::vector<GradCase> cases;
  for (const Bn& b : {Bn{"FusedBatchNorm_training", "FusedBatchNorm", {2, 2, 2, 3}, "NHWC", true},
                      Bn{"FusedBatchNormV2_nchw_training", "FusedBatchNormV2", {2, 3, 2, 2}, "NCHW", true},
                      Bn{"FusedBatchNormV3_training", "FusedBatchNormV3", {3, 2, 2, 2}, "NHWC", true},
                      Bn{"FusedBatchNormV3_inference", "FusedBatchNormV3", {2, 2, 2, 3}, "NHWC", false},
                      Bn{"FusedBatchNorm_nchw_inference", "FusedBatchNorm", {2, 3, 2, 2}, "NCHW", false},
                      Bn{"FusedBatchNormV3_ncdhw_training", "FusedBatchNormV3", {1, 2, 2, 2, 3}, "NCDHW", true}}) {
    const std::string format(b.format);
    const int64_t channels = format[1] == 'C' ? b.x[1] : b.x.back();
    Bn bn = b;
    cases.push_back(
        {b.name, b.op,
         {RandomDoubles(TensorShape::FromDims(b.x).value(), -1, 1, 31),
          RandomDoubles(TensorShape({channels}), 0.5, 1.5, 32), RandomDoubles(TensorShape({channels}), -1, 1, 33)},
         [bn, channels](const GraphScope& s, const std::vector<NodeOut>& x) {
           const std::string op(bn.op);
           AttrMap attrs = {{"epsilon", MakeAttrValue(0.01f)},
                            {"data_format", MakeAttrValue(std::string(bn.format))},
                            {"is_training", MakeAttrValue(bn.training)}};
           if (op != "FusedBatchNorm") attrs["U"] = MakeAttrValue(DT_FLOAT);
           Tensor mean(DT_FLOAT, TensorShape({bn.training ? 0 : channels}));
           Tensor var(DT_FLOAT, TensorShape({bn.training ? 0 : channels}));
           for (int64_t c = 0; c < mean.NumElements(); ++c) {
             mean.data<float>()[c] = 0.1f * c - 0.2f;
             var.data<float>()[c] = 0.5f + 0.25f * c;
           }
           NodeOut y = s.Op(bn.op, {ToFloat(s, x[0]), ToFloat(s, x[1]), ToFloat(s, x[2]), ConstOp(s, mean),
                                    ConstOp(s, var)},
                            attrs);
           return Ys(s.Op("Cast", {y}, {{"DstT", MakeAttrValue(DT_DOUBLE)}}));
         },
         3e-3, 1e-3});
  }
  return cases;
}

GradCaseRegistrar registrar(BatchNormCases());

}  // namespace
}  // namespace flowvm::testing
