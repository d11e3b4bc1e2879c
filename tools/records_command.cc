// `flowvm records FILE [--check] [-v]`: lists a TFRecord file's records
// (offset and length; with -v the first bytes of each) after checking every
// CRC; --check prints only the summary. A damaged file prints nothing to
// stdout and fails with one line naming the file and the record's offset.
#include <cctype>
#include <cstdio>

#include "cli_args.h"
#include "commands.h"
#include "flowvm/record_io.h"

namespace flowvm::cli {

namespace {

// Up to 32 bytes, printable ASCII as is, the rest as \xNN.
std::string Preview(const std::string& record) {
  std::string out;
  for (size_t i = 0; i < record.size() && i < 32; ++i) {
    const unsigned char c = static_cast<unsigned char>(record[i]);
    if (std::isprint(c) && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    }
  }
  if (record.size() > 32) out += "...";
  return out;
}

}  // namespace

Status RecordsCommand(const std::vector<std::string>& raw) {
  FLOWVM_ASSIGN_OR_RETURN(ParsedArgs args, ParseArgs(raw, {}, {"-v", "--check"}));
  if (args.positional.size() != 1)
    return errors::InvalidArgument("usage: flowvm records FILE [--check] [-v] (one file, got ",
                                   args.positional.size(), ")");
  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> reader, RecordReader::Open(args.positional[0]));
  std::vector<std::string> lines;
  uint64_t offset = 0, records = 0, bytes = 0;
  std::string record;
  for (;;) {
    const uint64_t at = offset;
    Status s = reader->ReadRecord(&offset, &record);
    if (s.code() == Code::kOutOfRange) break;
    FLOWVM_RETURN_IF_ERROR(s);
    ++records;
    bytes += record.size();
    if (args.has("--check")) continue;
    std::string line = "offset " + std::to_string(at) + ": " + std::to_string(record.size()) + " bytes";
    if (args.has("-v")) line += "  " + Preview(record);
    lines.push_back(std::move(line));
  }
  for (const std::string& line : lines) std::printf("%s\n", line.c_str());
  std::printf("%llu records, %llu bytes of data in %s, checksums verified\n",
              static_cast<unsigned long long>(records), static_cast<unsigned long long>(bytes),
              args.positional[0].c_str());
  return Status::OK();
}

}  // namespace flowvm::cli
