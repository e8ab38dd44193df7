// ConvertAnnoset (convert.h): the SSD fork's convert_annoset.

#include <map>
#include <memory>

#include "core/file_bytes.h"
#include "core/logging.h"
#include "data/box_annotations.h"
#include "data/convert.h"
#include "data/image_datum.h"
#include "data/image_list.h"
#include "data/label_map.h"
#include "data/lmdb_db.h"
#include "data/partial_output.h"
#include "data/text_fields.h"

namespace dtrain {
namespace {

// One line of the list: the image, and its annotation file (detection) or its label.
struct AnnosetEntry {
  std::string image;
  std::string annotation;
  int label = 0;
  int line = 0;
};

// Detection lists: "image annotation" per line, both relative to the root; blank lines skipped.
StatusOr<std::vector<AnnosetEntry>> ReadDetectionList(const std::string& list) {
  std::string bytes;
  DT_RETURN_IF_ERROR(ReadFileInto(list, &bytes).WithContext("list '" + list + "'"));
  std::vector<AnnosetEntry> entries;
  const std::vector<std::string> lines = TextLines(bytes);
  for (int line = 1; line <= static_cast<int>(lines.size()); ++line) {
    const std::vector<std::string> fields = BlankSeparatedFields(lines[line - 1]);
    if (fields.empty()) continue;
    if (fields.size() != 2) {
      return InvalidArgument(list + ":" + std::to_string(line) +
                             ": expected \"image annotation\" (two paths), got " +
                             std::to_string(fields.size()) + " fields");
    }
    entries.push_back({fields[0], fields[1], 0, line});
  }
  if (entries.empty()) return InvalidArgument("list '" + list + "' names no image");
  return entries;
}

StatusOr<std::vector<AnnosetEntry>> ReadAnnosetList(const std::string& list,
                                                    const AnnosetOptions& options) {
  if (options.anno_type == "detection") return ReadDetectionList(list);
  DT_ASSIGN_OR_RETURN(std::vector<ImageListEntry> images, ReadImageList(list));
  std::vector<AnnosetEntry> entries;
  for (const ImageListEntry& image : images) {
    entries.push_back({image.path, "", image.label, image.line});
  }
  return entries;
}

Status WriteAnnoset(const std::string& root, const std::string& list,
                    const std::vector<AnnosetEntry>& entries,
                    const std::map<std::string, int>& name_to_label, const std::string& out,
                    const AnnosetOptions& options) {
  DT_ASSIGN_OR_RETURN(std::unique_ptr<LmdbWriter> writer, LmdbWriter::Create(out));
  ImageDecoder decoder;
  std::string bytes;
  int64_t first_size = -1, boxes = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const AnnosetEntry& entry = entries[i];
    const std::string path = root + entry.image;
    const std::string where = list + ":" + std::to_string(entry.line) + ": image '" + path + "'";
    DT_RETURN_IF_ERROR(ReadFileInto(path, &bytes).WithContext(where));
    AnnotatedDatum record;
    StatusOr<Datum> datum = ImageDatum(bytes, entry.label, options.image, &decoder);
    if (!datum.ok()) return datum.status().WithContext(where);
    *record.mutable_datum() = std::move(*datum);
    if (options.anno_type == "detection") {
      const std::string annotation = root + entry.annotation;
      const std::string listed = list + ":" + std::to_string(entry.line);
      StatusOr<ImageBoxes> found =
          ReadBoxAnnotations(annotation, options.label_type, name_to_label);
      if (!found.ok()) return found.status().WithContext(listed);
      DT_RETURN_IF_ERROR(
          AddBoxes(*found, decoder.decoded_height(), decoder.decoded_width(), annotation, &record)
              .WithContext(listed));
      boxes += static_cast<int64_t>(found->objects.size());
    }
    if (options.check_size) {
      const Datum& d = record.datum();
      const int64_t size = static_cast<int64_t>(d.channels()) * d.height() * d.width();
      if (first_size < 0) first_size = size;
      if (size != first_size) {
        return InvalidArgument(where + ": " + std::to_string(size) + " values, the first image " +
                               std::to_string(first_size) + " (--check_size)");
      }
    }
    DT_RETURN_IF_ERROR(writer->Put(RecordKey(static_cast<int64_t>(i)) + "_" + entry.image,
                                   record.SerializeAsString()));
    if ((i + 1) % 1000 == 0) DT_LOG(INFO) << "Processed " << (i + 1) << " files.";
  }
  DT_RETURN_IF_ERROR(writer->Close());
  DT_LOG(INFO) << "Processed " << entries.size() << " files"
               << (options.anno_type == "detection" ? ", " + std::to_string(boxes) + " boxes."
                                                    : ".");
  return Status::Ok();
}

}  // namespace

Status ConvertAnnoset(const std::string& root, const std::string& list, const std::string& out_lmdb,
                      const AnnosetOptions& options) {
  if (options.anno_type != "detection" && options.anno_type != "classification") {
    return InvalidArgument("--anno_type must be detection or classification, not '" +
                           options.anno_type + "'");
  }
  if ((options.image.resize_height > 0) != (options.image.resize_width > 0) ||
      options.image.resize_height < 0 || options.image.resize_width < 0) {
    return InvalidArgument("resize needs both --resize_height and --resize_width (got " +
                           std::to_string(options.image.resize_height) + " and " +
                           std::to_string(options.image.resize_width) + ")");
  }
  if (!options.image.encode_type.empty() && !options.image.encoded) {
    return InvalidArgument("--encode_type needs --encoded");
  }
  DT_RETURN_IF_ERROR(EncodeFormat(options.image.encode_type, ImageFormat::kJpeg).status());
  std::map<std::string, int> name_to_label;
  if (options.anno_type == "detection") {
    if (options.label_type != "xml" && options.label_type != "json" &&
        options.label_type != "txt") {
      return InvalidArgument("--label_type must be xml, json or txt, not '" + options.label_type +
                             "'");
    }
    if (options.label_type != "txt") {
      if (options.label_map_file.empty()) {
        return InvalidArgument("--label_type=" + options.label_type +
                               " needs --label_map_file (a LabelMap prototxt)");
      }
      DT_ASSIGN_OR_RETURN(LabelMap map, ReadLabelMap(options.label_map_file));
      DT_ASSIGN_OR_RETURN(name_to_label,
                          NameToLabel(map, options.check_label, options.label_map_file));
    }
  }
  DT_ASSIGN_OR_RETURN(std::vector<AnnosetEntry> entries, ReadAnnosetList(list, options));
  if (options.image.shuffle) {
    DT_LOG(INFO) << "Shuffling data";
    Rng rng(options.image.seed);
    ShuffleWith(rng, &entries);
  }
  DT_LOG(INFO) << "A total of " << entries.size() << " images.";
  DT_RETURN_IF_ERROR(
      WriteOutputsAtomically({out_lmdb}, [&](const std::vector<std::string>& partials) {
        return WriteAnnoset(root, list, entries, name_to_label, partials[0], options);
      }));
  DT_LOG(INFO) << "Wrote " << entries.size() << " records to " << out_lmdb;
  return Status::Ok();
}

}  // namespace dtrain
