"""Graphs, operations, tensors, dtypes and shapes; importing, exporting and
converting graphs (TensorFlow's tensorflow/python/framework)."""
