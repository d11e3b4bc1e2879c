#include "util/gradient_checker.h"

#include <algorithm>
#include <cstring>
#include <cmath>
#include <random>

#include "flowvm/session.h"
#include "graph/gradients.h"
#include "util/op_test_util.h"

namespace flowvm::testing {

GradientCheck::GradientCheck() : graph_(std::make_unique<Graph>()) {}
GradientCheck::~GradientCheck() = default;

void GradientCheck::AddInput(const Tensor& value) { x_values_.push_back(value); }

void GradientCheck::Build(const GradientBuildFn& fn) { build_ = fn; }

Tensor RandomDoubles(const TensorShape& shape, double lo, double hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Tensor t = *Tensor::Allocate(DT_DOUBLE, shape);
  for (double& v : t.flat<double>()) v = dist(rng);
  return t;
}

namespace {

Tensor ZerosOf(DataType dtype, const TensorShape& shape) {
  Tensor t = *Tensor::Allocate(dtype, shape);
  if (t.NumElements() > 0) std::memset(t.raw_data(), 0, t.NumElements() * DataTypeSize(dtype));
  return t;
}

double Element(const Tensor& t, int64_t i) {
  return t.dtype() == DT_FLOAT ? static_cast<double>(t.flat<float>()[i]) : t.flat<double>()[i];
}

}  // namespace

StatusOr<double> GradientCheck::MaxError() {
  if (!build_) return errors::FailedPrecondition("GradientCheck: Build was not called");
  GraphScope root(graph_.get());
  std::vector<NodeOut> xs;
  for (size_t i = 0; i < x_values_.size(); ++i) {
    const Tensor& v = x_values_[i];
    xs.push_back(root.WithOpName("x" + std::to_string(i))
                     .Op("Placeholder", {}, {{"dtype", MakeAttrValue(v.dtype())}, {"shape", MakeAttrValue(v.shape())}}));
    x_names_.push_back("x" + std::to_string(i) + ":0");
  }
  FLOWVM_RETURN_IF_ERROR(root.status());
  int first_forward = graph_->num_node_ids();
  GraphScope forward = root.NewSubScope("f");
  std::vector<NodeOut> ys = build_(forward, xs);
  FLOWVM_RETURN_IF_ERROR(root.status());
  if (ys.empty()) return errors::InvalidArgument("GradientCheck: the build function returned no ys");
  for (Node* n : graph_->nodes())
    if (n->id() >= first_forward) forward_ops_.insert(n->op());
  std::vector<NodeOut> dys;
  for (size_t i = 0; i < ys.size(); ++i) {
    if (!ys[i].valid()) return errors::InvalidArgument("GradientCheck: y ", i, " is not set");
    y_names_.push_back(ys[i].name());
    dys.push_back(root.WithOpName("dy" + std::to_string(i))
                      .Op("Placeholder", {}, {{"dtype", MakeAttrValue(BaseType(ys[i].dtype()))}}));
    dy_names_.push_back("dy" + std::to_string(i) + ":0");
  }
  std::vector<NodeOut> dxs;
  FLOWVM_RETURN_IF_ERROR(AddSymbolicGradients(root, ys, xs, dys, &dxs));
  for (const NodeOut& dx : dxs) dx_names_.push_back(dx.name());

  GraphDef def;
  graph_->ToGraphDef(&def);
  SessionOptions options;
  options.num_threads = 1;
  SpreadOverTestDevices(&def, &options);
  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(options, def));

  auto feeds_for = [&](const std::vector<Tensor>& x_vals) {
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (size_t i = 0; i < x_vals.size(); ++i) feeds.emplace_back(x_names_[i], x_vals[i]);
    return feeds;
  };

  // Forward values at x, for the shapes of the ys.
  std::vector<Tensor> y0;
  FLOWVM_RETURN_IF_ERROR(session->Run(feeds_for(x_values_), y_names_, {}, &y0));

