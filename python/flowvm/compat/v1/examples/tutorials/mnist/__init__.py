"""tensorflow.examples.tutorials.mnist: the tutorials' data reader."""
from flowvm.compat.v1.examples.tutorials.mnist import input_data  # noqa: F401
