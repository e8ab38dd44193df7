#include "data/convert.h"

#include <filesystem>
#include <memory>
#include <system_error>
#include <vector>

#include "core/logging.h"
#include "core/proto_io.h"
#include "data/cifar_reader.h"
#include "data/datum.h"
#include "data/idx_reader.h"
#include "data/lmdb_db.h"
#include "data/partial_output.h"
#include "proto/blob.pb.h"

namespace dtrain {
namespace {

namespace fs = std::filesystem;

// Writes `count` uint8 images of channels x height x width to a new LMDB at `out`.
Status WriteImages(const std::string& out, int count, int channels, int height, int width,
                   const uint8_t* pixels, const uint8_t* labels, int key_digits) {
  DT_ASSIGN_OR_RETURN(std::unique_ptr<LmdbWriter> writer, LmdbWriter::Create(out));
  const size_t image_bytes = static_cast<size_t>(channels) * height * width;
  for (int i = 0; i < count; ++i) {
    const Datum datum = MakeDatum(channels, height, width, pixels + i * image_bytes, labels[i]);
    DT_RETURN_IF_ERROR(writer->Put(RecordKey(i, key_digits), datum.SerializeAsString()));
    if ((i + 1) % 10000 == 0) DT_LOG(INFO) << "Processed " << (i + 1) << " files.";
  }
  DT_RETURN_IF_ERROR(writer->Close());
  DT_LOG(INFO) << "Wrote " << count << " records";
  return Status::Ok();
}

Status ConvertMnistImpl(const std::string& images_path, const std::string& labels_path,
                        const std::string& out_lmdb) {
  DT_ASSIGN_OR_RETURN(IdxImages images, ReadIdxImages(images_path));
  DT_ASSIGN_OR_RETURN(std::vector<uint8_t> labels, ReadIdxLabels(labels_path));
  if (static_cast<size_t>(images.count) != labels.size()) {
    return InvalidArgument("images file '" + images_path + "' has " + std::to_string(images.count) +
                           " images but labels file '" + labels_path + "' has " +
                           std::to_string(labels.size()) + " labels");
  }
  DT_LOG(INFO) << "A total of " << images.count << " items.";
  DT_LOG(INFO) << "Rows: " << images.rows << " Cols: " << images.cols;
  return WriteImages(out_lmdb, images.count, 1, images.rows, images.cols, images.pixels.data(),
                     labels.data(), 8);
}

// Reads the named batch files of `dir` into one image list.
Status ReadCifarFiles(const std::string& dir, const std::vector<std::string>& names,
                      CifarBatch* all) {
  *all = CifarBatch();
  for (const std::string& name : names) {
    const std::string path = (fs::path(dir) / name).string();
    DT_LOG(INFO) << "Reading " << path;
    DT_ASSIGN_OR_RETURN(CifarBatch batch, ReadCifarBatch(path));
    all->count += batch.count;
    all->labels.insert(all->labels.end(), batch.labels.begin(), batch.labels.end());
    all->pixels.insert(all->pixels.end(), batch.pixels.begin(), batch.pixels.end());
  }
  return Status::Ok();
}

Status ConvertCifar10Impl(const std::string& dir, const std::string& train_out,
                          const std::string& test_out) {
  std::vector<std::string> train_names;
  for (int i = 1; i <= kCifarTrainBatches; ++i) {
    train_names.push_back("data_batch_" + std::to_string(i) + ".bin");
  }
  CifarBatch batch;
  DT_RETURN_IF_ERROR(ReadCifarFiles(dir, train_names, &batch));
  DT_LOG(INFO) << "Writing training data";
  DT_RETURN_IF_ERROR(WriteImages(train_out, batch.count, kCifarChannels, kCifarSize, kCifarSize,
                                 batch.pixels.data(), batch.labels.data(), 5));
  DT_RETURN_IF_ERROR(ReadCifarFiles(dir, {"test_batch.bin"}, &batch));
  DT_LOG(INFO) << "Writing testing data";
  return WriteImages(test_out, batch.count, kCifarChannels, kCifarSize, kCifarSize,
                     batch.pixels.data(), batch.labels.data(), 5);
}

}  // namespace

Status ConvertMnist(const std::string& images_path, const std::string& labels_path,
                    const std::string& out_lmdb) {
  DT_RETURN_IF_ERROR(
      WriteOutputsAtomically({out_lmdb}, [&](const std::vector<std::string>& partials) {
        return ConvertMnistImpl(images_path, labels_path, partials[0]);
      }));
  DT_LOG(INFO) << "Wrote " << out_lmdb;
  return Status::Ok();
}

Status ConvertCifar10(const std::string& dir, const std::string& out_dir) {
  const std::string train_out = (fs::path(out_dir) / "cifar10_train_lmdb").string();
  const std::string test_out = (fs::path(out_dir) / "cifar10_test_lmdb").string();
  DT_RETURN_IF_ERROR(
      WriteOutputsAtomically({train_out, test_out}, [&](const std::vector<std::string>& partials) {
        return ConvertCifar10Impl(dir, partials[0], partials[1]);
      }));
  DT_LOG(INFO) << "Wrote " << train_out << " and " << test_out;
  return Status::Ok();
}

Status ComputeMean(const std::string& lmdb, const std::string& out_binaryproto) {
  DT_ASSIGN_OR_RETURN(std::unique_ptr<LmdbReader> reader, LmdbReader::Open(lmdb));
  if (reader->Count() == 0) return InvalidArgument("LMDB '" + lmdb + "' is empty; no mean");

  const std::string context = "LMDB '" + lmdb + "'";
  Datum first, datum;
  std::vector<double> sum;
  for (int64_t n = 0; n < reader->Count(); ++n) {
    DT_RETURN_IF_ERROR(ParseDatum(reader->value(), reader->key(), &datum).WithContext(context));
    if (n == 0) {
      first = datum;
      sum.assign(DatumSize(first), 0.0);
    } else if (datum.channels() != first.channels() || datum.height() != first.height() ||
               datum.width() != first.width()) {
      return InvalidArgument(context + ": record '" + PrintableKey(reader->key()) + "' is " +
                             DatumShapeString(datum) + " but the first record is " +
                             DatumShapeString(first) + "; a mean needs equal shapes");
    }
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += DatumValue(datum, i);
    if ((n + 1) % 10000 == 0) DT_LOG(INFO) << "Processed " << (n + 1) << " files.";
    DT_RETURN_IF_ERROR(reader->Next());
  }

  const double count = static_cast<double>(reader->Count());
  BlobProto mean;
  mean.set_num(1);
  mean.set_channels(first.channels());
  mean.set_height(first.height());
  mean.set_width(first.width());
  for (double value : sum) mean.add_data(static_cast<float>(value / count));
  DT_LOG(INFO) << "Write to " << out_binaryproto;
  DT_RETURN_IF_ERROR(WriteBinaryProtoAtomically(out_binaryproto, mean));

  const int64_t plane = static_cast<int64_t>(first.height()) * first.width();
  DT_LOG(INFO) << "Number of channels: " << first.channels();
  for (int c = 0; c < first.channels(); ++c) {
    double channel_sum = 0;
    for (int64_t i = 0; i < plane; ++i) channel_sum += mean.data(static_cast<int>(c * plane + i));
    DT_LOG(INFO) << "mean_value channel [" << c << "]: " << channel_sum / plane;
  }
  return Status::Ok();
}

}  // namespace dtrain
