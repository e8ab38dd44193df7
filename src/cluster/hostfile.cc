#include "cluster/hostfile.h"

#include <arpa/inet.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

namespace dtrain {
namespace {

// An integer in [1, kMaxSlotsPerHost], or -1.
int ParseCount(const std::string& text) {
  if (text.empty() || text.size() > 6 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    return -1;
  }
  const int value = std::stoi(text);
  return value > 0 && value <= kMaxSlotsPerHost ? value : -1;
}

std::string Escaped(const std::string& name) {
  std::string text;
  for (unsigned char c : name.substr(0, 80)) {
    if (c >= 0x20 && c < 0x7f) {
      text += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      text += hex;
    }
  }
  return name.size() > 80 ? text + "..." : text;
}

bool IsLabel(const std::string& label) {
  if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
    return false;
  }
  for (unsigned char c : label) {
    if (!std::isalnum(c) && c != '-') return false;
  }
  return true;
}

}  // namespace

Status CheckHostName(const std::string& name) {
  unsigned char address[sizeof(in6_addr)];
  if (inet_pton(AF_INET, name.c_str(), address) == 1 ||
      inet_pton(AF_INET6, name.c_str(), address) == 1) {
    return Status::Ok();
  }
  bool valid = !name.empty() && name.size() <= 253;
  for (size_t start = 0; valid && start <= name.size();) {
    size_t dot = name.find('.', start);
    if (dot == std::string::npos) dot = name.size();
    // A trailing dot (a fully qualified name) is allowed.
    const bool trailing_dot = dot == name.size() && start == dot && start > 0;
    valid = IsLabel(name.substr(start, dot - start)) || trailing_dot;
    start = dot + 1;
  }
  if (valid) return Status::Ok();
  return InvalidArgument("'" + Escaped(name) +
                         "' is not a host name or address (RFC 1123: "
                         "letters, digits, '-' and '.'; or an IPv4/IPv6 address)");
}

Status CheckSlots(int64_t slots, const std::string& what) {
  if (slots >= 1 && slots <= kMaxSlotsPerHost) return Status::Ok();
  return InvalidArgument(what + " must be in [1, " + std::to_string(kMaxSlotsPerHost) +
                         "] ranks per host, got " + std::to_string(slots));
}

StatusOr<std::vector<Host>> ParseHostfile(const std::string& text, const std::string& origin) {
  std::vector<Host> hosts;
  std::set<std::string> seen;
  std::istringstream lines(text);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    auto error = [&](const std::string& what) {
      return InvalidArgument(origin + ":" + std::to_string(number) + ": " + what);
    };
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    Host host;
    if (!(words >> host.name)) continue;
    if (Status name = CheckHostName(host.name); !name.ok()) return error(name.message());
    for (std::string word; words >> word;) {
      const size_t equals = word.find('=');
      const std::string key = word.substr(0, equals);
      const std::string value = equals == std::string::npos ? "" : word.substr(equals + 1);
      if (key == "slots") {
        host.slots = ParseCount(value);
        if (host.slots < 0) {
          return error("bad slots value '" + value + "' (an integer from 1 to " +
                       std::to_string(kMaxSlotsPerHost) + ")");
        }
      } else if (key != "max_slots" && key != "max-slots") {
        return error("unknown field '" + word + "' (expected 'HOST slots=N')");
      }
    }
    if (!seen.insert(host.name).second) return error("host '" + host.name + "' is listed twice");
    hosts.push_back(host);
  }
  if (hosts.empty()) return InvalidArgument(origin + ": lists no hosts");
  return hosts;
}

StatusOr<std::vector<Host>> ReadHostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot read hostfile '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return ParseHostfile(text.str(), path);
}

std::string FormatHostfile(const std::vector<Host>& hosts) {
  std::string text;
  for (const Host& host : hosts) text += host.name + " slots=" + std::to_string(host.slots) + "\n";
  return text;
}

int TotalSlots(const std::vector<Host>& hosts) {
  int total = 0;
  for (const Host& host : hosts) total += host.slots;
  return total;
}

}  // namespace dtrain
