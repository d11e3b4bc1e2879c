"""Compatibility APIs: flowvm.compat.v1 is TensorFlow 1.x's."""