  int64_t num_x = 0, num_y = 0;
  for (const Tensor& x : x_values_) num_x += x.NumElements();
  for (const Tensor& y : y0) num_y += y.NumElements();
  std::vector<double> theoretical(num_x * num_y), numeric(num_x * num_y);

  // Theoretical Jacobian, one row per y element.
  int64_t row = 0;
  for (size_t yi = 0; yi < y0.size(); ++yi) {
    for (int64_t j = 0; j < y0[yi].NumElements(); ++j, ++row) {
      auto feeds = feeds_for(x_values_);
      for (size_t k = 0; k < y0.size(); ++k) {
        Tensor dy = ZerosOf(y0[k].dtype(), y0[k].shape());
        if (k == yi) {
          if (dy.dtype() == DT_FLOAT)
            dy.flat<float>()[j] = 1;
          else
            dy.flat<double>()[j] = 1;
        }
        feeds.emplace_back(dy_names_[k], dy);
      }
      std::vector<Tensor> dx;
      RunStats stats;
      FLOWVM_RETURN_IF_ERROR(session->Run(feeds, dx_names_, {}, &dx, &stats));
      // The device harness must really spread the gradient step (unless
      // the optimizer left almost nothing: an Identity's gradient is dy).
      if (options.cpu_devices > 1 && stats.partitions < 2 && stats.executed_nodes > 3)
        return errors::Internal("GradientCheck: the step of ", stats.executed_nodes, " nodes ran on ",
                                stats.partitions, " of ", options.cpu_devices, " devices");
      int64_t col = 0;
      for (size_t xi = 0; xi < dx.size(); ++xi) {
        if (dx[xi].shape() != x_values_[xi].shape())
          return errors::Internal("GradientCheck: gradient '", dx_names_[xi], "' has shape ",
                                  dx[xi].shape().DebugString(), " but x", xi, " has shape ",
                                  x_values_[xi].shape().DebugString());
        for (int64_t k = 0; k < dx[xi].NumElements(); ++k, ++col) theoretical[row * num_x + col] = Element(dx[xi], k);
      }
    }
  }

  // Numeric Jacobian, one column per x element.
  int64_t col = 0;
  for (size_t xi = 0; xi < x_values_.size(); ++xi) {
    for (int64_t k = 0; k < x_values_[xi].NumElements(); ++k, ++col) {
      std::vector<Tensor> plus_x = x_values_, minus_x = x_values_;
      plus_x[xi] = *Tensor::Allocate(x_values_[xi].dtype(), x_values_[xi].shape());
      minus_x[xi] = *Tensor::Allocate(x_values_[xi].dtype(), x_values_[xi].shape());
      std::memcpy(plus_x[xi].raw_data(), x_values_[xi].raw_data(), x_values_[xi].NumElements() * sizeof(double));
      std::memcpy(minus_x[xi].raw_data(), x_values_[xi].raw_data(), x_values_[xi].NumElements() * sizeof(double));
      plus_x[xi].flat<double>()[k] += delta_;
      minus_x[xi].flat<double>()[k] -= delta_;
      std::vector<Tensor> yp, ym;
      FLOWVM_RETURN_IF_ERROR(session->Run(feeds_for(plus_x), y_names_, {}, &yp));
      FLOWVM_RETURN_IF_ERROR(session->Run(feeds_for(minus_x), y_names_, {}, &ym));
      int64_t r = 0;
      for (size_t yi = 0; yi < yp.size(); ++yi)
        for (int64_t j = 0; j < yp[yi].NumElements(); ++j, ++r)
          numeric[r * num_x + col] = (Element(yp[yi], j) - Element(ym[yi], j)) / (2 * delta_);
    }
  }

  double max_error = 0;
  for (size_t i = 0; i < numeric.size(); ++i) {
    double err = std::abs(theoretical[i] - numeric[i]) / std::max(1.0, std::abs(numeric[i]));
    if (std::isnan(theoretical[i]) != std::isnan(numeric[i])) err = INFINITY;
    max_error = std::max(max_error, err);
  }
  return max_error;
}

}  // namespace flowvm::testing
