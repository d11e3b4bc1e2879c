"""tf.app, tf.flags, tf.gfile, tf.logging (TensorFlow's tensorflow/python/platform)."""
