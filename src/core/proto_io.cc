#include "core/proto_io.h"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include "core/caffe_fork_hints.h"

namespace dtrain {
namespace {

namespace pb = google::protobuf;

std::string ErrnoText(int err) { return std::strerror(err); }

// Protobuf's warning 'Message type "dtrain.PoolingParameter" has no field named "ceil_mode".',
// split into the message's and the field's names; false for any other message. A plain scan: the
// field's name is the file's token, of any length (a regular expression would recurse over it).
bool ParseUnknownFieldWarning(const std::string& warning, std::string* message_type,
                              std::string* field) {
  const std::string_view text(warning);
  const std::string_view lead = "Message type \"", middle = "\" has no field named \"";
  const size_t type_at = text.find(lead);
  if (type_at == std::string_view::npos) return false;
  const size_t type_begin = type_at + lead.size();
  const size_t type_end = text.find(middle, type_begin);
  const size_t field_end = text.rfind('"');
  if (type_end == std::string_view::npos || field_end <= type_end + middle.size()) return false;
  std::string_view type = text.substr(type_begin, type_end - type_begin);
  if (type.rfind("dtrain.", 0) == 0) type.remove_prefix(7);
  *message_type = std::string(type);
  *field = std::string(text.substr(type_end + middle.size(), field_end - type_end - middle.size()));
  return !message_type->empty() && !field->empty();
}

// Messages nested deeper than this in a text file are refused before protobuf parses it: its
// parser recurses once a level, and skipping an unknown field's value it has no limit.
constexpr int kMaxTextNesting = 100;

// "FILE:LINE:COL: ..." for the first '{' or '<' of `text` nested deeper than kMaxTextNesting
// (outside strings and comments), or "" when there is none.
std::string TextNestingError(std::string_view text, const std::string& name) {
  int depth = 0, line = 1, column = 1;
  char quote = 0;
  bool comment = false;
  for (size_t i = 0; i < text.size(); ++i, ++column) {
    const char c = text[i];
    if (c == '\n') {
      ++line, column = 0;
      comment = false;
      quote = 0;  // a text format string never spans lines
      continue;
    }
    if (comment) continue;
    if (quote != 0) {
      if (c == '\\')
        ++i, ++column;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '#') {
      comment = true;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{' || c == '<') {
      if (++depth > kMaxTextNesting) {
        return name + ":" + std::to_string(line) + ":" + std::to_string(column) +
               ": messages nested more than " + std::to_string(kMaxTextNesting) +
               " levels deep (no net or solver needs more than a few)";
      }
    } else if ((c == '}' || c == '>') && depth > 0) {
      --depth;
    }
  }
  return "";
}

// The 0-based column where `field` starts on `line` of `text`: protobuf reports the token after
// the name (its ':' or '{'), so the name is the last one starting before that. `column` itself
// when the name is not found there.
int FieldNameColumn(std::string_view text, int line, int column, const std::string& field) {
  size_t begin = 0;
  for (int i = 0; i < line && begin != std::string_view::npos; ++i) {
    begin = text.find('\n', begin);
    if (begin != std::string_view::npos) ++begin;
  }
  if (begin == std::string_view::npos) return column;
  const std::string_view rest = text.substr(begin, static_cast<size_t>(column));
  const size_t at = rest.rfind(field);
  return at == std::string_view::npos ? column : static_cast<int>(at);
}

// Opens `path` for reading: NotFound when it does not exist, IoError for any other failure.
Status OpenForRead(const std::string& path, int* fd) {
  *fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (*fd >= 0) return Status::Ok();
  int err = errno;
  std::string message = path + ": cannot open: " + ErrnoText(err);
  return err == ENOENT ? NotFound(message) : IoError(message);
}

Status ReadFileToString(const std::string& path, std::string* out) {
  int fd = -1;
  DT_RETURN_IF_ERROR(OpenForRead(path, &fd));
  out->clear();
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return IoError(path + ": read failed: " + ErrnoText(err));
    }
    out->append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return Status::Ok();
}

// Collects protobuf's text-parser errors as "name:LINE:COL: message" (1-based).
class TextErrorCollector : public pb::io::ErrorCollector {
 public:
  // `text` is what is parsed; it must outlive the collector.
  TextErrorCollector(std::string name, std::string_view text)
      : name_(std::move(name)), text_(text) {}

#if GOOGLE_PROTOBUF_VERSION >= 4022000
  void RecordError(int line, pb::io::ColumnNumber column, absl::string_view message) override {
    Add(line, column, std::string(message));
  }
#else
  void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
    Add(line, column, message);
  }
#endif

