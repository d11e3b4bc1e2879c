// Datasets other dataset kernels build on (ShuffleAndRepeatDataset,
// MapAndBatchDataset): constructors of the datasets of other files.
#ifndef FLOWVM_KERNELS_DATA_DATASET_FACTORIES_H_
#define FLOWVM_KERNELS_DATA_DATASET_FACTORIES_H_

#include <memory>
#include <string>
#include <vector>

#include "kernels/data/captured_function.h"
#include "kernels/data/dataset.h"

namespace flowvm::data {

// `input` `count` times over (-1: for ever).
DatasetPtr NewRepeatDataset(std::string node, DatasetPtr input, int64_t count, std::vector<PartialTensorShape> shapes,
                            const char* op = "RepeatDataset");
// batch_size consecutive elements stacked (a smaller last batch unless
// drop_remainder).
DatasetPtr NewBatchDataset(std::string node, DatasetPtr input, int64_t batch_size, bool drop_remainder,
                           std::vector<PartialTensorShape> shapes, const char* op = "BatchDatasetV2");
// f of each element, up to `parallelism` calls at once, in order.
DatasetPtr NewParallelMapDataset(std::string node, DatasetPtr input, std::shared_ptr<const CapturedFunction> f,
                                 int parallelism, bool preserve_cardinality, DataTypeVector types,
                                 std::vector<PartialTensorShape> shapes, const char* op = "ParallelMapDataset");

}  // namespace flowvm::data

#endif  // FLOWVM_KERNELS_DATA_DATASET_FACTORIES_H_
