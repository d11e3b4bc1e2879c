"""tf.layers: layer classes and their functional forms (TensorFlow's
tensorflow/python/layers)."""
