#include "cluster/slurm_nodelist.h"

#include <cctype>

namespace dtrain {
namespace {

constexpr long kMaxRange = 65536;      // Slurm's MAX_RANGE: hosts in one LO-HI range
constexpr size_t kMaxHosts = 1 << 18;  // ours: guards memory against "n[0-65535][0-65535]"

bool AllDigits(const std::string& text) {
  if (text.empty() || text.size() > 9) return false;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string Padded(long value, size_t width) {
  std::string digits = std::to_string(value);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return digits;
}

// The numbers of one bracket's body ("01-04,07"), as text, appended to `out`.
Status ExpandBracket(const std::string& body, std::vector<std::string>* out) {
  if (body.empty()) return InvalidArgument("empty brackets");
  size_t start = 0;
  while (start <= body.size()) {
    size_t comma = body.find(',', start);
    if (comma == std::string::npos) comma = body.size();
    const std::string part = body.substr(start, comma - start);
    const size_t dash = part.find('-');
    const std::string lo = part.substr(0, dash);
    const std::string hi = dash == std::string::npos ? lo : part.substr(dash + 1);
    if (!AllDigits(lo) || !AllDigits(hi)) {
      return InvalidArgument("'" + part + "' is not a number or a range LO-HI");
    }
    const long first = std::stol(lo), last = std::stol(hi);
    if (last < first) return InvalidArgument("range " + part + " runs backwards");
    if (last - first + 1 > kMaxRange) {
      return InvalidArgument("range " + part + " holds more than " + std::to_string(kMaxRange) +
                             " hosts");
    }
    for (long n = first; n <= last; ++n) out->push_back(Padded(n, lo.size()));
    start = comma + 1;
  }
  return Status::Ok();
}

// One item ("rack[1-2]-node[01-02]") multiplied out, appended to `hosts`.
Status ExpandItem(const std::string& item, std::vector<std::string>* hosts) {
  auto error = [&item](const std::string& why) {
    return InvalidArgument("bad Slurm node list item '" + item + "': " + why);
  };
  std::vector<std::string> names = {""};
  size_t pos = 0;
  while (pos < item.size()) {
    const size_t open = item.find_first_of("[]", pos);
    if (open != std::string::npos && item[open] == ']') return error("']' without '['");
    const std::string text =
        item.substr(pos, open == std::string::npos ? std::string::npos : open - pos);
    if (open == std::string::npos && pos > 0)
      return error("text '" + text + "' after the last ']'");
    for (std::string& name : names) name += text;
    if (open == std::string::npos) break;
    const size_t close = item.find_first_of("[]", open + 1);
    if (close == std::string::npos || item[close] != ']') return error("'[' without ']'");
    std::vector<std::string> numbers;
    const Status status = ExpandBracket(item.substr(open + 1, close - open - 1), &numbers);
    if (!status.ok()) return error(status.message());
    if (names.size() * numbers.size() > kMaxHosts) {
      return error("names more than " + std::to_string(kMaxHosts) + " hosts");
    }
    std::vector<std::string> product;
    product.reserve(names.size() * numbers.size());
    for (const std::string& name : names) {
      for (const std::string& number : numbers) product.push_back(name + number);
    }
    names = std::move(product);
    pos = close + 1;
  }
  hosts->insert(hosts->end(), names.begin(), names.end());
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<std::string>> ExpandSlurmNodeList(const std::string& list) {
  std::vector<std::string> hosts;
  std::string item;
  int depth = 0;
  auto flush = [&]() -> Status {
    if (item.empty()) return Status::Ok();
    Status status = ExpandItem(item, &hosts);
    item.clear();
    if (status.ok() && hosts.size() > kMaxHosts) {
      return InvalidArgument("Slurm node list names more than " + std::to_string(kMaxHosts) +
                             " hosts");
    }
    return status;
  };
  for (char c : list) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth <= 0 && (c == ',' || std::isspace(static_cast<unsigned char>(c)))) {
      DT_RETURN_IF_ERROR(flush());
      depth = 0;
      continue;
    }
    item += c;
  }
  DT_RETURN_IF_ERROR(flush());
  return hosts;
}

StatusOr<std::vector<int>> ExpandSlurmTasksPerNode(const std::string& text, int nodes) {
  auto error = [&text](const std::string& why) {
    return InvalidArgument("bad Slurm tasks-per-node value '" + text + "': " + why);
  };
  std::vector<int> counts;
  bool single_plain = true;
  size_t start = 0;
  int groups = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    const std::string group = text.substr(start, comma - start);
    ++groups;
    std::string count = group, repeat = "1";
    const size_t paren = group.find("(x");
    if (paren != std::string::npos) {
      if (group.back() != ')') return error("'" + group + "' is not COUNT(xREPEAT)");
      count = group.substr(0, paren);
      repeat = group.substr(paren + 2, group.size() - paren - 3);
      single_plain = false;
    }
    if (!AllDigits(count) || !AllDigits(repeat) || std::stol(count) == 0 ||
        std::stol(repeat) == 0) {
      return error("'" + group + "' is not COUNT or COUNT(xREPEAT) with positive integers");
    }
    if (counts.size() + std::stol(repeat) > kMaxHosts) return error("too many nodes");
    counts.insert(counts.end(), std::stol(repeat), std::stoi(count));
    start = comma + 1;
  }
  if (single_plain && groups == 1) return std::vector<int>(nodes, counts[0]);
  if (static_cast<int>(counts.size()) != nodes) {
    return error("it gives counts for " + std::to_string(counts.size()) + " nodes, the job has " +
                 std::to_string(nodes));
  }
  return counts;
}

}  // namespace dtrain
