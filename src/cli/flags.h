// Command-line flags in both Caffe's and GNU style: `-solver x`, `-solver=x`, `--solver x`,
// `--solver=x`; boolean flags (switches) take no value (`--verbose`) or an explicit boolean
// (`--verbose=false`: true/false, 1/0, yes/no in any case); any other value is refused, never
// read as false.
// Each command declares the flags it knows; an unknown flag is an error listing them. A lone
// `--` ends the flags: what follows is kept verbatim in after_dashdash() (`dtrain cluster
// slurm-script --nodes=2 -- train --solver=S` passes `train --solver=S` on).
// Value type, no global state.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace dtrain {

struct FlagSpec {
  FlagSpec(std::string n, std::string h, bool b = false, std::string d = "")
      : name(std::move(n)), help(std::move(h)), is_bool(b), default_value(std::move(d)) {}
  std::string name;
  std::string help;
  bool is_bool;
  std::string default_value;
};

class Flags {
 public:
  // args excludes the program and command names.
  static StatusOr<Flags> Parse(const std::vector<std::string>& args,
                               const std::vector<FlagSpec>& known);

  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  std::string Get(const std::string& name) const;
  StatusOr<int> GetInt(const std::string& name) const;
  bool GetBool(const std::string& name) const;
  const std::vector<std::string>& positional() const { return positional_; }
  const std::vector<std::string>& after_dashdash() const { return after_dashdash_; }
  bool has_dashdash() const { return has_dashdash_; }

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, std::string> defaults_;
  std::vector<std::string> positional_;
  std::vector<std::string> after_dashdash_;
  bool has_dashdash_ = false;
};

// A switch's value as "true" or "false": none (null) is "true"; an error names the flag where
// `value` is no boolean. Shared by every parser of dtrain command lines.
StatusOr<std::string> SwitchValue(const std::string& name, const std::string* value);

// "  --name  help (default: x)" lines for a usage message.
std::string FlagsHelp(const std::vector<FlagSpec>& known);

}  // namespace dtrain
