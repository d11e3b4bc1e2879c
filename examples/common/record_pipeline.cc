#include "common/record_pipeline.h"

#include <sys/stat.h>

#include <cstring>

#include "flowvm/record_io.h"

namespace flowvm::examples {

StatusOr<std::vector<std::string>> WriteExampleRecords(const Dataset& data, const std::string& dir, int shards) {
  FLOWVM_ASSIGN_OR_RETURN(Tensor images, data.FlatImages());
  const int64_t n = data.size();
  const int64_t pixels = n == 0 ? 0 : images.dim_size(1);
  std::vector<std::string> files;
  for (int s = 0; s < shards; ++s) {
    const std::string path = dir + "/train-" + std::to_string(s) + "-of-" + std::to_string(shards) + ".tfrecord";
    files.push_back(path);
    const int64_t begin = n * s / shards, end = n * (s + 1) / shards;
    const uint64_t bytes = static_cast<uint64_t>(end - begin) * (16 + (pixels + 1) * sizeof(float));
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && static_cast<uint64_t>(st.st_size) == bytes) continue;  // written before
    const std::string tmp = path + ".tmp";
    ::unlink(tmp.c_str());
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> w, RecordWriter::Create(tmp));
    std::string record((pixels + 1) * sizeof(float), '\0');
    for (int64_t i = begin; i < end; ++i) {
      std::memcpy(record.data(), images.flat<float>().data() + i * pixels, pixels * sizeof(float));
      const float label = static_cast<float>(data.labels.flat<int32_t>()[i]);
      std::memcpy(record.data() + pixels * sizeof(float), &label, sizeof(float));
      FLOWVM_RETURN_IF_ERROR(w->Write(record));
    }
    FLOWVM_RETURN_IF_ERROR(w->Close());
    if (::rename(tmp.c_str(), path.c_str()) != 0) return errors::Unknown("cannot rename ", tmp, " to ", path);
  }
  return files;
}

Status BuildRecordPipeline(const Scope& root, const std::vector<std::string>& files, int64_t pixels,
                           int64_t batch_size, int64_t seed, RecordPipeline* out) {
  Scope s = root.NewSubScope("input");
  // File names, again and again: each enqueue is one epoch.
  auto names = ops::FIFOQueueV2(s.WithOpName("file_names"), {DT_STRING}, ops::FIFOQueueV2::Capacity(32));
  auto enqueue_names = ops::QueueEnqueueManyV2(s.WithOpName("enqueue_file_names"), names,
                                               {Input(Tensor::FromVector<std::string>(files))});
  auto close_names = ops::QueueCloseV2(s.WithOpName("close_file_names"), names);
  auto cancel_names = ops::QueueCloseV2(s.WithOpName("cancel_file_names"), names,
                                        ops::QueueCloseV2::CancelPendingEnqueues(true));
  // Read and decode 64 records per step.
  auto reader = ops::TFRecordReaderV2(s.WithOpName("reader"));
  auto read = ops::ReaderReadUpToV2(s.WithOpName("read"), reader, names, Input(int64_t{512}));
  auto decoded = ops::DecodeRaw(s.WithOpName("decode"), read.values, DT_FLOAT);
  auto images = ops::Slice(s.WithOpName("pixels"), decoded, {0, 0}, {-1, static_cast<int>(pixels)});
  auto label_column = ops::Slice(s.WithOpName("label_column"), decoded, {0, static_cast<int>(pixels)}, {-1, 1});
  auto labels = ops::Cast(s.WithOpName("labels"), ops::Reshape(s, label_column, {-1}), DT_INT32);
  auto examples = ops::RandomShuffleQueueV2(
      s.WithOpName("examples"), {DT_FLOAT, DT_INT32},
      ops::RandomShuffleQueueV2::Shapes({PartialTensorShape({pixels}), PartialTensorShape(std::initializer_list<int64_t>{})})
          .Capacity(2000)
          .MinAfterDequeue(500)
          .Seed(seed));
  auto enqueue_examples = ops::QueueEnqueueManyV2(s.WithOpName("enqueue_examples"), examples, {images, labels});
  auto close_examples = ops::QueueCloseV2(s.WithOpName("close_examples"), examples);
  auto cancel_examples = ops::QueueCloseV2(s.WithOpName("cancel_examples"), examples,
                                           ops::QueueCloseV2::CancelPendingEnqueues(true));
  // Batches are made ahead of training, 8 at a time, by a third runner:
  // the training step dequeues a whole batch (no row copies on its path).
  constexpr int kBatchesPerStep = 8;
  const int b = static_cast<int>(batch_size);
  auto shuffled = ops::QueueDequeueManyV2(s.WithOpName("shuffled"), examples, Input(kBatchesPerStep * b),
                                          {DT_FLOAT, DT_INT32});
  auto image_batches = ops::Reshape(s.WithOpName("image_batches"), shuffled.components[0],
                                    {kBatchesPerStep, b, static_cast<int>(pixels)});
  auto label_batches = ops::Reshape(s.WithOpName("label_batches"), shuffled.components[1], {kBatchesPerStep, b});
  auto batches = ops::FIFOQueueV2(
      s.WithOpName("batches"), {DT_FLOAT, DT_INT32},
      ops::FIFOQueueV2::Shapes({PartialTensorShape({batch_size, pixels}), PartialTensorShape({batch_size})})
          .Capacity(2 * kBatchesPerStep));
  auto enqueue_batches = ops::QueueEnqueueManyV2(s.WithOpName("enqueue_batches"), batches, {image_batches, label_batches});
  auto close_batches = ops::QueueCloseV2(s.WithOpName("close_batches"), batches);
  auto cancel_batches = ops::QueueCloseV2(s.WithOpName("cancel_batches"), batches,
                                          ops::QueueCloseV2::CancelPendingEnqueues(true));
  auto batch = ops::QueueDequeueV2(s.WithOpName("batch"), batches, {DT_FLOAT, DT_INT32});
  FLOWVM_RETURN_IF_ERROR(root.status());
  out->images = batch.components[0];
  out->labels = batch.components[1];
  out->runners.push_back(std::make_unique<QueueRunner>("input/file_names", std::vector<Operation>{enqueue_names.operation},
                                                       close_names.operation, cancel_names.operation));
  out->runners.push_back(std::make_unique<QueueRunner>(
      "input/examples", std::vector<Operation>{enqueue_examples.operation},
      close_examples.operation, cancel_examples.operation));
  out->runners.push_back(std::make_unique<QueueRunner>("input/batches", std::vector<Operation>{enqueue_batches.operation},
                                                       close_batches.operation, cancel_batches.operation));
  return Status::OK();
}

}  // namespace flowvm::examples
