#include "core/record_framing.h"

#include "core/crc32c.h"

namespace flowvm::record_framing {

namespace {

void PutFixed64(uint64_t v, char* out) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
void PutFixed32(uint32_t v, char* out) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
uint64_t GetFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
uint32_t GetFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

}  // namespace

void EncodeHeader(uint64_t length, char header[kHeaderBytes]) {
  PutFixed64(length, header);
  PutFixed32(Crc32cMask(Crc32c(header, 8)), header + 8);
}

void EncodeFooter(std::string_view data, char footer[kFooterBytes]) {
  PutFixed32(Crc32cMask(Crc32c(data.data(), data.size())), footer);
}

void AppendRecord(std::string_view data, std::string* out) {
  char header[kHeaderBytes];
  EncodeHeader(data.size(), header);
  char footer[kFooterBytes];
  EncodeFooter(data, footer);
  out->append(header, sizeof(header));
  out->append(data.data(), data.size());
  out->append(footer, sizeof(footer));
}

bool DecodeHeader(const char header[kHeaderBytes], uint64_t* length) {
  *length = GetFixed64(header);
  return Crc32cMask(Crc32c(header, 8)) == GetFixed32(header + 8);
}

bool DataMatchesFooter(const char* data, uint64_t length) {
  return Crc32cMask(Crc32c(data, static_cast<size_t>(length))) == GetFixed32(data + length);
}

}  // namespace flowvm::record_framing
