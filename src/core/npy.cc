// .npy reading and writing; the format is NumPy's NEP 1
// (numpy/lib/format.py): magic "\x93NUMPY", a version, a little-endian
// header length, a Python dict literal, then the raw elements.
#include "flowvm/npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

namespace flowvm {

namespace {

constexpr std::string_view kMagic("\x93NUMPY", 6);
// NumPy itself refuses headers over 10000 bytes by default; this is only a
// guard against allocating for a corrupt length field.
constexpr size_t kMaxHeaderLen = size_t{1} << 20;
constexpr bool kHostLittle = std::endian::native == std::endian::little;

struct NpyType {
  DataType dtype;
  char kind;  // NumPy's type kind: 'f', 'i', 'u', 'b', 'c'
  int size;
};
constexpr NpyType kNpyTypes[] = {
    {DT_HALF, 'f', 2},      {DT_FLOAT, 'f', 4},      {DT_DOUBLE, 'f', 8},      {DT_INT8, 'i', 1},
    {DT_INT16, 'i', 2},     {DT_INT32, 'i', 4},      {DT_INT64, 'i', 8},       {DT_UINT8, 'u', 1},
    {DT_UINT16, 'u', 2},    {DT_UINT32, 'u', 4},     {DT_UINT64, 'u', 8},      {DT_BOOL, 'b', 1},
    {DT_COMPLEX64, 'c', 8}, {DT_COMPLEX128, 'c', 16},
};

// What the header says about the data that follows it.
struct Header {
  DataType dtype = DT_INVALID;
  bool swap = false;     // stored in the other byte order than this host's
  bool fortran = false;  // column-major
  TensorShape shape;
  size_t data_offset = 0;
};

std::string ErrnoText(int err) { return std::strerror(err); }

Status ErrnoStatus(int err, const std::string& msg) {
  std::string full = msg + ": " + ErrnoText(err);
  switch (err) {
    case ENOENT: case ENOTDIR: return errors::NotFound(full);
    case EACCES: case EPERM: case EROFS: return errors::PermissionDenied(full);
    case ENOSPC: case EDQUOT: return errors::ResourceExhausted(full);
    default: return errors::Unknown(full);
  }
}

// ---- header parsing ---------------------------------------------------------

// A cursor over the header's dict literal. Errors quote the header.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& where) : s_(text), where_(where) {}

  Status Parse(Header* h) {
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    if (!Eat('{')) return Malformed("expected '{'");
    while (!Eat('}')) {
      std::optional<std::string_view> key = String();
      if (!key) return Malformed("expected a quoted key or '}'");
      if (!Eat(':')) return Malformed("expected ':' after '" + std::string(*key) + "'");
      if (*key == "descr") {
        if (seen_descr) return Malformed("duplicate key 'descr'");
        seen_descr = true;
        if (Peek('[')) return Invalid("structured (record) arrays are not supported");
        std::optional<std::string_view> descr = String();
        if (!descr) return Malformed("'descr' is not a string");
        FLOWVM_RETURN_IF_ERROR(ParseDescr(*descr, h));
      } else if (*key == "fortran_order") {
        if (seen_fortran) return Malformed("duplicate key 'fortran_order'");
        seen_fortran = true;
        if (Word("True")) h->fortran = true;
        else if (Word("False")) h->fortran = false;
        else return Malformed("'fortran_order' is not True or False");
      } else if (*key == "shape") {
        if (seen_shape) return Malformed("duplicate key 'shape'");
        seen_shape = true;
        FLOWVM_RETURN_IF_ERROR(ParseShape(h));
      } else {
        return Malformed("unexpected key '" + std::string(*key) + "'");
      }
      if (!Eat(',') && !Peek('}')) return Malformed("expected ',' or '}'");
    }
    SkipWs();
    if (pos_ != s_.size()) return Malformed("unexpected text after '}'");
    if (!seen_descr) return Malformed("missing key 'descr'");
    if (!seen_fortran) return Malformed("missing key 'fortran_order'");
    if (!seen_shape) return Malformed("missing key 'shape'");
    return Status::OK();
  }