  // With AllowUnknownField, protobuf reports each unknown field as a warning and goes on.
#if GOOGLE_PROTOBUF_VERSION >= 4022000
  void RecordWarning(int line, pb::io::ColumnNumber column, absl::string_view message) override {
    AddUnknown(line, column, std::string(message));
  }
#else
  void AddWarning(int line, pb::io::ColumnNumber column, const std::string& message) override {
    AddUnknown(line, column, message);
  }
#endif

  // Every problem found, one per line: the errors, then each unknown field with a hint.
  std::string problems() const {
    std::string all = errors_;
    for (const std::string& u : unknown_fields_) all += (all.empty() ? "" : "\n") + u;
    return all;
  }
  bool has_unknown_fields() const { return !unknown_fields_.empty(); }
  // Where protobuf's first error is, and what it says (line -2: none).
  int first_line() const { return first_line_; }
  int first_column() const { return first_column_; }
  const std::string& first_message() const { return first_message_; }

 private:
  std::string Where(int line, int column) const {
    // Line -1 marks whole-message errors such as missing required fields.
    if (line < 0) return name_;
    return name_ + ":" + std::to_string(line + 1) + ":" + std::to_string(column + 1);
  }
  void Add(int line, int column, const std::string& message) {
    if (first_line_ == -2) {
      first_line_ = line;
      first_column_ = column;
      first_message_ = message;
    }
    if (!errors_.empty()) errors_ += "\n";
    // Protobuf places an error at the end of the text on the line after the last newline, past
    // the file's last line: say the end of the last line, and that the file ended there.
    const size_t end = text_.find_last_not_of(" \t\r\n");
    int lines = 0;
    for (size_t i = 0; i < text_.size() && (end == std::string_view::npos || i <= end); ++i) {
      lines += text_[i] == '\n';
    }
    if (line >= 0 && end != std::string_view::npos && line > lines) {
      const size_t line_start = text_.rfind('\n', end);
      const int last_column =
          static_cast<int>(end - (line_start == std::string_view::npos ? 0 : line_start + 1)) + 1;
      errors_ += Where(lines, last_column) + ": the file ends here: " + message;
      return;
    }
    errors_ += Where(line, column) + ": " + message;
  }
  // 'FILE:LINE:COL: unknown field "ceil_mode" in PoolingParameter (hint)', COL where the name
  // starts; any other warning as protobuf words it.
  void AddUnknown(int line, int column, const std::string& warning) {
    std::string message_type, field;
    if (!ParseUnknownFieldWarning(warning, &message_type, &field)) {
      unknown_fields_.push_back(Where(line, column) + ": " + warning);
      return;
    }
    std::string text = Where(line, FieldNameColumn(text_, line, column, field)) +
                       ": unknown field \"" + field + "\" in " + message_type;
    const std::string hint = CaffeFieldHint(message_type, field);
    unknown_fields_.push_back(hint.empty() ? text : text + " (" + hint + ")");
  }

