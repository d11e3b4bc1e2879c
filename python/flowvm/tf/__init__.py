"""The implementation of flowvm.compat.v1 (TensorFlow 1.x's Python API).

Its folders mirror TensorFlow's tensorflow/python module for module, so
that flowvm.compat.v1.python.X (tensorflow.python.X under the runner) is
the module flowvm.tf.X: framework/ (graphs, tensors, dtypes, shapes),
ops/ (the op wrappers, variables, control flow, queues), training/,
layers/, summary/, client/, platform/, util/, data/. A module imports only
what it builds on, at its top (tests/test_package_layout.py checks that
the import graph has no cycle)."""
