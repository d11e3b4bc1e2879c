// Trains a classifier on Fashion-MNIST as Debian's dataset-fashion-mnist
// ships it (60,000 + 10,000 28x28 images in gzip'd IDX files) and reports
// its accuracy on the 10,000 test images.
//
//   flowvm_fashion_mnist [--model convnet|mlp] [--steps N] [--batch 64] [--lr X]
//                        [--optimizer adam] [--seed 1] [--threads N]
//                        [--checkpoint-dir DIR] [--save-every N] [--save-every-secs S]
//                        [--min-accuracy F] [--data-dir DIR] [--no-progress]
//
// convnet: conv5x5x32 -> maxpool -> conv5x5x64 -> maxpool -> fc256 -> fc10
//          (ReLU); by default 4 epochs of Adam at lr 0.001;
// mlp:     784-256-128-10 (ReLU); by default 6 epochs of Adam at lr 0.0005.
#include <cstdio>

#include "common/train_flags.h"

int main(int argc, char** argv) {
  using namespace flowvm::examples;  // NOLINT: a program
  TrainFlags flags;
  flags.train.batch_size = 64;
  flags.model.learning_rate = 0.001f;
  std::string model_name = "convnet", dir = kFashionMnistDir;
  flowvm::Status s = ParseTrainFlags(argc, argv, &flags, [&](const std::string& flag, const std::string& value) {
    if (flag == "--model") {
      if (value != "convnet" && value != "mlp")
        return flowvm::StatusOr<bool>(
            flowvm::errors::InvalidArgument("--model: '", value, "' is not convnet or mlp"));
      model_name = value;
      return flowvm::StatusOr<bool>(true);
    }
    if (flag == "--data-dir") {
      dir = value;
      return flowvm::StatusOr<bool>(true);
    }
    return flowvm::StatusOr<bool>(false);
  });
  if (!s.ok()) {
    std::fprintf(stderr, "flowvm_fashion_mnist: %s\n", s.ToString().c_str());
    return 2;
  }
  bool conv = model_name == "convnet";
  ImageLayout layout = conv ? ImageLayout::kNHWC : ImageLayout::kFlat;
  auto train = LoadFashionMnist(Split::kTrain, layout, dir);
  auto test = train.ok() ? LoadFashionMnist(Split::kTest, layout, dir) : train;
  if (!train.ok() || !test.ok()) {
    std::fprintf(stderr, "flowvm_fashion_mnist: %s\n",
                 (!train.ok() ? train.status() : test.status()).ToString().c_str());
    return 1;
  }
  int64_t steps_per_epoch = train->size() / flags.train.batch_size;
  if (!flags.steps_set) flags.train.steps = steps_per_epoch * (conv ? 4 : 6);
  if (!flags.lr_set) flags.model.learning_rate = conv ? 0.001f : 0.0005f;
  Classifier model;
  s = conv ? BuildConvNet(28, 28, 32, 64, 256, 10, flags.model, &model)
           : BuildMlp(28 * 28, {256, 128}, 10, flags.model, &model);
  if (!s.ok()) {
    std::fprintf(stderr, "flowvm_fashion_mnist: %s\n", s.ToString().c_str());
    return 1;
  }
  flags.train.summaries.image_height = 28;
  flags.train.summaries.image_width = 28;
  return TrainAndReport("flowvm_fashion_mnist", model, *train, *test, flags);
}
