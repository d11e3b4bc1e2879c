"""tf.data (TensorFlow 1.x's tf.compat.v1.data): datasets and iterators."""
from flowvm.tf.data.ops.dataset_ops import (  # noqa: F401
    Dataset, DatasetV1, DatasetV2, make_one_shot_iterator, make_initializable_iterator, get_output_types,
    get_output_shapes, get_output_classes)
from flowvm.tf.data.ops.iterator_ops import Iterator  # noqa: F401
from flowvm.tf.data.ops.options import Options  # noqa: F401
from flowvm.tf.data.ops.readers import TFRecordDataset, TextLineDataset, FixedLengthRecordDataset  # noqa: F401
from flowvm.compat.v1.data import experimental  # noqa: F401
