"""Sessions (TensorFlow's tensorflow/python/client)."""
