// RepeatDataset as an object other dataset kernels can build on
// (ShuffleAndRepeatDataset): `input` `count` times over (-1: for ever).
#ifndef FLOWVM_KERNELS_DATA_REPEAT_DATASET_H_
#define FLOWVM_KERNELS_DATA_REPEAT_DATASET_H_

#include "kernels/data/dataset.h"

namespace flowvm::data {

DatasetPtr NewRepeatDataset(std::string node, DatasetPtr input, int64_t count, std::vector<PartialTensorShape> shapes,
                            const char* op = "RepeatDataset");

}  // namespace flowvm::data

#endif  // FLOWVM_KERNELS_DATA_REPEAT_DATASET_H_
