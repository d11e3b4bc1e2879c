"""Summary ops and event-file writers (TensorFlow's tensorflow/python/summary)."""
