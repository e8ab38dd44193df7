// ConvertImageset (convert.h): Caffe's convert_imageset. In its own file because it is the one
// converter that decodes (and may re-encode) images.

#include <memory>

#include "core/file_bytes.h"
#include "core/logging.h"
#include "data/convert.h"
#include "data/datum.h"
#include "data/image_datum.h"
#include "data/image_decode.h"
#include "data/image_list.h"
#include "data/lmdb_db.h"
#include "data/partial_output.h"

namespace dtrain {
namespace {

Status WriteImageset(const std::string& root, const std::string& list,
                     const std::vector<ImageListEntry>& entries, const std::string& out,
                     const ImagesetOptions& options) {
  DT_ASSIGN_OR_RETURN(std::unique_ptr<LmdbWriter> writer, LmdbWriter::Create(out));
  ImageDecoder decoder;
  std::string bytes;
  for (size_t i = 0; i < entries.size(); ++i) {
    const ImageListEntry& entry = entries[i];
    const std::string path = root + entry.path;
    const std::string where = list + ":" + std::to_string(entry.line) + ": image '" + path + "'";
    DT_RETURN_IF_ERROR(ReadFileInto(path, &bytes).WithContext(where));
    StatusOr<Datum> datum = ImageDatum(bytes, entry.label, options, &decoder);
    if (!datum.ok()) return datum.status().WithContext(where);
    DT_RETURN_IF_ERROR(writer->Put(RecordKey(static_cast<int64_t>(i)) + "_" + entry.path,
                                   datum->SerializeAsString()));
    if ((i + 1) % 1000 == 0) DT_LOG(INFO) << "Processed " << (i + 1) << " files.";
  }
  DT_RETURN_IF_ERROR(writer->Close());
  DT_LOG(INFO) << "Processed " << entries.size() << " files.";
  return Status::Ok();
}

}  // namespace

Status ConvertImageset(const std::string& root, const std::string& list,
                       const std::string& out_lmdb, const ImagesetOptions& options) {
  if ((options.resize_height > 0) != (options.resize_width > 0) || options.resize_height < 0 ||
      options.resize_width < 0) {
    return InvalidArgument("resize needs both --resize_height and --resize_width (got " +
                           std::to_string(options.resize_height) + " and " +
                           std::to_string(options.resize_width) + ")");
  }
  DT_ASSIGN_OR_RETURN(std::vector<ImageListEntry> entries, ReadImageList(list));
  if (options.shuffle) {
    DT_LOG(INFO) << "Shuffling data";
    Rng rng(options.seed);
    ShuffleWith(rng, &entries);
  }
  DT_LOG(INFO) << "A total of " << entries.size() << " images.";
  // Written under a temporary name beside the output, renamed when complete: a failed or killed
  // run never leaves a partial LMDB at `out_lmdb`.
  DT_RETURN_IF_ERROR(
      WriteOutputsAtomically({out_lmdb}, [&](const std::vector<std::string>& partials) {
        return WriteImageset(root, list, entries, partials[0], options);
      }));
  DT_LOG(INFO) << "Wrote " << entries.size() << " records to " << out_lmdb;
  return Status::Ok();
}

}  // namespace dtrain
