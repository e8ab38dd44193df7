// A dtrain command line that `dtrain launch` or `dtrain cluster slurm-script` reads and edits
// without running it: the job after `--` ({"train", "--solver=S", "--global-batch"}) or the data
// server's arguments. The one parser of such command lines: the launch plan, the pre-flight's
// input paths, per-worker files, the restarted job and the Slurm script all read and change flags
// through it.
//
// Grammar, cli/flags.cc's: `--name=value` and `-name=value`; `--name value` and `-name value`;
// a switch `--name` (or `--name=false`); a word that does not start with '-' is positional.
// cli/flags.cc knows each command's flags and so whether `--name` takes the next word; this
// parser does not, and takes the next word as the value when it does not start with '-'. The
// two read alike on every job `dtrain launch` accepts (cli/job_check.h refuses positional
// arguments, the one case where they differ: `--switch word`), except a value that starts
// with '-' after a flag that needs one (`--iterations -1`), which flags.cc reads as the value and
// this parser as another flag (the words are kept as they are either way). Where a flag is given
// twice, the last counts, as in flags.cc.
//
// A value type; every word not edited is given back as written (words()).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace dtrain {

class JobCommandLine {
 public:
  // One argument: a flag with or without its value, or a positional word.
  struct Argument {
    std::string name;                  // without dashes; empty for a positional word
    std::optional<std::string> value;  // none for a bare flag; a positional word's text
    std::vector<std::string> words;    // as written: one, or two for `--name value`
  };

  // `words` begin with the subcommand: {"train", "--solver=S"}; an empty list or one that starts
  // with a flag has none.
  static JobCommandLine ParseCommand(const std::vector<std::string>& words);
  // `words` are arguments only: {"--source=L", "--listen", "tcp://h:5555"}.
  static JobCommandLine ParseArguments(const std::vector<std::string>& words);

  const std::string& subcommand() const { return subcommand_; }
  const std::vector<Argument>& arguments() const { return arguments_; }

  // Whether flag `name` is given, in any form.
  bool Has(const std::string& name) const;
  // The value of the last `name` given with one; none if there is none.
  std::optional<std::string> Value(const std::string& name) const;
  // Value, or "" where there is none.
  std::string ValueOr(const std::string& name, const std::string& fallback = "") const;

  // Removes every `name`, with its value.
  void Remove(const std::string& name);
  // The last `name` becomes `--name=value` in its place; without one, appended.
  void Replace(const std::string& name, const std::string& value);
  // Appends `--name=value`.
  void Append(const std::string& name, const std::string& value);

  // The command line again: the subcommand, then each argument's words.
  std::vector<std::string> words() const;

 private:
  static std::vector<Argument> Split(const std::vector<std::string>& words, size_t first);

  std::string subcommand_;
  std::vector<Argument> arguments_;
};

}  // namespace dtrain
