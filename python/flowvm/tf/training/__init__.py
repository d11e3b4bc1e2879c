"""Optimizers, savers, sessions that monitor training, queue runners, input
pipelines and clusters (TensorFlow's tensorflow/python/training)."""
