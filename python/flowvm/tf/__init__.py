"""The implementation of flowvm.compat.v1 (TensorFlow 1.x's Python API)."""
