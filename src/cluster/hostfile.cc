#include "cluster/hostfile.h"

#include <fstream>
#include <set>
#include <sstream>

namespace dtrain {
namespace {

// A positive integer, or -1.
int ParseCount(const std::string& text) {
  if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos) {
    return -1;
  }
  const int value = std::stoi(text);
  return value > 0 ? value : -1;
}

}  // namespace

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
    for (std::string word; words >> word;) {
      const size_t equals = word.find('=');
      const std::string key = word.substr(0, equals);
      const std::string value = equals == std::string::npos ? "" : word.substr(equals + 1);
      if (key == "slots") {
        host.slots = ParseCount(value);
        if (host.slots < 0) return error("bad slots value '" + value + "' (a positive integer)");
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
