#include "layers/data_layer.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <string>

#include "core/logging.h"
#include "data/datum.h"
#include "data/lmdb_record_source.h"
#include "proto/net.pb.h"

namespace dtrain {

DataLayer::DataLayer(const LayerParameter& p, const LayerContext& c)
    : PrefetchingDataLayer(p, c), seed_(c.seed) {}

DataLayer::~DataLayer() { StopPrefetching(); }

void DataLayer::InterruptLoader() {
  // A prefetch thread waiting for a data server must not wait out the server timeout.
  if (served_) served_->Interrupt();
  PrefetchingDataLayer::InterruptLoader();
}

void DataLayer::SetTopShapes(const std::vector<int>& shape) {
  top_shapes_ = {{batch_size_, shape[0], shape[1], shape[2]}, {batch_size_}};
  DT_LOG(INFO) << "output data size: " << batch_size_ << "," << shape[0] << "," << shape[1] << ","
               << shape[2];
}

Status DataLayer::SetUpSource(const TensorVec& top) {
  const DataParameter& data = param_.data_param();
  if (data.source().empty()) return Error("data_param.source is not set");
  if (data.batch_size() == 0) return Error("data_param.batch_size must be positive");
  DT_ASSIGN_OR_RETURN(batch_size_, Dimension("data_param.batch_size", data.batch_size()));
  prefetch_depth_ = std::max(1, static_cast<int>(data.prefetch()));
  const TransformationParameter transform = WithLegacyDataFields(param_.transform_param(), data);
  // Encoded (JPEG/PNG) records decode in the file's own colour unless told otherwise.
  if (transform.force_color() && transform.force_gray()) {
    return Error("transform_param: cannot specify both force_color and force_gray");
  }
  color_ = ImageColor::kNative;
  if (transform.force_color() || data.force_encoded_color()) color_ = ImageColor::kColor;
  if (transform.force_gray()) color_ = ImageColor::kGray;
  transformer_ = std::make_unique<DataTransformer>(transform, phase_, DeriveSeed(seed_, 0));
  DT_RETURN_IF_ERROR(WithLayer(transformer_->Init()));
  records_.reset();
  served_.reset();
  if (IsDataServerUri(data.source())) return WithLayer(SetUpServed(data));
  return SetUpLmdb(data);
}

Status DataLayer::SetUpLmdb(const DataParameter& data) {
  std::error_code ec;
  const std::string unsupported_backend =
      "backend " + DataParameter::DB_Name(data.backend()) + " is not supported" +
      (data.has_backend() ? "" : " (Caffe's default when backend is unset)") +
      "; convert the data set to LMDB and set data_param { backend: LMDB }";
  if (!std::filesystem::exists(data.source(), ec)) {
    // Not an LMDB by its backend either: say both, not just that an LMDB is missing.
    if (data.backend() != DataParameter::LMDB) {
      return WithLayer(
          NotFound("source '" + data.source() + "' does not exist, and " + unsupported_backend));
    }
    return WithLayer(NotFound("LMDB '" + data.source() + "' does not exist"));
  }
  // Caffe's default backend is LEVELDB. An explicit LEVELDB is refused; an unset backend is taken
  // as LMDB when the source is an LMDB directory (holds data.mdb), since that is what was meant.
  const bool is_lmdb =
      std::filesystem::exists(std::filesystem::path(data.source()) / "data.mdb", ec);
  if (data.backend() != DataParameter::LMDB && (data.has_backend() || !is_lmdb)) {
    return Unsupported("layer '" + name() + "' (Data): " + unsupported_backend);
  }

  skip_ = 0;
  if (data.rand_skip() > 0) skip_ = rng_.Next() % data.rand_skip();
  // The same orders on every rank (the layer's seed), a new one every epoch.
  auto source =
      LmdbRecordSource::Open(data.source(), skip_, data.shuffle(), DeriveSeed(seed_, UINT64_MAX));
  if (!source.ok()) return WithLayer(source.status());
  const int64_t count = (*source)->RecordCount();
  records_ = std::move(source).value();
  if (count == 0) return Error("LMDB '" + data.source() + "' has no records");
  if (data.shuffle()) {
    DT_LOG(INFO) << "Shuffling data (a new order of the " << count << " records every epoch)";
  }
  DT_LOG(INFO) << "Opened lmdb " << data.source();
  if (skip_ > 0) DT_LOG(INFO) << "Skipping first " << skip_ << " data points.";
  return WithLayer(SetTopShapesFromFirstRecord());
}

Status DataLayer::SetTopShapesFromFirstRecord() {
  DT_RETURN_IF_ERROR(records_->ReadAt(0));
  DT_RETURN_IF_ERROR(ParseDatum(records_->value(), records_->key(), &datum_, color_)
                         .WithContext(records_->where()));
  DT_RETURN_IF_ERROR(transformer_->CheckFits(datum_));
  SetTopShapes(transformer_->OutputShape(datum_));
  return Status::Ok();
}

Status DataLayer::ShardChanged(bool started) {
  // Restarted from the first record, as after Setup; not started, it reads on from where it is.
  if (started) offset_ = 0;
  return Status::Ok();
}

// Sharded, the position saved is the start of the next round of shard_count records: the same
// on every shard (rank 0's snapshot resumes every rank), and each shard skips on to its own record.
std::string DataLayer::LoaderState() const {
  return std::to_string(RoundStart()) + "\n" + transformer_->rng().Serialize();
}

Status DataLayer::RestoreLoader(const std::string& state) {
  const size_t newline = state.find('\n');
  if (newline == std::string::npos) return CorruptState();
  const int64_t offset = ParsePosition(state.substr(0, newline));
  Rng rng;
  if (offset < 0 || !rng.Deserialize(state.substr(newline + 1))) return CorruptState();
  offset_ = offset;
  transformer_->rng() = rng;
  return Status::Ok();
}

Status DataLayer::LoadBatch(Batch* batch) {
  if (served_) return LoadServedBatch(batch);
  return PrefetchingDataLayer::LoadBatch(batch);
}

Status DataLayer::FillItem(int item, int64_t position, Batch* batch) {
  Status status = ParseDatum(records_->value(), records_->key(), &datum_, color_);
  if (!status.ok()) return status.WithContext(records_->where());
  if (item == 0) {
    // Each batch takes its shape from its first record, as in Caffe.
    channels_ = datum_.channels();
    height_ = datum_.height();
    width_ = datum_.width();
    const std::vector<int> shape = transformer_->OutputShape(datum_);
    batch->data.Reshape({batch_size_, shape[0], shape[1], shape[2]});
    batch->label.Reshape({batch_size_});
    item_size_ = batch->data.count(1);
  } else if (datum_.channels() != channels_ ||
             (!transformer_->resizes() &&
              (datum_.height() != height_ || datum_.width() != width_))) {
    // Resized images of any size make the same output (as in Intel Caffe); otherwise the
    // batch's first record sets the size.
    return DataLoss(records_->where_record() + " is " + DatumShapeString(datum_) +
                    " but this batch's first record is " + std::to_string(channels_) + "x" +
                    std::to_string(height_) + "x" + std::to_string(width_));
  }
  // The random crop and mirror of a record depend only on its position in the sequence, so
  // that N shards draw exactly what one reader of the whole sequence draws (and no two ranks
  // share a stream).
  transformer_->rng().Seed(DeriveSeed(seed_, static_cast<uint64_t>(position) + 1));
  status = transformer_->Transform(datum_, batch->data.mutable_data() + item * item_size_);
  if (!status.ok()) return status.WithContext(records_->where_record());
  batch->label.mutable_data()[item] = static_cast<float>(datum_.label());
  return Status::Ok();
}

LayerInputs DataLayer::Inputs(const LayerParameter& p) {
  const DataParameter& data = p.data_param();
  LayerInputs in;
  in.format = IsDataServerUri(data.source()) ? RecordsFormat::kDataServer : RecordsFormat::kLmdb;
  in.records = data.source();
  if (data.has_mean_file()) in.files.push_back(data.mean_file());
  return in;
}

void DataLayer::SetRecords(LayerParameter* p, const std::string& records) {
  p->mutable_data_param()->set_source(records);
}

}  // namespace dtrain
