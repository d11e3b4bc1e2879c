"""Event-file writers (TensorFlow's tensorflow/python/summary/writer)."""
