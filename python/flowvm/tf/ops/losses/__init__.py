"""tf.losses' implementation (TensorFlow's tensorflow/python/ops/losses)."""
