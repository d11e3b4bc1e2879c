"""tf.data.experimental (TensorFlow's tensorflow/python/data/experimental)."""
