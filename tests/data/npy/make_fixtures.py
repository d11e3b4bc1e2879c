#!/usr/bin/python3
"""Writes the .npy fixtures that src/core/npy_test.cc reads.

Run with a Python that has NumPy (on the dev image: /usr/bin/python3):
    /usr/bin/python3 tests/data/npy/make_fixtures.py
The outputs are committed; the test expects exactly the values below.
"""
import os

import numpy as np
from numpy.lib import format as npformat

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, arr, version=None):
    with open(os.path.join(HERE, name), "wb") as f:
        npformat.write_array(f, arr, version=version, allow_pickle=False)


def main():
    save("f32_2x3.npy", np.array([[1.5, -2.0, 3.0], [4.0, 0.25, -6.5]], dtype="<f4"))
    save("i64.npy", np.array([1, -2, 1 << 40, -(1 << 62)], dtype="<i8"))
    save("bool.npy", np.array([True, False, True, True, False], dtype="|b1"))
    save("c64.npy", np.array([1 + 2j, -3.5 - 0.5j], dtype="<c8"))
    save("f16.npy", np.array([1.0, -2.5, 65504.0, 6e-8, np.inf], dtype="<f2"))
    save("f8_big.npy", np.array([1.0, -0.1, 1e300], dtype=">f8"))
    save("i32_fortran.npy", np.asfortranarray(np.arange(24, dtype="<i4").reshape(2, 3, 4)))
    save("f8_scalar.npy", np.array(3.25, dtype="<f8"))
    save("f4_empty.npy", np.zeros((0, 3), dtype="<f4"))
    save("u16_v2.npy", np.array([1, 2, 65535], dtype="<u2"), version=(2, 0))
    save("i16_v3.npy", np.array([[-1, 2], [3, -32768]], dtype="<i2"), version=(3, 0))
    save("str_u3.npy", np.array(["ab", "cde"], dtype="<U3"))


if __name__ == "__main__":
    main()
