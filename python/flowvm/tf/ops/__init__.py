"""The ops: wrappers over the generated op functions (gen_ops), variables,
control flow, queues, initializers (TensorFlow's tensorflow/python/ops)."""
