// A small YAML emitter for generated configuration files (the AWS ParallelCluster config): a
// tree of maps (keys in insertion order), lists and scalars, written in block style with two-space
// indentation. Strings that YAML could read as something else (a number, a boolean, null, text
// with ': ' or '#', leading or trailing blanks, ...) are written double-quoted, so every string
// reads back as the same string; integers and booleans are written bare. Comments come before
// map entries. No anchors, tags, flow style or multi-line scalars: nothing a config needs here.
//
// Value type; pure; thread-safe.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dtrain {

class Yaml {
 public:
  static Yaml String(const std::string& text);
  static Yaml Int(long long value);
  static Yaml Bool(bool value);
  static Yaml Map() { return Yaml(kMap); }
  static Yaml List() { return Yaml(kList); }

  // Map: appends `key: value` (with `comment` lines above it); returns *this for chaining.
  Yaml& Set(const std::string& key, Yaml value, const std::string& comment = "");
  // List: appends an item.
  Yaml& Add(Yaml item);

  // The document: map entries at column 0.
  std::string Emit() const;

 private:
  enum Kind { kScalar, kMap, kList };
  explicit Yaml(Kind kind) : kind_(kind) {}
  void EmitBlock(int indent, std::string* out) const;  // a map's or list's lines

  Kind kind_;
  std::string scalar_;  // kScalar: already in YAML form (quoted where needed)
  struct Entry {
    std::string key;
    std::string comment;
    std::vector<Yaml> value;  // exactly one element (a vector, as Yaml is incomplete here)
  };
  std::vector<Entry> entries_;  // kMap
  std::vector<Yaml> items_;     // kList
};

// `text` as a YAML scalar: bare when it reads back as the same string, else double-quoted.
std::string YamlScalar(const std::string& text);

}  // namespace dtrain
