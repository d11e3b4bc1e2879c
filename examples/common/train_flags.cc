#include "common/train_flags.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace flowvm::examples {

namespace {

StatusOr<int64_t> ToInt(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0') return errors::InvalidArgument(flag, ": '", v, "' is not an integer");
  return static_cast<int64_t>(x);
}

StatusOr<double> ToDouble(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0') return errors::InvalidArgument(flag, ": '", v, "' is not a number");
  return x;
}

}  // namespace

Status ParseTrainFlags(int argc, char** argv, TrainFlags* f,
                       const std::function<StatusOr<bool>(const std::string&, const std::string&)>& extra) {
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i], value;
    if (flag == "--no-progress") {
      f->train.progress = false;
      continue;
    }
    if (flag.rfind("--", 0) != 0) return errors::InvalidArgument("unexpected argument '", flag, "'");
    size_t eq = flag.find('=');
    if (eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    } else {
      if (i + 1 >= argc) return errors::InvalidArgument(flag, ": missing value");
      value = argv[++i];
    }
    if (flag == "--steps") {
      FLOWVM_ASSIGN_OR_RETURN(f->train.steps, ToInt(flag, value));
      f->steps_set = true;
    } else if (flag == "--batch") {
      FLOWVM_ASSIGN_OR_RETURN(f->train.batch_size, ToInt(flag, value));
    } else if (flag == "--threads") {
      FLOWVM_ASSIGN_OR_RETURN(int64_t t, ToInt(flag, value));
      f->train.threads = static_cast<int>(t);
    } else if (flag == "--cpu-devices") {
      FLOWVM_ASSIGN_OR_RETURN(int64_t d, ToInt(flag, value));
      if (d < 1) return errors::InvalidArgument(flag, ": must be at least 1, got ", d);
      f->train.cpu_devices = static_cast<int>(d);
    } else if (flag == "--seed") {
      FLOWVM_ASSIGN_OR_RETURN(int64_t s, ToInt(flag, value));
      f->model.seed = s;
      f->train.data_seed = static_cast<uint64_t>(s);
    } else if (flag == "--lr") {
      FLOWVM_ASSIGN_OR_RETURN(double lr, ToDouble(flag, value));
      f->model.learning_rate = static_cast<float>(lr);
      f->lr_set = true;
    } else if (flag == "--optimizer") {
      if (value == "sgd") f->model.optimizer = OptimizerKind::kSgd;
      else if (value == "momentum") f->model.optimizer = OptimizerKind::kMomentum;
      else if (value == "adam") f->model.optimizer = OptimizerKind::kAdam;
      else if (value == "adagrad") f->model.optimizer = OptimizerKind::kAdagrad;
      else if (value == "rmsprop") f->model.optimizer = OptimizerKind::kRMSProp;
      else return errors::InvalidArgument(flag, ": '", value, "' is not one of sgd, momentum, adam, adagrad, rmsprop");
    } else if (flag == "--checkpoint-dir") {
      f->train.checkpoint_dir = value;
    } else if (flag == "--save-every") {
      FLOWVM_ASSIGN_OR_RETURN(f->train.save_every_steps, ToInt(flag, value));
    } else if (flag == "--save-every-secs") {
      FLOWVM_ASSIGN_OR_RETURN(f->train.save_every_secs, ToDouble(flag, value));
    } else if (flag == "--keep") {
      FLOWVM_ASSIGN_OR_RETURN(int64_t k, ToInt(flag, value));
      f->train.keep_checkpoints = static_cast<int>(k);
    } else if (flag == "--logdir") {
      f->train.summaries.logdir = value;
    } else if (flag == "--summary-every") {
      FLOWVM_ASSIGN_OR_RETURN(f->train.summaries.summary_every, ToInt(flag, value));
      if (f->train.summaries.summary_every < 1) return errors::InvalidArgument(flag, ": must be at least 1");
    } else if (flag == "--histogram-every") {
      FLOWVM_ASSIGN_OR_RETURN(f->train.summaries.histogram_every, ToInt(flag, value));
      if (f->train.summaries.histogram_every < 0) return errors::InvalidArgument(flag, ": must be >= 0");
    } else if (flag == "--trace-every") {
      FLOWVM_ASSIGN_OR_RETURN(f->train.summaries.trace_every, ToInt(flag, value));
      if (f->train.summaries.trace_every < 0) return errors::InvalidArgument(flag, ": must be >= 0");
    } else if (flag == "--min-accuracy") {
      FLOWVM_ASSIGN_OR_RETURN(f->min_accuracy, ToDouble(flag, value));
    } else {
      bool used = false;
      if (extra) {
        FLOWVM_ASSIGN_OR_RETURN(used, extra(flag, value));
      }
      if (!used) return errors::InvalidArgument("unknown flag '", flag, "'");
    }
  }
  if (f->train.steps < 0 || f->train.batch_size < 1)
    return errors::InvalidArgument("--steps must be >= 0 and --batch >= 1");
  return Status::OK();
}

int TrainAndReport(const char* program, Classifier& model, const Dataset& train, const Dataset& test,
                   const TrainFlags& flags) {
  TrainOptions options = flags.train;
  options.summaries.learning_rate = flags.model.learning_rate;
  auto result = Train(model, train, test, options);
  if (!result.ok()) {
    std::fprintf(stderr, "%s: %s\n", program, result.status().ToString().c_str());
    return 1;
  }
  if (!options.summaries.logdir.empty())
    std::printf("summaries: %s (watch with: flowvm board --logdir %s)\n", options.summaries.logdir.c_str(),
                options.summaries.logdir.c_str());
  if (result->resumed_from_step >= 0)
    std::printf("resumed from step %lld\n", static_cast<long long>(result->resumed_from_step));
  // The test loss has enough digits that a resumed run can be compared with
  // an uninterrupted one exactly.
  std::printf("test accuracy: %.2f%% (%lld examples), test loss %.8f, %lld steps\n", 100 * result->test_accuracy,
              static_cast<long long>(test.size()), result->test_loss, static_cast<long long>(result->steps));
  const int64_t ran = result->steps - std::max<int64_t>(result->resumed_from_step, 0);
  if (ran > 0)
    std::printf("training: %lld steps in %.3f s (%.2f us/step)\n", static_cast<long long>(ran),
                result->train_seconds, 1e6 * result->train_seconds / static_cast<double>(ran));
  if (result->test_accuracy < flags.min_accuracy) {
    std::fprintf(stderr, "%s: test accuracy %.2f%% is below --min-accuracy %.2f%%\n", program,
                 100 * result->test_accuracy, 100 * flags.min_accuracy);
    return 1;
  }
  return 0;
}

}  // namespace flowvm::examples
