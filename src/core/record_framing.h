// TFRecord framing (shared/spec/formats.md), the one encoding of record
// files and event files: each record is
//   uint64 length (little-endian) | uint32 masked CRC32C of those 8 bytes |
//   data | uint32 masked CRC32C of the data.
// Shared by RecordWriter/RecordReader (flowvm/record_io.h), SummaryWriter
// and EventFileReader. Pure functions; thread-safe.
#ifndef FLOWVM_CORE_RECORD_FRAMING_H_
#define FLOWVM_CORE_RECORD_FRAMING_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace flowvm::record_framing {

inline constexpr size_t kHeaderBytes = 12;  // length + its CRC
inline constexpr size_t kFooterBytes = 4;   // the data's CRC

// The header and footer of a record holding `data`.
void EncodeHeader(uint64_t length, char header[kHeaderBytes]);
void EncodeFooter(std::string_view data, char footer[kFooterBytes]);
// Appends `data` as one whole record.
void AppendRecord(std::string_view data, std::string* out);

// The length a header declares; false if its CRC does not match (then
// nothing after it can be trusted).
bool DecodeHeader(const char header[kHeaderBytes], uint64_t* length);
// Whether `length` bytes of data followed by their footer match.
bool DataMatchesFooter(const char* data, uint64_t length);

}  // namespace flowvm::record_framing

#endif  // FLOWVM_CORE_RECORD_FRAMING_H_
