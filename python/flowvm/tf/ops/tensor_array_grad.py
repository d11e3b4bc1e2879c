"""The gradients of the TensorArray ops (TensorFlow's
python/ops/tensor_array_grad.py, which programs import for its side effect
of registering them). flowvm's are registered in C++, with the ops
(src/ops/tensor_array_grad.cc), so importing this module changes nothing;
it exists so that such imports resolve."""