 private:
  Status Invalid(const std::string& what) const { return errors::InvalidArgument(where_, ": ", what); }
  Status Malformed(const std::string& what) const {
    std::string shown(s_.substr(0, 200));
    while (!shown.empty() && (shown.back() == ' ' || shown.back() == '\n')) shown.pop_back();
    return Invalid("malformed header (" + what + " at offset " + std::to_string(pos_) + "): " + shown);
  }

  void SkipWs() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  bool Peek(char c) {
    SkipWs();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }
  bool Word(std::string_view w) {
    SkipWs();
    if (s_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  // A '...' or "..." literal without escapes.
  std::optional<std::string_view> String() {
    SkipWs();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return std::nullopt;
    char quote = s_[pos_];
    size_t end = s_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view body = s_.substr(pos_ + 1, end - pos_ - 1);
    if (body.find('\\') != std::string_view::npos) return std::nullopt;
    pos_ = end + 1;
    return body;
  }

  Status ParseDescr(std::string_view descr, Header* h) {
    std::string_view rest = descr;
    char order = '=';
    if (!rest.empty() && std::string_view("<>|=").find(rest[0]) != std::string_view::npos) {
      order = rest[0];
      rest.remove_prefix(1);
    }
    char kind = rest.empty() ? '\0' : rest[0];
    int size = 0;
    if (rest == "?") {
      kind = 'b';
      size = 1;
    } else if (rest.size() >= 2 && rest.size() <= 3 &&
               std::all_of(rest.begin() + 1, rest.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      size = std::stoi(std::string(rest.substr(1)));
    }
    std::string quoted = "'" + std::string(descr) + "'";
    switch (kind) {
      case 'O': return Invalid("unsupported descr " + quoted + ": object arrays cannot be loaded");
      case 'U': case 'S': case 'a':
        return Invalid("unsupported descr " + quoted + ": string arrays cannot be loaded");
      case 'V': return Invalid("unsupported descr " + quoted + ": structured (void) arrays cannot be loaded");
      case 'M': case 'm': return Invalid("unsupported descr " + quoted + ": datetime arrays cannot be loaded");
      default: break;
    }
    for (const NpyType& t : kNpyTypes) {
      if (t.kind != kind || t.size != size) continue;
      h->dtype = t.dtype;
      bool big = order == '>' || (order != '<' && !kHostLittle);
      h->swap = size > 1 && big == kHostLittle;
      return Status::OK();
    }
    return Invalid("unsupported descr " + quoted +
                   " (expected a numeric or bool type such as '<f4', '<i8', '|b1', '<c16')");
  }

  // A Python tuple of non-negative ints: "()", "(3,)", "(2, 3)".
  Status ParseShape(Header* h) {
    if (!Eat('(')) return Malformed("'shape' is not a tuple");
    std::vector<int64_t> dims;
    bool trailing_comma = false;
    while (!Eat(')')) {
      SkipWs();
      bool negative = pos_ < s_.size() && s_[pos_] == '-';
      if (negative) ++pos_;
      size_t start = pos_;
      int64_t v = 0;
      bool overflow = false;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
        int digit = s_[pos_++] - '0';
        if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) overflow = true;
        else v = v * 10 + digit;
      }
      if (pos_ == start) return Malformed("expected an integer in 'shape'");
      if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;  // Python 2 wrote longs as 3L
      std::string text(s_.substr(start - negative, pos_ - start + negative));
      std::string which = "dimension " + std::to_string(dims.size());
      if (negative && v != 0) return Invalid(which + " is negative (" + text + ")");
      if (overflow) return Invalid(which + " is too large (" + text + ")");
      dims.push_back(v);
      trailing_comma = Eat(',');
      if (!trailing_comma && !Peek(')')) return Malformed("expected ',' or ')' in 'shape'");
    }
    if (dims.size() == 1 && !trailing_comma) return Malformed("'shape' is not a tuple");
    StatusOr<TensorShape> shape = TensorShape::FromDims(dims);
    if (!shape.ok()) return Invalid("invalid shape: " + shape.status().message());
    h->shape = *shape;
    return Status::OK();
  }

  std::string_view s_;
  size_t pos_ = 0;
  const std::string& where_;
};

// Reads magic, version and header length from the start of `bytes`, which
// holds at least the first 12 bytes of the file (or the whole file, if
// shorter); `total` is the size of the whole file. Sets the offset and
// length of the header text.
Status ParsePreamble(std::string_view bytes, uint64_t total, const std::string& where, size_t* header_start,
                     size_t* header_len) {
  if (bytes.substr(0, kMagic.size()) != kMagic.substr(0, std::min(bytes.size(), kMagic.size())))
    return errors::InvalidArgument(where, ": bad magic string: not an npy file (expected \\x93NUMPY at the start)");
  if (bytes.size() < 8) return errors::InvalidArgument(where, ": truncated header: ", total, " bytes in all");
  int major = static_cast<unsigned char>(bytes[6]), minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0)
    return errors::InvalidArgument(where, ": unsupported npy format version ", major, ".", minor,
                                   " (supported: 1.0, 2.0, 3.0)");
  size_t len_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + len_bytes)
    return errors::InvalidArgument(where, ": truncated header: ", total, " bytes in all");
  uint64_t len = 0;
  for (size_t i = 0; i < len_bytes; ++i) len |= uint64_t{static_cast<unsigned char>(bytes[8 + i])} << (8 * i);
  if (len > kMaxHeaderLen)
    return errors::InvalidArgument(where, ": header length ", len, " exceeds the limit of ", kMaxHeaderLen, " bytes");
  *header_start = 8 + len_bytes;
  *header_len = static_cast<size_t>(len);
  if (total < *header_start + len)
    return errors::InvalidArgument(where, ": truncated header: it declares ", len, " bytes but only ",
                                   total - *header_start, " follow");
  return Status::OK();
}

