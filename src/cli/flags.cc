#include "cli/flags.h"

#include <cctype>
#include <stdexcept>

#include "core/printable.h"

namespace dtrain {

StatusOr<std::string> SwitchValue(const std::string& name, const std::string* value) {
  if (value == nullptr) return std::string("true");
  std::string v;
  for (char c : *value) v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "true" || v == "1" || v == "yes") return std::string("true");
  if (v == "false" || v == "0" || v == "no") return std::string("false");
  return InvalidArgument("flag --" + name +
                         " is a switch: give it no value, or true or false, not '" +
                         PrintableBytes(*value, 40) + "'");
}

StatusOr<Flags> Flags::Parse(const std::vector<std::string>& args,
                             const std::vector<FlagSpec>& known) {
  Flags flags;
  auto find = [&](const std::string& name) -> const FlagSpec* {
    for (const FlagSpec& f : known) {
      if (f.name == name) return &f;
    }
    return nullptr;
  };
  for (const FlagSpec& f : known) flags.defaults_[f.name] = f.default_value;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      flags.has_dashdash_ = true;
      flags.after_dashdash_.assign(args.begin() + i + 1, args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      flags.positional_.push_back(arg);
      continue;
    }
    std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
    std::string name = body, value;
    const size_t eq = body.find('=');
    const bool has_value = eq != std::string::npos;
    if (has_value) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
    }
    const FlagSpec* spec = find(name);
    if (!spec) {
      std::string list;
      for (const FlagSpec& f : known) list += (list.empty() ? "--" : ", --") + f.name;
      return InvalidArgument("unknown flag '" + arg +
                             "'; this command takes: " + (list.empty() ? "no flags" : list));
    }
    if (spec->is_bool) {
      DT_ASSIGN_OR_RETURN(value, SwitchValue(name, has_value ? &value : nullptr));
    } else if (!has_value) {
      if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return InvalidArgument("flag --" + name + " needs a value");
      }
    }
    flags.values_[name] = value;
  }
  return flags;
}

std::string Flags::Get(const std::string& name) const {
  auto it = values_.find(name);
  if (it != values_.end()) return it->second;
  auto d = defaults_.find(name);
  return d != defaults_.end() ? d->second : "";
}

StatusOr<int> Flags::GetInt(const std::string& name) const {
  const std::string v = Get(name);
  try {
    size_t used = 0;
    const int n = std::stoi(v, &used);
    if (used != v.size()) throw std::invalid_argument(v);
    return n;
  } catch (const std::exception&) {
    return InvalidArgument("flag --" + name + " needs an integer, got '" + v + "'");
  }
}

bool Flags::GetBool(const std::string& name) const {
  const std::string v = Get(name);
  return v == "true" || v == "1" || v == "yes";  // Parse wrote "true" or "false"
}

std::string FlagsHelp(const std::vector<FlagSpec>& known) {
  std::string out;
  for (const FlagSpec& f : known) {
    out += "  --" + f.name + (f.is_bool ? "" : "=VALUE") + "\n      " + f.help;
    if (!f.default_value.empty()) out += " (default: " + f.default_value + ")";
    out += "\n";
  }
  return out;
}

}  // namespace dtrain
