#include "board/run_data.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "flowvm/config.pb.h"
#include "flowvm/dtype.h"
#include "flowvm/tensor.h"

namespace flowvm::board {

namespace {

constexpr char kScalarsPlugin[] = "scalars";

// The value of a one-element numeric tensor (TF2's scalar summaries).
bool ScalarFromTensor(const TensorProto& proto, double* out) {
  StatusOr<Tensor> t = Tensor::FromProto(proto);
  if (!t.ok() || t->NumElements() != 1) return false;
  switch (t->dtype()) {
    case DT_FLOAT: *out = t->scalar<float>(); return true;
    case DT_DOUBLE: *out = t->scalar<double>(); return true;
    case DT_HALF: *out = static_cast<float>(t->scalar<half>()); return true;
    case DT_BFLOAT16: *out = static_cast<float>(t->scalar<bfloat16>()); return true;
    case DT_INT32: *out = t->scalar<int32_t>(); return true;
    case DT_INT64: *out = static_cast<double>(t->scalar<int64_t>()); return true;
    case DT_BOOL: *out = t->scalar<bool>() ? 1 : 0; return true;
    default: return false;
  }
}

template <typename T>
int64_t StepOf(const T& point) {
  return point.step;
}

Status NoTag(const char* kind, const std::string& run, const std::string& tag) {
  return errors::NotFound("run '", run, "' has no ", kind, " tag '", tag, "'");
}

}  // namespace

bool RunData::Add(const Event& event) {
  bool changed = false;
  if (!any_event_) {
    any_event_ = true;
    first_wall_time_ = event.wall_time();
    changed = true;
  }
  const int64_t previous_step = last_step_;
  if (event.what_case() != Event::kFileVersion && event.what_case() != Event::WHAT_NOT_SET) {
    changed |= last_step_ != event.step();
    last_step_ = event.step();
  }
  switch (event.what_case()) {
    case Event::kSummary:
      // A summary at a step below the newest one seen: the job restarted
      // from a checkpoint (as TensorBoard reads it). What its tags had at
      // and after that step belongs to the run that died: dropped, so the
      // curve does not zigzag between the two.
      if (event.step() < previous_step) {
        std::set<std::string> tags;
        for (const Summary::Value& v : event.summary().value()) tags.insert(v.tag());
        Purge(event.step(), &tags);
      }
      for (const Summary::Value& v : event.summary().value()) changed |= AddValue(event, v);
      break;
    case Event::kGraphDef:
      graph_def_ = event.graph_def();
      ++graph_version_;
      changed = true;
      break;
    case Event::kTaggedRunMetadata:
      AddRunMetadata(event.tagged_run_metadata().tag(), event.tagged_run_metadata().run_metadata(), event.step());
      changed = true;
      break;
    case Event::kSessionLog:
      if (event.session_log().status() == SessionLog::START) {
        Purge(event.step());
        changed = true;
      }
      break;
    default:
      break;
  }
  return changed;
}

bool RunData::AddValue(const Event& event, const Summary::Value& value) {
  const std::string& tag = value.tag();
  if (value.has_metadata() && !value.metadata().plugin_data().plugin_name().empty())
    tag_plugin_.emplace(tag, value.metadata().plugin_data().plugin_name());
  switch (value.value_case()) {
    case Summary::Value::kSimpleValue:
      scalars_.try_emplace(tag, options_.max_scalars, options_.seed)
          .first->second.Add({event.step(), event.wall_time(), value.simple_value()});
      return true;
    case Summary::Value::kTensor: {
      auto plugin = tag_plugin_.find(tag);
      double v;
      if (plugin == tag_plugin_.end() || plugin->second != kScalarsPlugin || !ScalarFromTensor(value.tensor(), &v))
        return false;
      scalars_.try_emplace(tag, options_.max_scalars, options_.seed)
          .first->second.Add({event.step(), event.wall_time(), v});
      return true;
    }
    case Summary::Value::kHisto:
      histograms_.try_emplace(tag, options_.max_histograms, options_.seed)
          .first->second.Add({event.step(), event.wall_time(), value.histo()});
      return true;
    case Summary::Value::kImage: {
      std::deque<Image>& images = images_[tag];
      Image image;
      image.info.step = event.step();
      image.info.wall_time = event.wall_time();
      image.info.width = value.image().width();
      image.info.height = value.image().height();
      image.info.index = next_image_index_[tag]++;
      image.encoded = value.image().encoded_image_string();
      images.push_back(std::move(image));
      while (images.size() > options_.max_images) images.pop_front();
      return true;
    }
    default:
      return false;
  }
}

void RunData::AddRunMetadata(const std::string& tag, const std::string& bytes, int64_t step) {
  auto it = run_metadata_.find(tag);
  if (it != run_metadata_.end()) {
    run_metadata_order_.remove(tag);
  }
  run_metadata_[tag] = TaggedMetadata{step, bytes};
  run_metadata_order_.push_back(tag);
  while (run_metadata_order_.size() > options_.max_run_metadata_tags) {
    run_metadata_.erase(run_metadata_order_.front());
    run_metadata_order_.pop_front();
  }
  // Placement: where each node of the newest partitioned step ran.
  RunMetadata md;
  if (!md.ParseFromString(bytes) || md.partition_graphs().empty()) return;
  placement_.clear();
  for (const GraphDef& partition : md.partition_graphs())
    for (const NodeDef& node : partition.node())
      if (!node.device().empty()) placement_.emplace(node.name(), node.device());
  ++graph_version_;
}

void RunData::Purge(int64_t step, const std::set<std::string>* only_tags) {
  auto keep = [step](const auto& point) { return point.step < step; };
  auto chosen = [only_tags](const std::string& tag) { return only_tags == nullptr || only_tags->count(tag) > 0; };
  for (auto& [tag, r] : scalars_)
    if (chosen(tag)) r.Filter(keep);
  for (auto& [tag, r] : histograms_)
    if (chosen(tag)) r.Filter(keep);
  for (auto& [tag, images] : images_) {
    if (!chosen(tag)) continue;
    images.erase(std::remove_if(images.begin(), images.end(), [step](const Image& i) { return i.info.step >= step; }),
                 images.end());
  }
}

RunSummary RunData::Summarize(const std::string& name) const {
  RunSummary s;
  s.name = name;
  s.generation = generation;
  for (const auto& [tag, r] : scalars_) s.scalar_tags.push_back(tag);
  for (const auto& [tag, r] : histograms_) s.histogram_tags.push_back(tag);
  for (const auto& [tag, images] : images_) s.image_tags.push_back(tag);
  for (const auto& [tag, md] : run_metadata_) s.run_metadata_tags.push_back(tag);
  s.has_graph = !graph_def_.empty();
  s.first_wall_time = first_wall_time_;
  s.last_step = last_step_;
  return s;
}

Status RunData::GetScalars(const std::string& run, const std::string& tag, int64_t min_step, int64_t max_step,
                           size_t max_points, ScalarSeries* out) {
  auto it = scalars_.find(tag);
  if (it == scalars_.end()) return NoTag("scalar", run, tag);
  const auto& slots = it->second.Sorted(StepOf<ScalarPoint>);
  // The step range, by binary search on the sorted points.
  auto lo = std::lower_bound(slots.begin(), slots.end(), min_step,
                             [](const auto& s, int64_t v) { return s.item.step < v; });
  auto hi = std::upper_bound(lo, slots.end(), max_step, [](int64_t v, const auto& s) { return v < s.item.step; });
  const size_t n = static_cast<size_t>(hi - lo);
  const size_t take = std::min(n, std::max<size_t>(max_points, 1));
  out->kept = n;
  out->seen = it->second.seen();
  out->step.resize(take);
  out->wall_time.resize(take);
  out->value.resize(take);
  for (size_t i = 0; i < take; ++i) {
    // Evenly spaced in index; the first and (for take > 1) the last always.
    const size_t j = take == 1 ? n - 1 : (take == n ? i : static_cast<size_t>((i * (n - 1) + (take - 1) / 2) / (take - 1)));
    const ScalarPoint& p = lo[j].item;
    out->step[i] = p.step;
    out->wall_time[i] = p.wall_time;
    out->value[i] = p.value;
  }
  return Status::OK();
}

StatusOr<std::vector<HistogramPoint>> RunData::GetHistograms(const std::string& run, const std::string& tag) {
  auto it = histograms_.find(tag);
  if (it == histograms_.end()) return NoTag("histogram", run, tag);
  std::vector<HistogramPoint> out;
  for (const auto& slot : it->second.Sorted(StepOf<HistogramPoint>)) out.push_back(slot.item);
  return out;
}

StatusOr<std::vector<ImageInfo>> RunData::GetImages(const std::string& run, const std::string& tag) const {
  auto it = images_.find(tag);
  if (it == images_.end()) return NoTag("image", run, tag);
  std::vector<ImageInfo> out;
  for (const Image& image : it->second) out.push_back(image.info);
  std::stable_sort(out.begin(), out.end(), [](const ImageInfo& a, const ImageInfo& b) { return a.step < b.step; });
  return out;
}

StatusOr<std::string> RunData::GetImage(const std::string& run, const std::string& tag, int64_t index) const {
  auto it = images_.find(tag);
  if (it == images_.end()) return NoTag("image", run, tag);
  for (const Image& image : it->second)
    if (image.info.index == index) return image.encoded;
  return errors::NotFound("run '", run, "' keeps no image ", index, " of tag '", tag,
                          "' (only the newest ", options_.max_images, " are kept)");
}

StatusOr<GraphSnapshot> RunData::GetGraph(const std::string& run) const {
  if (graph_def_.empty()) return errors::NotFound("run '", run, "' has no graph");
  return GraphSnapshot{graph_def_, graph_version_, placement_};
}

StatusOr<std::string> RunData::GetRunMetadata(const std::string& run, const std::string& tag) const {
  auto it = run_metadata_.find(tag);
  if (it == run_metadata_.end()) return NoTag("run metadata", run, tag);
  return it->second.run_metadata;
}

}  // namespace flowvm::board
