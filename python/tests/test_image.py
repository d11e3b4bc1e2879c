"""tf.image functions against NumPy."""
import numpy as np
import pytest

import flowvm.compat.v1 as tf


def test_image_functions():
    rng = np.random.RandomState(0)
    img = rng.randint(0, 256, (4, 5, 3)).astype(np.uint8)
    batch = rng.rand(2, 4, 5, 3).astype(np.float32)
    t, b = tf.constant(img), tf.constant(batch)
    tf.set_random_seed(1)
    rf = tf.image.random_flip_left_right(b)
    outs = tf.Session().run([tf.image.flip_left_right(t), tf.image.flip_up_down(b), tf.image.transpose_image(b),
                             tf.image.per_image_standardization(t), tf.image.per_image_standardization(b),
                             tf.image.convert_image_dtype(t, tf.float32),
                             tf.image.convert_image_dtype(tf.constant([[[0.0, 0.5, 1.0]]]), tf.uint8),
                             tf.image.adjust_brightness(b, 0.25), tf.image.rgb_to_grayscale(b),
                             tf.image.grayscale_to_rgb(b[..., :1]), rf])
    np.testing.assert_array_equal(outs[0], img[:, ::-1])
    np.testing.assert_array_equal(outs[1], batch[:, ::-1])
    np.testing.assert_array_equal(outs[2], batch.transpose(0, 2, 1, 3))
    f = img.astype(np.float32)
    np.testing.assert_allclose(outs[3], (f - f.mean()) / max(f.std(), 1 / np.sqrt(f.size)), rtol=1e-4, atol=1e-5)
    m = batch.mean((1, 2, 3), keepdims=True)
    s = batch.std((1, 2, 3), keepdims=True)
    np.testing.assert_allclose(outs[4], (batch - m) / s, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(outs[5], img / 255.0, rtol=1e-6)
    assert outs[6].dtype == np.uint8 and outs[6].tolist() == [[[0, 127, 255]]]
    np.testing.assert_allclose(outs[7], batch + 0.25, rtol=1e-6)
    np.testing.assert_allclose(outs[8], (batch * [0.2989, 0.5870, 0.1140]).sum(-1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(outs[9], np.repeat(batch[..., :1], 3, -1))
    for i in range(2):
        assert np.array_equal(outs[10][i], batch[i]) or np.array_equal(outs[10][i], batch[i, :, ::-1])
    with pytest.raises(ValueError):
        tf.image.flip_left_right(tf.constant([1.0, 2.0]))
    with pytest.raises(NotImplementedError):
        tf.image.resize_images(b, [8, 10])