// Checks that `available` bytes of data are exactly what the header needs.
Status CheckDataLength(const Header& h, uint64_t available, const std::string& where) {
  uint64_t n = static_cast<uint64_t>(h.shape.num_elements());
  uint64_t item = DataTypeSize(h.dtype);
  std::string what = DataTypeName(h.dtype) + " array of shape " + h.shape.DebugString();
  if (n > available / item) {
    if (n > std::numeric_limits<uint64_t>::max() / item)
      return errors::InvalidArgument(where, ": data has ", available, " bytes, but a ", what, " needs more than 2^64");
    return errors::InvalidArgument(where, ": data is truncated: ", available, " bytes, but a ", what, " needs ",
                                   n * item);
  }
  if (n * item != available)
    return errors::InvalidArgument(where, ": data is too long: ", available, " bytes, but a ", what, " needs ",
                                   n * item);
  return Status::OK();
}

void SwapBytes(char* p, size_t bytes, size_t unit) {
  for (size_t i = 0; i + unit <= bytes; i += unit) std::reverse(p + i, p + i + unit);
}

// Turns the raw bytes of `t`, laid out as the file had them, into flowvm's
// layout: host byte order, canonical bools, row-major.
StatusOr<Tensor> Normalize(Tensor t, const Header& h) {
  char* p = static_cast<char*>(t.raw_data());
  size_t item = DataTypeSize(h.dtype);
  if (h.swap) SwapBytes(p, t.TotalBytes(), DataTypeIsComplex(h.dtype) ? item / 2 : item);
  if (h.dtype == DT_BOOL)
    for (size_t i = 0; i < t.TotalBytes(); ++i) p[i] = p[i] != 0;
  int rank = t.dims();
  if (!h.fortran || rank < 2 || t.NumElements() == 0) return t;
  // Walk the row-major destination in order, tracking the matching
  // column-major source offset.
  FLOWVM_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(t.dtype(), t.shape()));
  char* dst = static_cast<char*>(out.raw_data());
  std::vector<int64_t> stride(rank), idx(rank, 0);
  for (int k = 0; k < rank; ++k) stride[k] = k == 0 ? 1 : stride[k - 1] * t.dim_size(k - 1);
  int64_t src = 0;
  for (int64_t d = 0; d < t.NumElements(); ++d) {
    std::memcpy(dst + d * item, p + src * item, item);
    for (int k = rank - 1; k >= 0; --k) {
      src += stride[k];
      if (++idx[k] < t.dim_size(k)) break;
      src -= stride[k] * t.dim_size(k);
      idx[k] = 0;
    }
  }
  return out;
}

