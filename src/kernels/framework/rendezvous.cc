#include "kernels/framework/rendezvous.h"

#include <charconv>
#include <cstdio>

namespace flowvm {

std::string Rendezvous::KeyPrefix(std::string_view src_device, uint64_t src_incarnation, std::string_view dst_device,
                                  std::string_view tensor_name) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%llx", static_cast<unsigned long long>(src_incarnation));
  std::string key;
  key.reserve(src_device.size() + dst_device.size() + tensor_name.size() + 24);
  key.append(src_device).push_back(';');
  key.append(hex).push_back(';');
  key.append(dst_device).push_back(';');
  key.append(tensor_name).push_back(';');
  return key;
}

std::string Rendezvous::Key(std::string_view prefix, int64_t frame_id, int64_t iter_id) {
  std::string key(prefix);
  key.append(std::to_string(frame_id)).push_back(':');
  key.append(std::to_string(iter_id));
  return key;
}

Status Rendezvous::ParseKey(std::string_view key, ParsedKey* out) {
  std::string_view parts[5];
  std::string_view rest = key;
  for (int i = 0; i < 5; ++i) {
    size_t semi = rest.find(';');
    if (i < 4) {
      if (semi == std::string_view::npos)
        return errors::InvalidArgument("rendezvous key '", key, "' does not have 5 ';'-separated fields");
      parts[i] = rest.substr(0, semi);
      rest.remove_prefix(semi + 1);
    } else {
      if (semi != std::string_view::npos)
        return errors::InvalidArgument("rendezvous key '", key, "' has more than 5 ';'-separated fields");
      parts[i] = rest;
    }
  }
  for (int i : {0, 2, 3})
    if (parts[i].empty()) return errors::InvalidArgument("rendezvous key '", key, "' has an empty field ", i + 1);
  const std::string_view inc = parts[1];
  auto [p, ec] = std::from_chars(inc.data(), inc.data() + inc.size(), out->src_incarnation, 16);
  if (inc.empty() || ec != std::errc() || p != inc.data() + inc.size())
    return errors::InvalidArgument("rendezvous key '", key, "': incarnation '", inc, "' is not a hex number");
  const std::string_view fi = parts[4];
  size_t colon = fi.find(':');
  if (colon == std::string_view::npos)
    return errors::InvalidArgument("rendezvous key '", key, "': '", fi, "' is not <frame>:<iteration>");
  auto parse = [](std::string_view s, int64_t* v) {
    auto [q, e] = std::from_chars(s.data(), s.data() + s.size(), *v);
    return !s.empty() && e == std::errc() && q == s.data() + s.size() && *v >= 0;
  };
  if (!parse(fi.substr(0, colon), &out->frame_id) || !parse(fi.substr(colon + 1), &out->iter_id))
    return errors::InvalidArgument("rendezvous key '", key, "': '", fi, "' is not <frame>:<iteration>");
  out->src_device = parts[0];
  out->dst_device = parts[2];
  out->tensor_name = parts[3];
  return Status::OK();
}

}  // namespace flowvm
