#include "data/window_file.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace dtrain {
namespace {

// Bounds on what a header may claim, so that absurd files are refused, not allocated for.
constexpr long kMaxImageSide = 1 << 16;
constexpr long kMaxWindowsPerImage = 1 << 20;

// The file's whitespace-separated tokens, each with its line.
class Tokens {
 public:
  Tokens(std::string text, std::string path) : path_(std::move(path)), text_(std::move(text)) {}

  bool AtEnd() {
    SkipSpace();
    return at_ >= text_.size();
  }
  // The next token, or an error naming what was expected.
  StatusOr<std::string> Next(const std::string& what) {
    if (AtEnd())
      return InvalidArgument(path_ + ":" + std::to_string(line_) + ": file ends where " + what +
                             " was expected");
    const size_t start = at_;
    while (at_ < text_.size() && !IsSpace(text_[at_])) ++at_;
    token_line_ = line_;
    return text_.substr(start, at_ - start);
  }
  StatusOr<long> Integer(const std::string& what, long lo, long hi) {
    DT_ASSIGN_OR_RETURN(std::string token, Next(what));
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(token.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || value < lo || value > hi) {
      return Bad(what + " must be an integer in [" + std::to_string(lo) + ", " +
                 std::to_string(hi) + "], got '" + token + "'");
    }
    return value;
  }
  StatusOr<float> Finite(const std::string& what) {
    DT_ASSIGN_OR_RETURN(std::string token, Next(what));
    char* end = nullptr;
    const float value = std::strtof(token.c_str(), &end);
    if (*end != '\0' || !std::isfinite(value)) {
      return Bad(what + " must be a finite number, got '" + token + "'");
    }
    return value;
  }
  // An error at the last token's line.
  Status Bad(const std::string& message) const {
    return InvalidArgument(path_ + ":" + std::to_string(token_line_) + ": " + message);
  }
  int line() const { return token_line_; }

 private:
  static bool IsSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
  }
  void SkipSpace() {
    while (at_ < text_.size() && IsSpace(text_[at_])) {
      if (text_[at_] == '\n') ++line_;
      ++at_;
    }
  }

  std::string path_;
  std::string text_;
  size_t at_ = 0;
  int line_ = 1;
  int token_line_ = 1;
};

Status ReadImageBlock(Tokens& tokens, float fg_threshold, float bg_threshold, WindowFile* file) {
  const int index = static_cast<int>(file->images.size());
  DT_ASSIGN_OR_RETURN(std::string hash, tokens.Next("'#'"));
  if (hash != "#") return tokens.Bad("expected '# image_index', got '" + hash + "'");
  DT_ASSIGN_OR_RETURN(long given, tokens.Integer("the image index", 0, INT32_MAX));
  if (given != index) {
    return tokens.Bad("image index " + std::to_string(given) + " where " + std::to_string(index) +
                      " was expected (images are numbered 0, 1, 2, ... in order)");
  }
  WindowImage image;
  DT_ASSIGN_OR_RETURN(image.path, tokens.Next("the image path"));
  DT_ASSIGN_OR_RETURN(long channels, tokens.Integer("the channel count", 1, 3));
  if (channels == 2) return tokens.Bad("the channel count must be 1 or 3, got 2");
  if (!file->images.empty() && channels != file->images[0].channels) {
    return tokens.Bad("image " + std::to_string(index) + " has " + std::to_string(channels) +
                      " channels but image 0 has " + std::to_string(file->images[0].channels) +
                      "; every image of a window file needs the same count");
  }
  image.channels = static_cast<int>(channels);
  DT_ASSIGN_OR_RETURN(long height, tokens.Integer("the image height", 1, kMaxImageSide));
  DT_ASSIGN_OR_RETURN(long width, tokens.Integer("the image width", 1, kMaxImageSide));
  image.height = static_cast<int>(height);
  image.width = static_cast<int>(width);
  file->images.push_back(image);

  DT_ASSIGN_OR_RETURN(long count, tokens.Integer("the window count", 0, kMaxWindowsPerImage));
  for (long i = 0; i < count; ++i) {
    Window window;
    window.image = index;
    DT_ASSIGN_OR_RETURN(long label, tokens.Integer("a window's class index", 0, INT32_MAX));
    window.line = tokens.line();
    DT_ASSIGN_OR_RETURN(window.overlap, tokens.Finite("a window's overlap"));
    long box[4];
    const char* names[4] = {"x1", "y1", "x2", "y2"};
    for (int k = 0; k < 4; ++k) {
      DT_ASSIGN_OR_RETURN(box[k],
                          tokens.Integer(std::string("a window's ") + names[k], 0, kMaxImageSide));
    }
    if (box[2] < box[0] || box[3] < box[1]) {
      return tokens.Bad("window (" + std::to_string(box[0]) + ", " + std::to_string(box[1]) + ", " +
                        std::to_string(box[2]) + ", " + std::to_string(box[3]) +
                        ") needs x1 <= x2 and y1 <= y2");
    }
    window.label = static_cast<int>(label);
    window.x1 = static_cast<int>(box[0]);
    window.y1 = static_cast<int>(box[1]);
    window.x2 = static_cast<int>(box[2]);
    window.y2 = static_cast<int>(box[3]);
    if (window.overlap >= fg_threshold) {
      if (window.label == 0) {
        return tokens.Bad("a foreground window (overlap " + std::to_string(window.overlap) +
                          " >= fg_threshold) has class 0, the background class");
      }
      file->foreground.push_back(window);
    } else if (window.overlap < bg_threshold) {
      window.label = 0;
      window.overlap = 0;
      file->background.push_back(window);
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<WindowFile> ReadWindowFile(const std::string& path, float fg_threshold,
                                    float bg_threshold) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("window file '" + path + "' cannot be opened");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return IoError("error reading window file '" + path + "'");
  Tokens tokens(text.str(), path);
  if (tokens.AtEnd()) return InvalidArgument("window file '" + path + "' is empty");
  WindowFile file;
  while (!tokens.AtEnd()) {
    DT_RETURN_IF_ERROR(ReadImageBlock(tokens, fg_threshold, bg_threshold, &file));
  }
  return file;
}

}  // namespace dtrain
