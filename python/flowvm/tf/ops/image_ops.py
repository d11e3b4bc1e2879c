"""tf.image: the image functions expressible with flowvm's ops (flips,
standardization, dtype conversion, brightness, grayscale). Images are
[height, width, channels] or batches [batch, height, width, channels]."""
import numpy as np

from flowvm.tf.framework import dtypes
from flowvm.tf.framework import ops
from flowvm.tf.ops import array_ops
from flowvm.tf.ops import gen_ops
from flowvm.tf.ops import math_ops
from flowvm.tf.ops import random_ops

__all__ = [
    "flip_left_right", "flip_up_down", "random_flip_left_right", "random_flip_up_down", "transpose_image",
    "per_image_standardization", "convert_image_dtype", "adjust_brightness", "random_brightness",
    "rgb_to_grayscale", "grayscale_to_rgb", "resize_images", "resize_bilinear", "resize_nearest_neighbor",
    "resize_image_with_crop_or_pad", "central_crop",
]

_t = ops.convert_to_tensor


def _image(image):
    image = _t(image, name="image")
    nd = image.shape.ndims
    if nd is None:
        raise ValueError("'image' (shape %s) must have a known rank of 3 or 4" % image.shape)
    if nd not in (3, 4):
        raise ValueError("'image' (shape %s) must have either 3 or 4 dimensions." % image.shape)
    return image, nd


def _flip(image, width_axis, name, default):
    with ops.name_scope(name, default, [image]) as name:
        image, nd = _image(image)
        axis = width_axis + (1 if nd == 4 else 0)
        return gen_ops.reverse_v2(image, [axis], name=name)


def flip_left_right(image):
    return _flip(image, 1, None, "flip_left_right")


def flip_up_down(image):
    return _flip(image, 0, None, "flip_up_down")


def _random_flip(image, width_axis, seed, default):
    with ops.name_scope(None, default, [image]) as name:
        image, nd = _image(image)
        axis = width_axis + (1 if nd == 4 else 0)
        flipped = gen_ops.reverse_v2(image, [axis])
        if nd == 3:
            coin = random_ops.random_uniform([], seed=seed) < 0.5
            return array_ops.where_v2(coin, flipped, image, name=name)
        coin = random_ops.random_uniform(array_ops.shape(image)[:1], seed=seed) < 0.5
        coin = array_ops.reshape(coin, [-1, 1, 1, 1])
        return array_ops.where_v2(coin, flipped, image, name=name)


def random_flip_left_right(image, seed=None):
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    return _random_flip(image, 0, seed, "random_flip_up_down")


def transpose_image(image):
    with ops.name_scope(None, "transpose_image", [image]) as name:
        image, nd = _image(image)
        perm = [1, 0, 2] if nd == 3 else [0, 2, 1, 3]
        return array_ops.transpose(image, perm, name=name)


def per_image_standardization(image):
    """(x - mean) / max(stddev, 1 / sqrt(num_elements)) per image."""
    with ops.name_scope(None, "per_image_standardization", [image]) as scope:
        image, nd = _image(image)
        image = math_ops.cast(image, dtypes.float32)
        axes = [-1, -2, -3]
        num_pixels = math_ops.reduce_prod(array_ops.shape(image)[-3:])
        image_mean = math_ops.reduce_mean(image, axis=axes, keepdims=True)
        stddev = math_ops.sqrt(math_ops.reduce_mean(math_ops.square(image - image_mean), axis=axes,
                                                    keepdims=True))
        min_stddev = math_ops.rsqrt(math_ops.cast(num_pixels, dtypes.float32))
        adjusted = math_ops.maximum(stddev, min_stddev)
        return gen_ops.real_div(image - image_mean, adjusted, name=scope)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Converts between integer images (0..max) and float images (0..1)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    with ops.name_scope(name, "convert_image", [image]) as name:
        image = _t(image, name="image")
        src = image.dtype.base_dtype
        if src == dtype:
            return array_ops.identity(image, name=name)
        if src.is_integer and dtype.is_integer:
            scale = float(src.max + 1) / float(dtype.max + 1)
            if scale > 1:
                return math_ops.cast(math_ops.floordiv(image, int(scale)), dtype, name=name)
            return gen_ops.mul(math_ops.cast(image, dtype), int(round(1 / scale)), name=name)
        if src.is_floating and dtype.is_floating:
            return math_ops.cast(image, dtype, name=name)
        if src.is_integer:
            scale = 1.0 / src.max
            return gen_ops.mul(math_ops.cast(image, dtype), np.array(scale, dtype.as_numpy_dtype), name=name)
        scale = dtype.max + 0.5
        scaled = image * np.array(scale, src.as_numpy_dtype)
        if saturate:
            return math_ops.saturate_cast(scaled, dtype, name=name)
        return math_ops.cast(scaled, dtype, name=name)


def adjust_brightness(image, delta):
    with ops.name_scope(None, "adjust_brightness", [image, delta]) as name:
        image = _t(image, name="image")
        orig = image.dtype.base_dtype
        flt = convert_image_dtype(image, dtypes.float32) if not orig.is_floating else image
        adjusted = flt + math_ops.cast(delta, flt.dtype.base_dtype)
        return convert_image_dtype(adjusted, orig, saturate=True, name=name) if not orig.is_floating else \
            array_ops.identity(adjusted, name=name)


def random_brightness(image, max_delta, seed=None):
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def rgb_to_grayscale(images, name=None):
    with ops.name_scope(name, "rgb_to_grayscale", [images]) as name:
        images = _t(images, name="images")
        orig = images.dtype.base_dtype
        flt = convert_image_dtype(images, dtypes.float32)
        weights = np.array([0.2989, 0.5870, 0.1140], np.float32)
        gray = math_ops.reduce_sum(flt * weights, -1, keepdims=True)
        return convert_image_dtype(gray, orig, name=name)


def grayscale_to_rgb(images, name=None):
    with ops.name_scope(name, "grayscale_to_rgb", [images]) as name:
        images = _t(images, name="images")
        nd = images.shape.ndims
        if nd is None:
            raise ValueError("grayscale_to_rgb needs the rank of images")
        return array_ops.tile(images, [1] * (nd - 1) + [3], name=name)


def _unsupported(what):
    def fn(*args, **kwargs):
        raise NotImplementedError("tf.image.%s is not supported by flowvm (its op registry has no resize or "
                                  "crop-and-pad ops)" % what)
    fn.__name__ = what
    return fn


resize_images = _unsupported("resize_images")
resize_bilinear = _unsupported("resize_bilinear")
resize_nearest_neighbor = _unsupported("resize_nearest_neighbor")
resize_image_with_crop_or_pad = _unsupported("resize_image_with_crop_or_pad")
central_crop = _unsupported("central_crop")
