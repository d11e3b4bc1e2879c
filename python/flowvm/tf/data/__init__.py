"""tf.data (TensorFlow's tensorflow/python/data): datasets and iterators land here."""
