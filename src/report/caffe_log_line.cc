#include "report/caffe_log_line.h"

#include <cstdlib>

#include "core/printable.h"

namespace dtrain {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A cursor over one line: each Take* consumes what it names or nothing.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  bool Take(std::string_view word) {
    if (text_.substr(0, word.size()) != word) return false;
    text_.remove_prefix(word.size());
    return true;
  }
  // A run of ASCII digits, possibly empty.
  std::string_view TakeDigits() { return TakeWhile(IsDigit); }
  // A run of the characters Caffe prints in a number ("0.25", "-1e-05", "nan", "-inf").
  std::string_view TakeNumberChars() {
    return TakeWhile([](char c) {
      return IsDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || c == 'i' ||
             c == 'n' || c == 'f' || c == 'a';
    });
  }
  std::string_view TakeNonSpace() {
    return TakeWhile([](char c) { return c != ' ' && c != '\t'; });
  }
  // Everything up to (not including) `c`; false, consuming nothing, where no `c` follows.
  bool SkipTo(char c) {
    const size_t at = text_.find(c);
    if (at == std::string_view::npos) return false;
    text_.remove_prefix(at);
    return true;
  }

 private:
  template <typename Predicate>
  std::string_view TakeWhile(Predicate keep) {
    size_t n = 0;
    while (n < text_.size() && keep(text_[n])) ++n;
    std::string_view taken = text_.substr(0, n);
    text_.remove_prefix(n);
    return taken;
  }
  std::string_view text_;
};

// Digits as a number; the caller has bounded their count to at most 15.
double DigitsValue(std::string_view digits) {
  double value = 0;
  for (char c : digits) value = value * 10 + (c - '0');
  return value;
}

StatusOr<double> Iteration(std::string_view digits) {
  if (digits.size() > kMaxIterationDigits) {
    return InvalidArgument("iteration number '" + PrintableBytes(digits, 20) + "' (" +
                           std::to_string(digits.size()) + " digits) is out of range (at most " +
                           std::to_string(kMaxIterationDigits) + " digits)");
  }
  return DigitsValue(digits);
}

// A loss or score; `ok` false where the characters are no number (the line is then not read).
StatusOr<double> Value(std::string_view chars, bool* ok) {
  if (chars.size() > kMaxValueChars) {
    return InvalidArgument("a value of " + std::to_string(chars.size()) +
                           " characters is out of range (at most " +
                           std::to_string(kMaxValueChars) + ")");
  }
  const std::string text(chars);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  *ok = !text.empty() && end == text.c_str() + text.size();
  return value;
}

// The glog prefix "Lmmdd hh:mm:ss[.ffffff]" as seconds of the day, or NAN.
double StampSeconds(std::string_view line) {
  auto two = [&](size_t at) -> int {
    if (!IsDigit(line[at]) || !IsDigit(line[at + 1])) return -1;
    return (line[at] - '0') * 10 + (line[at + 1] - '0');
  };
  if (line.size() < 14 || std::string_view("IWEF").find(line[0]) == std::string_view::npos) {
    return NAN;
  }
  for (size_t i = 1; i < 5; ++i) {
    if (!IsDigit(line[i])) return NAN;
  }
  if (line[5] != ' ' || line[8] != ':' || line[11] != ':') return NAN;
  const int hours = two(6), minutes = two(9), seconds = two(12);
  if (hours < 0 || minutes < 0 || seconds < 0) return NAN;
  double fraction = 0, scale = 0.1;
  if (line.size() > 15 && line[14] == '.' && IsDigit(line[15])) {
    for (size_t i = 15; i < line.size() && IsDigit(line[i]); ++i, scale /= 10) {
      if (i < 24) fraction += (line[i] - '0') * scale;  // nanoseconds are enough
    }
  }
  return hours * 3600.0 + minutes * 60.0 + seconds + fraction;
}

// "Iteration N, Testing net (#K)" (after the word "Iteration ").
Status ParseTesting(std::string_view rest, CaffeLogLine* out) {
  Cursor cursor(rest);
  const std::string_view digits = cursor.TakeDigits();
  if (digits.empty() || !cursor.Take(", Testing net (#")) return Status::Ok();
  const std::string_view net = cursor.TakeDigits();
  if (net.empty() || !cursor.Take(")")) return Status::Ok();
  if (net.size() > 3) {
    return InvalidArgument("test net #" + PrintableBytes(net, 20) + " is out of range (at most #" +
                           std::to_string(kMaxTestNet) + ")");
  }
  DT_ASSIGN_OR_RETURN(out->iteration, Iteration(digits));
  out->test_net = static_cast<int>(DigitsValue(net));
  out->kind = CaffeLogLine::Kind::kTesting;
  return Status::Ok();
}

// "Iteration N[ (...)], loss = X" (after the word "Iteration ").
Status ParseTrainLoss(std::string_view rest, CaffeLogLine* out) {
  Cursor cursor(rest);
  const std::string_view digits = cursor.TakeDigits();
  if (digits.empty()) return Status::Ok();
  if (Cursor rate = cursor; rate.Take(" (") && rate.SkipTo(')')) {
    rate.Take(")");
    cursor = rate;
  }
  if (!cursor.Take(", loss = ")) return Status::Ok();
  bool is_number = false;
  DT_ASSIGN_OR_RETURN(const double loss, Value(cursor.TakeNumberChars(), &is_number));
  if (!is_number) return Status::Ok();
  DT_ASSIGN_OR_RETURN(out->iteration, Iteration(digits));
  out->value = loss;
  out->kind = CaffeLogLine::Kind::kTrainLoss;
  return Status::Ok();
}

// "Test net output #k: NAME = X" (after the word "Test net output #").
Status ParseTestOutput(std::string_view rest, CaffeLogLine* out) {
  Cursor cursor(rest);
  if (cursor.TakeDigits().empty() || !cursor.Take(": ")) return Status::Ok();
  const std::string_view name = cursor.TakeNonSpace();
  if (name.empty() || !cursor.Take(" = ")) return Status::Ok();
  if (name.size() > kMaxScoreNameBytes) {
    return InvalidArgument("a test output name of " + std::to_string(name.size()) +
                           " bytes is out of range (at most " + std::to_string(kMaxScoreNameBytes) +
                           ")");
  }
  bool is_number = false;
  DT_ASSIGN_OR_RETURN(const double value, Value(cursor.TakeNumberChars(), &is_number));
  if (!is_number) return Status::Ok();
  out->score = PrintableBytes(name);
  out->value = value;
  out->kind = CaffeLogLine::Kind::kTestOutput;
  return Status::Ok();
}

// Calls `parse` after each occurrence of `word` until one sets a kind.
template <typename Parse>
Status Scan(std::string_view line, std::string_view word, Parse parse, CaffeLogLine* out) {
  for (size_t at = line.find(word);
       at != std::string_view::npos && out->kind == CaffeLogLine::Kind::kOther;
       at = line.find(word, at + 1)) {
    DT_RETURN_IF_ERROR(parse(line.substr(at + word.size()), out));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<CaffeLogLine> ParseCaffeLogLine(std::string_view line) {
  CaffeLogLine parsed;
  parsed.seconds = StampSeconds(line);
  // A test pass's start first, then its outputs, then display lines.
  DT_RETURN_IF_ERROR(Scan(line, "Iteration ", ParseTesting, &parsed));
  DT_RETURN_IF_ERROR(Scan(line, "Test net output #", ParseTestOutput, &parsed));
  DT_RETURN_IF_ERROR(Scan(line, "Iteration ", ParseTrainLoss, &parsed));
  return parsed;
}

}  // namespace dtrain
