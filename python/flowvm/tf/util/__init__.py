"""Nested structures (TensorFlow's tensorflow/python/util)."""
