#include "cluster/yaml_writer.h"

#include <cctype>
#include <cstdio>
#include <regex>

namespace dtrain {

std::string YamlScalar(const std::string& text) {
  // Bare: starts with a letter, '/' or '_' and goes on with safe characters only; not a word YAML
  // 1.1 or 1.2 reads as a boolean or null.
  static const std::regex safe(
      "[A-Za-z_/][A-Za-z0-9_./@+-]*(:[A-Za-z0-9_./@+-]+)*(://[A-Za-z0-9_./@+-]*)?");
  static const std::regex special(
      "(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|"
      "on|On|ON|off|Off|OFF|null|Null|NULL)");
  if (std::regex_match(text, safe) && !std::regex_match(text, special)) return text;
  std::string quoted = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof(escape), "\\x%02x", c);
      quoted += escape;
    } else {
      quoted += static_cast<char>(c);
    }
  }
  return quoted + "\"";
}

Yaml Yaml::String(const std::string& text) {
  Yaml y(kScalar);
  y.scalar_ = YamlScalar(text);
  return y;
}

Yaml Yaml::Int(long long value) {
  Yaml y(kScalar);
  y.scalar_ = std::to_string(value);
  return y;
}

Yaml Yaml::Bool(bool value) {
  Yaml y(kScalar);
  y.scalar_ = value ? "true" : "false";
  return y;
}

Yaml& Yaml::Set(const std::string& key, Yaml value, const std::string& comment) {
  entries_.push_back({key, comment, {std::move(value)}});
  return *this;
}

Yaml& Yaml::Add(Yaml item) {
  items_.push_back(std::move(item));
  return *this;
}

std::string Yaml::Emit() const {
  std::string out;
  EmitBlock(0, &out);
  return out;
}

void Yaml::EmitBlock(int indent, std::string* out) const {
  const std::string pad(indent, ' ');
  if (kind_ == kMap) {
    for (const Entry& e : entries_) {
      size_t start = 0;
      while (!e.comment.empty() && start < e.comment.size()) {
        size_t end = e.comment.find('\n', start);
        if (end == std::string::npos) end = e.comment.size();
        *out += pad + "# " + e.comment.substr(start, end - start) + "\n";
        start = end + 1;
      }
      const Yaml& v = e.value[0];
      *out += pad + YamlScalar(e.key) + ":";
      if (v.kind_ == kScalar) {
        *out += " " + v.scalar_ + "\n";
      } else if ((v.kind_ == kMap && v.entries_.empty()) ||
                 (v.kind_ == kList && v.items_.empty())) {
        *out += v.kind_ == kMap ? " {}\n" : " []\n";
      } else {
        *out += "\n";
        v.EmitBlock(indent + 2, out);
      }
    }
  } else if (kind_ == kList) {
    for (const Yaml& item : items_) {
      if (item.kind_ == kScalar) {
        *out += pad + "- " + item.scalar_ + "\n";
        continue;
      }
      // A nested block, its first line after "- ": the rest lines up two columns in.
      std::string block;
      item.EmitBlock(indent + 2, &block);
      *out += pad + "- " + block.substr(indent + 2);
    }
  }
}

}  // namespace dtrain