// ---- writing ------------------------------------------------------------------

StatusOr<std::string> Descr(DataType dtype) {
  switch (dtype) {
    case DT_HALF: return std::string("<f2");
    case DT_FLOAT: return std::string("<f4");
    case DT_DOUBLE: return std::string("<f8");
    case DT_INT8: case DT_QINT8: return std::string("|i1");
    case DT_INT16: case DT_QINT16: return std::string("<i2");
    case DT_INT32: case DT_QINT32: return std::string("<i4");
    case DT_INT64: return std::string("<i8");
    case DT_UINT8: case DT_QUINT8: return std::string("|u1");
    case DT_UINT16: case DT_QUINT16: case DT_BFLOAT16: return std::string("<u2");
    case DT_UINT32: return std::string("<u4");
    case DT_UINT64: return std::string("<u8");
    case DT_BOOL: return std::string("|b1");
    case DT_COMPLEX64: return std::string("<c8");
    case DT_COMPLEX128: return std::string("<c16");
    default: return errors::InvalidArgument("cannot write a ", DataTypeName(dtype), " tensor as npy");
  }
}

// Magic, version, length and header dict, padded with spaces and a newline
// to a multiple of 64 bytes as NumPy does.
StatusOr<std::string> Preamble(const Tensor& t) {
  if (!t.IsInitialized()) return errors::InvalidArgument("cannot write an uninitialized tensor as npy");
  FLOWVM_ASSIGN_OR_RETURN(std::string descr, Descr(t.dtype()));
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < t.dims(); ++i) dict += (i ? ", " : "") + std::to_string(t.dim_size(i));
  dict += t.dims() == 1 ? ",), }" : "), }";
  for (int major : {1, 2}) {
    size_t len_bytes = major == 1 ? 2 : 4;
    size_t prefix = kMagic.size() + 2 + len_bytes;
    size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
    size_t header_len = total - prefix;
    if (major == 1 && header_len > 0xffff) continue;
    std::string out(kMagic);
    out += static_cast<char>(major);
    out += '\0';
    for (size_t i = 0; i < len_bytes; ++i) out += static_cast<char>((header_len >> (8 * i)) & 0xff);
    out += dict;
    out.append(header_len - dict.size() - 1, ' ');
    out += '\n';
    return out;
  }
  return errors::InvalidArgument("npy header for shape ", t.shape().DebugString(), " is too long");
}

// The element bytes in little-endian order.
std::string_view DataBytes(const Tensor& t, std::string* scratch) {
  std::string_view raw(static_cast<const char*>(t.raw_data()), t.TotalBytes());
  if constexpr (kHostLittle) return raw;
  scratch->assign(raw);
  size_t item = DataTypeSize(t.dtype());
  SwapBytes(scratch->data(), scratch->size(), DataTypeIsComplex(t.dtype()) ? item / 2 : item);
  return *scratch;
}

Status ReadAt(int fd, char* buf, size_t n, uint64_t offset, const std::string& path) {
  while (n > 0) {
    ssize_t r = ::pread(fd, buf, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return ErrnoStatus(errno, "reading npy file '" + path + "'");
    if (r == 0)
      return errors::InvalidArgument("npy file '", path, "': file ended early (was it truncated while read?)");
    buf += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
  return Status::OK();
}

Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    ssize_t w = ::write(fd, bytes.data(), bytes.size());
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return ErrnoStatus(errno, "writing npy file '" + path + "'");
    bytes.remove_prefix(static_cast<size_t>(w));
  }
  return Status::OK();
}

}  // namespace