  std::string name_;
  std::string_view text_;
  std::string errors_;
  std::vector<std::string> unknown_fields_;
  int first_line_ = -2, first_column_ = 0;
  std::string first_message_;
};

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

// Overwrites with spaces the last `field: VALUE` before (line, column) of `text` (protobuf places
// an unknown enum value's error at the token after it), so that a parse of the rest keeps every
// other position. Returns where VALUE was as "LINE:COLUMN" (1-based), or "" where the text there
// has another shape (a list of values, say) and nothing was blanked.
std::string BlankAssignment(std::string* text, int line, int column, const std::string& value) {
  size_t limit = 0;
  for (int l = 0; l < line; ++l) {
    limit = text->find('\n', limit);
    if (limit == std::string::npos) return "";
    ++limit;
  }
  limit = std::min(text->size(), limit + static_cast<size_t>(std::max(column, 0)));
  if (value.empty() || limit < value.size()) return "";
  const size_t at = text->rfind(value, limit - value.size());
  if (at == std::string::npos) return "";
  const size_t end = at + value.size();
  if ((at > 0 && IsNameChar((*text)[at - 1])) || (end < text->size() && IsNameChar((*text)[end]))) {
    return "";
  }
  size_t colon = at;
  while (colon > 0 && std::isspace(static_cast<unsigned char>((*text)[colon - 1]))) --colon;
  if (colon == 0 || (*text)[colon - 1] != ':') return "";
  size_t name = colon - 1;
  while (name > 0 && std::isspace(static_cast<unsigned char>((*text)[name - 1]))) --name;
  while (name > 0 && IsNameChar((*text)[name - 1])) --name;
  for (size_t i = name; i < end; ++i) {
    if ((*text)[i] != '\n') (*text)[i] = ' ';
  }
  const size_t line_start = text->rfind('\n', at);
  const size_t first_column = line_start == std::string::npos ? 0 : line_start + 1;
  const auto lines = std::count(text->begin(), text->begin() + static_cast<long>(at), '\n');
  return std::to_string(lines + 1) + ":" + std::to_string(at - first_column + 1);
}

// Writes through `serialize` to a temp file next to `path`, fsyncs it, renames it over `path` and
// fsyncs the directory. Removes the temp file on failure.
Status WriteAtomically(const std::string& path,
                       const std::function<bool(pb::io::ZeroCopyOutputStream*)>& serialize) {
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return IoError(path + ": cannot create temporary file " + tmp + ": " + ErrnoText(errno));
  }
  // Closes and removes the temp file; `err` 0 means there is no OS error to show.
  auto fail = [&](const std::string& what, int err) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    return IoError(path + ": " + what + (err != 0 ? ": " + ErrnoText(err) : std::string()));
  };

  bool written = false;
  int write_errno = 0;
  {
    pb::io::FileOutputStream stream(fd);
    written = serialize(&stream);
    written = stream.Flush() && written;
    write_errno = stream.GetErrno();
  }
  if (!written) return fail("write to " + tmp + " failed", write_errno);
  if (::fsync(fd) != 0) return fail("fsync of " + tmp + " failed", errno);
  int close_result = ::close(fd);
  fd = -1;
  if (close_result != 0) return fail("close of " + tmp + " failed", errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    return fail("rename of " + tmp + " failed", errno);
  }

  // Make the rename itself durable. Filesystems that cannot sync a directory say EINVAL.
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) {
    return IoError(path + ": written, but cannot open directory " + dir +
                   " to sync it: " + ErrnoText(errno));
  }
  if (::fsync(dir_fd) != 0 && errno != EINVAL) {
    int err = errno;
    ::close(dir_fd);
    return IoError(path + ": written, but fsync of directory " + dir +
                   " failed: " + ErrnoText(err));
  }
  ::close(dir_fd);
  return Status::Ok();
}

// Rejects messages that protobuf would refuse to serialise or that Caffe could not read back.
Status CheckWritable(const std::string& path, const pb::Message& msg) {
  if (!msg.IsInitialized()) {
    return InvalidArgument(path + ": not written: " + msg.GetTypeName() +
                           " is missing required fields: " + msg.InitializationErrorString());
  }
  return Status::Ok();
}

}  // namespace

