"""TensorFlow 1.x's tensorflow.examples package: the MNIST tutorial input reader."""
