"""flowvm: a distributed virtual machine for tensor dataflow graphs.

`import flowvm.compat.v1 as tf` gives TensorFlow 1.x's Python API over
flowvm's C++ runtime; `python3 -m flowvm.tf1 SCRIPT.py` runs an unmodified
TensorFlow 1.x script on it.
"""
__version__ = "0.1.0"
