#include "common/training_summaries.h"

#include <utility>

#include "flowvm/cc/training.h"

namespace flowvm::examples {

StatusOr<std::unique_ptr<TrainingSummaries>> TrainingSummaries::Create(const Scope& root,
                                                                       const SummaryOptions& options,
                                                                       Output images) {
  if (options.summary_every < 1)
    return errors::InvalidArgument("--summary-every must be >= 1, got ", options.summary_every);
  if (options.histogram_every < 0 || options.trace_every < 0)
    return errors::InvalidArgument("--histogram-every and --trace-every must be >= 0");
  std::unique_ptr<TrainingSummaries> s(new TrainingSummaries());
  s->options_ = options;
  Scope scope = root.NewSubScope("summaries");
  std::vector<Output> histograms;
  for (const Variable& v : TrainableVariables(root)) {
    histograms.push_back(
        ops::HistogramSummary(scope, ops::Const(scope, "weights/" + v.name()), v.ref()).summary);
  }
  if (images.node() != nullptr && options.image_height > 0 && options.image_width > 0) {
    Output batch = ops::Reshape(
        scope, images, Input(Tensor::FromVector<int64_t>({-1, options.image_height, options.image_width, 1})));
    histograms.push_back(
        ops::ImageSummary(scope, ops::Const(scope, std::string("inputs")), batch, ops::ImageSummary::MaxImages(3))
            .summary);
  }
  if (!histograms.empty()) s->histograms_ = ops::MergeSummary(scope.WithOpName("weights"), histograms);
  FLOWVM_RETURN_IF_ERROR(root.status());
  FLOWVM_ASSIGN_OR_RETURN(s->writer_, SummaryWriter::Create(options.logdir));
  GraphDef graph;
  FLOWVM_RETURN_IF_ERROR(root.ToGraphDef(&graph));
  FLOWVM_RETURN_IF_ERROR(s->writer_->AddGraph(graph));
  return s;
}

RunOptions TrainingSummaries::BeforeStep(int64_t step, std::vector<Output>* fetches) const {
  if (histograms_.node() != nullptr && Due(step, options_.histogram_every)) fetches->push_back(histograms_);
  RunOptions run_options;
  // Step 0 is the first step, slower than the rest (it prepares the graph):
  // the first trace is taken at the first multiple of trace_every after it.
  if (step > 0 && Due(step, options_.trace_every)) {
    run_options.set_trace_level(RunOptions::FULL_TRACE);
    // The partition graphs tell the board where each node ran; placement
    // does not change between steps, so the first trace carries them.
    run_options.set_output_partition_graphs(!traced_);
  }
  return run_options;
}

Status TrainingSummaries::AfterStep(int64_t step, const StepResult& result, const std::vector<Tensor>& outputs,
                                    size_t own, const RunMetadata& metadata) {
  for (size_t i = own; i < outputs.size(); ++i) {
    FLOWVM_RETURN_IF_ERROR(writer_->AddSerializedSummary(outputs[i].scalar<std::string>(), step));
  }
  const auto now = std::chrono::steady_clock::now();
  examples_since_ += result.examples;
  if (metadata.has_step_stats()) {
    have_since_ = false;  // start measuring again after the traced step
  } else if (!have_since_) {
    // The first step (it prepares the graph) is not counted either.
    have_since_ = true;
    since_ = now;
    examples_since_ = 0;
  }
  if (Due(step, options_.summary_every)) {
    // One event for the step's scalars, as a merged summary would be.
    SummaryWriter::Scalar scalars[4] = {
        {"loss", result.loss}, {"accuracy", result.accuracy}, {"learning_rate", options_.learning_rate}, {}};
    size_t count = 3;
    const double secs = std::chrono::duration<double>(now - since_).count();
    if (have_since_ && examples_since_ > 0 && secs > 0) {
      scalars[count++] = {"examples_per_sec", static_cast<double>(examples_since_) / secs};
      since_ = now;
      examples_since_ = 0;
    }
    FLOWVM_RETURN_IF_ERROR(writer_->AddScalars(scalars, count, step));
  }
  if (metadata.has_step_stats()) {
    FLOWVM_RETURN_IF_ERROR(writer_->AddRunMetadata("step_" + std::to_string(step), metadata, step));
    traced_ = true;
  }
  return Status::OK();
}

Status TrainingSummaries::AddTestResult(int64_t step, double accuracy, double loss) {
  return writer_->AddScalars({{"test_accuracy", accuracy}, {"test_loss", loss}}, step);
}

Status TrainingSummaries::Close() { return writer_->Close(); }

}  // namespace flowvm::examples
