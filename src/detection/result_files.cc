#include "detection/result_files.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace dtrain::detection {
namespace {

// The fork rounds each pixel value to hundredths before writing or truncating it.
float Hundredths(float v) { return std::round(v * 100.f) / 100.f; }

// The fork's integer corners: the rounded origin and size, each truncated.
void IntegerCorners(const SavedDetection& d, long long corners[4]) {
  const long long x = static_cast<long long>(Hundredths(d.xmin));
  const long long y = static_cast<long long>(Hundredths(d.ymin));
  corners[0] = x;
  corners[1] = y;
  corners[2] = x + static_cast<long long>(Hundredths(d.xmax - d.xmin));
  corners[3] = y + static_cast<long long>(Hundredths(d.ymax - d.ymin));
}

// Writes `text` to `path` through a temporary file renamed over it.
Status WriteWhole(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      return IoError("cannot write detection results to '" + path + "'");
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return IoError("cannot write detection results to '" + path + "'");
  }
  return Status::Ok();
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string Number(float v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

StatusOr<std::vector<ImageNameSize>> ReadNameSizeFile(const std::string& path,
                                                      const std::string& field) {
  std::ifstream in(path);
  if (!in) return InvalidArgument("cannot read " + field + " '" + path + "'");
  std::vector<ImageNameSize> images;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream fields(line);
    std::string name;
    long long height = 0, width = 0;
    if (!(fields >> name)) continue;  // a blank line
    std::string rest;
    if (!(fields >> height >> width) || (fields >> rest) || height < 1 || width < 1 ||
        height > INT32_MAX || width > INT32_MAX) {
      return InvalidArgument(field + " '" + path + "' line " + std::to_string(number) +
                             ": expected \"name height width\" with positive sizes, got \"" + line +
                             "\"");
    }
    images.push_back({name, static_cast<int>(height), static_cast<int>(width)});
  }
  return images;
}

StatusOr<ResultFormat> ParseResultFormat(const std::string& text, const std::string& field) {
  if (text == "VOC") return ResultFormat::kVoc;
  if (text == "COCO") return ResultFormat::kCoco;
  if (text == "ILSVRC") return ResultFormat::kIlsvrc;
  return InvalidArgument(field + " must be VOC, COCO or ILSVRC, got \"" + text + "\"");
}

Status WriteResultFiles(const ResultFiles& files, const std::vector<SavedDetection>& detections) {
  const std::string base = files.directory + "/" + files.prefix;
  long long c[4];
  if (files.format == ResultFormat::kVoc) {
    std::map<int, std::string> texts;
    for (const auto& [label, name] : files.class_names) texts[label];
    for (const SavedDetection& d : detections) {
      auto text = texts.find(d.label);
      if (text == texts.end()) continue;  // the fork skips a class it has no file for
      IntegerCorners(d, c);
      text->second += d.image + " " + Number(d.score) + " " + std::to_string(c[0]) + " " +
                      std::to_string(c[1]) + " " + std::to_string(c[2]) + " " +
                      std::to_string(c[3]) + "\n";
    }
    for (const auto& [label, text] : texts) {
      const Status written = WriteWhole(base + files.class_names.at(label) + ".txt", text);
      if (!written.ok()) return written;
    }
    return Status::Ok();
  }
  std::string text;
  if (files.format == ResultFormat::kIlsvrc) {
    for (const SavedDetection& d : detections) {
      IntegerCorners(d, c);
      text += d.image + " " + std::to_string(d.label) + " " + Number(d.score) + " " +
              std::to_string(c[0]) + " " + std::to_string(c[1]) + " " + std::to_string(c[2]) + " " +
              std::to_string(c[3]) + "\n";
    }
    return WriteWhole(base + ".txt", text);
  }
  text = "[";
  for (size_t i = 0; i < detections.size(); ++i) {
    const SavedDetection& d = detections[i];
    const auto name = files.class_names.find(d.label);
    text += std::string(i ? ",\n" : "\n") + "  {\"image_id\": " + JsonString(d.image) +
            ", \"category_id\": " +
            JsonString(name == files.class_names.end() ? std::to_string(d.label) : name->second) +
            ", \"bbox\": [" + Number(Hundredths(d.xmin)) + ", " + Number(Hundredths(d.ymin)) +
            ", " + Number(Hundredths(d.xmax - d.xmin)) + ", " +
            Number(Hundredths(d.ymax - d.ymin)) + "], \"score\": " + Number(d.score) + "}";
  }
  text += "\n]\n";
  return WriteWhole(base + ".json", text);
}

}  // namespace dtrain::detection