Status ParseTextProto(const std::string& text, const std::string& name_for_errors, pb::Message* msg,
                      bool* rest_parsed) {
  if (rest_parsed) *rest_parsed = false;
  const std::string too_deep = TextNestingError(text, name_for_errors);
  if (!too_deep.empty()) return InvalidArgument(too_deep);
  // An enum value the schema lacks ends protobuf's parse; each one found is noted and its
  // assignment blanked out, and the rest parsed again, so that one run names them all along with
  // the unknown fields after them (a bounded number of times).
  constexpr int kMostEnumValues = 64;
  std::string working = text, enum_values;
  for (int round = 0;; ++round) {
    TextErrorCollector errors(name_for_errors, working);
    pb::TextFormat::Parser parser;
    parser.RecordErrorsTo(&errors);
    // Unknown fields are skipped and collected rather than ending the parse, so that one run
    // names every field the file has and the schema lacks; any of them still fails the parse.
    parser.AllowUnknownField(true);
    msg->Clear();
    const bool parsed = parser.ParseFromString(working, msg);
    const std::string& first = errors.first_message();
    const std::string enum_error = "Unknown enumeration value of \"";
    const size_t quote = first.find('"', enum_error.size());
    if (!parsed && round < kMostEnumValues && first.rfind(enum_error, 0) == 0 &&
        quote != std::string::npos) {
      const std::string where =
          BlankAssignment(&working, errors.first_line(), errors.first_column(),
                          first.substr(enum_error.size(), quote - enum_error.size()));
      if (!where.empty()) {
        enum_values += name_for_errors + ":" + where + ": " + first + "\n";
        continue;
      }
    }
    if (parsed && !errors.has_unknown_fields() && enum_values.empty()) return Status::Ok();
    if (rest_parsed) *rest_parsed = parsed;  // parsed to the end, unknown fields skipped
    const std::string problems = enum_values + errors.problems();
    if (!problems.empty()) {
      return InvalidArgument(problems.back() == '\n' ? problems.substr(0, problems.size() - 1)
                                                     : problems);
    }
    return InvalidArgument(name_for_errors + ": cannot parse as " + msg->GetTypeName());
  }
}

Status ReadTextProto(const std::string& path, pb::Message* msg, bool* rest_parsed) {
  if (rest_parsed) *rest_parsed = false;
  std::string text;
  DT_RETURN_IF_ERROR(ReadFileToString(path, &text));
  return ParseTextProto(text, path, msg, rest_parsed);
}

Status ReadBinaryProto(const std::string& path, pb::Message* msg) {
  int fd = -1;
  DT_RETURN_IF_ERROR(OpenForRead(path, &fd));
  struct stat st {};
  const long long size = ::fstat(fd, &st) == 0 ? static_cast<long long>(st.st_size) : -1;
  if (size > INT_MAX) {
    ::close(fd);
    return Unsupported(path + ": " + std::to_string(size) +
                       " bytes; protobuf messages are limited to 2 GiB");
  }

  bool parsed = false;
  bool consumed_all = false;
  int read_errno = 0;
  {
    pb::io::FileInputStream raw(fd);
    pb::io::CodedInputStream coded(&raw);
    coded.SetTotalBytesLimit(INT_MAX);
    parsed = msg->ParsePartialFromCodedStream(&coded);
    consumed_all = coded.ConsumedEntireMessage();
    read_errno = raw.GetErrno();
  }
  ::close(fd);

  if (read_errno != 0) return IoError(path + ": read failed: " + ErrnoText(read_errno));
  if (!parsed || !consumed_all) {
    return DataLoss(path + ": truncated or corrupt " + msg->GetTypeName() + " (" +
                    std::to_string(size) + " bytes)");
  }
  if (!msg->IsInitialized()) {
    return DataLoss(path + ": " + msg->GetTypeName() +
                    " is missing required fields: " + msg->InitializationErrorString());
  }
  return Status::Ok();
}

Status WriteBinaryProtoAtomically(const std::string& path, const pb::Message& msg) {
  DT_RETURN_IF_ERROR(CheckWritable(path, msg));
  if (msg.ByteSizeLong() > static_cast<size_t>(INT_MAX)) {
    return Unsupported(path + ": not written: " + msg.GetTypeName() + " is " +
                       std::to_string(msg.ByteSizeLong()) +
                       " bytes; protobuf messages are limited to 2 GiB");
  }
  return WriteAtomically(path, [&msg](pb::io::ZeroCopyOutputStream* out) {
    return msg.SerializePartialToZeroCopyStream(out);
  });
}

Status WriteTextProtoAtomically(const std::string& path, const pb::Message& msg) {
  DT_RETURN_IF_ERROR(CheckWritable(path, msg));
  return WriteAtomically(
      path, [&msg](pb::io::ZeroCopyOutputStream* out) { return pb::TextFormat::Print(msg, out); });
}

}  // namespace dtrain