StatusOr<Tensor> ParseNpy(std::string_view bytes) {
  const std::string where = "npy data";
  size_t start = 0, len = 0;
  FLOWVM_RETURN_IF_ERROR(ParsePreamble(bytes.substr(0, 12), bytes.size(), where, &start, &len));
  Header h;
  FLOWVM_RETURN_IF_ERROR(HeaderParser(bytes.substr(start, len), where).Parse(&h));
  h.data_offset = start + len;
  FLOWVM_RETURN_IF_ERROR(CheckDataLength(h, bytes.size() - h.data_offset, where));
  FLOWVM_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(h.dtype, h.shape));
  if (t.TotalBytes() > 0) std::memcpy(t.raw_data(), bytes.data() + h.data_offset, t.TotalBytes());
  return Normalize(std::move(t), h);
}

StatusOr<std::string> SerializeNpy(const Tensor& t) {
  FLOWVM_ASSIGN_OR_RETURN(std::string out, Preamble(t));
  std::string scratch;
  out += DataBytes(t, &scratch);
  return out;
}

StatusOr<Tensor> ReadNpyFile(const std::string& path) {
  const std::string where = "npy file '" + path + "'";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) return errors::NotFound("npy file '", path, "' not found");
    return ErrnoStatus(err, "opening npy file '" + path + "'");
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) return ErrnoStatus(errno, "reading npy file '" + path + "'");
  if (S_ISDIR(st.st_mode)) return errors::InvalidArgument(where, ": is a directory");
  uint64_t size = static_cast<uint64_t>(st.st_size);

  std::string prefix(std::min<uint64_t>(size, 12), '\0');
  FLOWVM_RETURN_IF_ERROR(ReadAt(fd, prefix.data(), prefix.size(), 0, path));
  size_t start = 0, len = 0;
  FLOWVM_RETURN_IF_ERROR(ParsePreamble(prefix, size, where, &start, &len));
  std::string text(len, '\0');
  FLOWVM_RETURN_IF_ERROR(ReadAt(fd, text.data(), len, start, path));
  Header h;
  FLOWVM_RETURN_IF_ERROR(HeaderParser(text, where).Parse(&h));
  h.data_offset = start + len;
  FLOWVM_RETURN_IF_ERROR(CheckDataLength(h, size - h.data_offset, where));
  FLOWVM_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(h.dtype, h.shape));
  FLOWVM_RETURN_IF_ERROR(ReadAt(fd, static_cast<char*>(t.raw_data()), t.TotalBytes(), h.data_offset, path));
  return Normalize(std::move(t), h);
}

Status WriteNpyFile(const std::string& path, const Tensor& t) {
  if (t.dtype() == DT_STRING)
    return errors::InvalidArgument("cannot write npy file '", path, "': string tensors have no npy form");
  StatusOr<std::string> preamble = Preamble(t);
  if (!preamble.ok()) return preamble.status().WithContext("cannot write npy file '" + path + "'");
  static std::atomic<uint64_t> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return ErrnoStatus(errno, "cannot write npy file '" + path + "'");
  std::string scratch;
  Status s = WriteAll(fd, *preamble, path);
  if (s.ok()) s = WriteAll(fd, DataBytes(t, &scratch), path);
  if (s.ok() && ::fsync(fd) != 0) s = ErrnoStatus(errno, "writing npy file '" + path + "'");
  if (::close(fd) != 0 && s.ok()) s = ErrnoStatus(errno, "writing npy file '" + path + "'");
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0)
    s = ErrnoStatus(errno, "cannot write npy file '" + path + "' (renaming " + tmp + ")");
  if (!s.ok()) ::unlink(tmp.c_str());
  return s;
}

}  // namespace flowvm
