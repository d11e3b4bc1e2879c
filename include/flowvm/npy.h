// NumPy .npy files <-> Tensors: the format tensors take in and out of the CLI.
//
// Reading accepts format versions 1.0, 2.0 and 3.0, C or Fortran order (the
// latter is transposed into flowvm's row-major layout), and little-endian,
// big-endian ('>', byte-swapped on load), native ('=') or byte-order-free
// ('|') descriptors of these element types:
//
//   '<f2' half      '<f4' float     '<f8' double     '|b1' bool
//   '|i1' int8      '<i2' int16     '<i4' int32      '<i8' int64
//   '|u1' uint8     '<u2' uint16    '<u4' uint32     '<u8' uint64
//   '<c8' complex64 '<c16' complex128
//
// Writing produces version 1.0 (2.0 only if the header outgrows 64 KiB),
// little-endian, C order. Types NumPy lacks are written as their storage
// integer: qint8 '|i1', quint8 '|u1', qint16 '<i2', quint16 '<u2', qint32
// '<i4', and bfloat16 '<u2' (the raw bits); reading such a file back yields
// the integer type, not the original one.
//
// Errors: malformed input of any kind (bad magic, truncated or malformed
// header, object/string/structured arrays, data shorter or longer than the
// shape needs, negative or overflowing dimensions) is InvalidArgument, and
// nothing is allocated for the data before its length has been checked. A
// missing file is NotFound. File errors name the path. All functions are
// thread-safe.
#ifndef FLOWVM_NPY_H_
#define FLOWVM_NPY_H_

#include <string>
#include <string_view>

#include "flowvm/status.h"
#include "flowvm/tensor.h"

namespace flowvm {

// Reads the .npy file at `path`.
StatusOr<Tensor> ReadNpyFile(const std::string& path);

// Writes `t` to `path`, atomically: the bytes go to a temporary file beside
// it, which is then renamed over `path`, so readers never see a partial file.
// String tensors (and uninitialized ones) are InvalidArgument.
Status WriteNpyFile(const std::string& path, const Tensor& t);

// Parses the bytes of a whole .npy file.
StatusOr<Tensor> ParseNpy(std::string_view bytes);

// The bytes WriteNpyFile would write.
StatusOr<std::string> SerializeNpy(const Tensor& t);

}  // namespace flowvm

#endif  // FLOWVM_NPY_H_
