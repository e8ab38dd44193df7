#include "cluster/job_command_line.h"

#include <algorithm>

namespace dtrain {
namespace {

bool IsFlag(const std::string& word) { return word.size() >= 2 && word[0] == '-'; }

}  // namespace

std::vector<JobCommandLine::Argument> JobCommandLine::Split(const std::vector<std::string>& words,
                                                            size_t first) {
  std::vector<Argument> arguments;
  for (size_t i = first; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (!IsFlag(word)) {
      arguments.push_back({"", word, {word}});
      continue;
    }
    const std::string body = word.substr(word[1] == '-' ? 2 : 1);
    const size_t eq = body.find('=');
    if (eq != std::string::npos) {
      arguments.push_back({body.substr(0, eq), body.substr(eq + 1), {word}});
    } else if (i + 1 < words.size() && !IsFlag(words[i + 1])) {
      arguments.push_back({body, words[i + 1], {word, words[i + 1]}});
      ++i;
    } else {
      arguments.push_back({body, std::nullopt, {word}});
    }
  }
  return arguments;
}

JobCommandLine JobCommandLine::ParseCommand(const std::vector<std::string>& words) {
  JobCommandLine line;
  const bool has_subcommand = !words.empty() && !IsFlag(words[0]);
  if (has_subcommand) line.subcommand_ = words[0];
  line.arguments_ = Split(words, has_subcommand ? 1 : 0);
  return line;
}

JobCommandLine JobCommandLine::ParseArguments(const std::vector<std::string>& words) {
  JobCommandLine line;
  line.arguments_ = Split(words, 0);
  return line;
}

bool JobCommandLine::Has(const std::string& name) const {
  return std::any_of(arguments_.begin(), arguments_.end(),
                     [&](const Argument& a) { return !a.name.empty() && a.name == name; });
}

std::optional<std::string> JobCommandLine::Value(const std::string& name) const {
  for (auto it = arguments_.rbegin(); it != arguments_.rend(); ++it) {
    if (!it->name.empty() && it->name == name && it->value) return it->value;
  }
  return std::nullopt;
}

std::string JobCommandLine::ValueOr(const std::string& name, const std::string& fallback) const {
  return Value(name).value_or(fallback);
}

void JobCommandLine::Remove(const std::string& name) {
  arguments_.erase(
      std::remove_if(arguments_.begin(), arguments_.end(),
                     [&](const Argument& a) { return !a.name.empty() && a.name == name; }),
      arguments_.end());
}

void JobCommandLine::Replace(const std::string& name, const std::string& value) {
  for (auto it = arguments_.rbegin(); it != arguments_.rend(); ++it) {
    if (!it->name.empty() && it->name == name) {
      *it = {name, value, {"--" + name + "=" + value}};
      return;
    }
  }
  Append(name, value);
}

void JobCommandLine::Append(const std::string& name, const std::string& value) {
  arguments_.push_back({name, value, {"--" + name + "=" + value}});
}

std::vector<std::string> JobCommandLine::words() const {
  std::vector<std::string> out;
  if (!subcommand_.empty()) out.push_back(subcommand_);
  for (const Argument& a : arguments_) out.insert(out.end(), a.words.begin(), a.words.end());
  return out;
}

}  // namespace dtrain
