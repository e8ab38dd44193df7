#include "layers/data_layer.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <string>

#include "core/logging.h"
#include "data/datum.h"

namespace dtrain {

DataLayer::DataLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c), seed_(c.seed) {}

DataLayer::~DataLayer() { StopPrefetching(); }

void DataLayer::StopPrefetching() {
  if (!prefetcher_) return;
  // A prefetch thread waiting for a data server must not wait out the server timeout.
  if (served_) served_->Interrupt();
  prefetcher_.reset();  // joins the thread: the reader, client and offsets are ours again
}

Status DataLayer::WithLayer(const Status& status) const {
  return status.WithContext("layer '" + name() + "' (Data)");
}

Status DataLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  StopPrefetching();  // a repeated Setup starts over
  rewind_status_ = Status::Ok();
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
  if (IsDataServerUri(data.source())) {
    if (data.shuffle()) {
      return Error(
          "data_param.shuffle with a data server's source: the server orders the "
          "records (dtrain data-server --shuffle)");
    }
    return WithLayer(SetUpServed(data));
  }
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

  auto reader = LmdbReader::Open(data.source());
  if (!reader.ok()) return WithLayer(reader.status());
  reader_ = std::move(reader).value();
  if (reader_->Count() == 0) return Error("LMDB '" + data.source() + "' has no records");
  order_.reset();
  if (data.shuffle()) {
    // The same orders on every rank (the layer's seed), a new one every epoch.
    order_ = std::make_unique<EpochOrder>(reader_->Count(), true, DeriveSeed(seed_, UINT64_MAX));
    DT_LOG(INFO) << "Shuffling data (a new order of the " << reader_->Count()
                 << " records every epoch)";
  }
  DT_LOG(INFO) << "Opened lmdb " << data.source();
  if (data.rand_skip() > 0) {
    skip_ = rng_.Next() % data.rand_skip();
    DT_LOG(INFO) << "Skipping first " << skip_ << " data points.";
  }
  DT_RETURN_IF_ERROR(WithLayer(Rewind()));

  // The output shape, from the first record this layer reads.
  DT_RETURN_IF_ERROR(WithLayer(ParseDatum(reader_->value(), reader_->key(), &datum_, color_)
                                   .WithContext("LMDB '" + data.source() + "'")));
  DT_RETURN_IF_ERROR(WithLayer(transformer_->CheckFits(datum_)));
  const std::vector<int> shape = transformer_->OutputShape(datum_);
  top_shape_ = {batch_size_, shape[0], shape[1], shape[2]};
  DT_LOG(INFO) << "output data size: " << top_shape_[0] << "," << top_shape_[1] << ","
               << top_shape_[2] << "," << top_shape_[3];
  return Status::Ok();
}

Status DataLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  top[0]->Reshape(top_shape_);
  if (top.size() > 1) top[1]->Reshape({batch_size_});
  return Status::Ok();
}

void DataLayer::SetShard(int index, int count) {
  DT_CHECK(count >= 1 && index >= 0 && index < count);
  if (prefetcher_) {
    StopPrefetching();
    rewind_status_ = Rewind();
  }
  shard_index_ = index;
  shard_count_ = count;
}

Status DataLayer::PositionCursor() {
  return reader_->SeekToRecord(order_->RecordAt(offset_ + skip_));
}

Status DataLayer::Rewind() {
  offset_ = 0;
  if (!reader_) return Status::Ok();  // a data server: the position is all there is
  if (order_) return PositionCursor();
  DT_RETURN_IF_ERROR(reader_->SeekToFirst());
  for (uint32_t i = 0; i < skip_; ++i) DT_RETURN_IF_ERROR(reader_->Next());
  return Status::Ok();
}

Status DataLayer::SeekTo(int64_t offset) {
  DT_RETURN_IF_ERROR(Rewind());
  if (!reader_ || order_) {
    offset_ = offset;
    return reader_ ? PositionCursor() : Status::Ok();
  }
  // The sequence wraps every Count() records, so only the remainder moves the cursor.
  for (int64_t i = 0; i < offset % reader_->Count(); ++i) DT_RETURN_IF_ERROR(reader_->Next());
  offset_ = offset;
  return Status::Ok();
}

// Sharded, the position saved is the start of the next round of shard_count records: the same
// on every shard (rank 0's snapshot resumes every rank), and each shard skips on to its own record.
std::string DataLayer::LoaderState() const {
  const int64_t round_start = (offset_ + shard_count_ - 1) / shard_count_ * shard_count_;
  return std::to_string(round_start) + "\n" + transformer_->rng().Serialize();
}

std::string DataLayer::SaveState() const {
  if (!transformer_) return std::string();  // not set up: nothing read yet
  return prefetcher_ ? consumed_state_ : LoaderState();
}

Status DataLayer::RestoreState(const std::string& state) {
  if (!transformer_) return Error("cannot restore the data position before Setup");
  const size_t newline = state.find('\n');
  int64_t offset = -1;
  try {
    size_t used = 0;
    offset = std::stoll(state.substr(0, newline), &used);
    if (used != newline) offset = -1;
  } catch (const std::exception&) {
    offset = -1;
  }
  Rng rng;
  if (newline == std::string::npos || offset < 0 || !rng.Deserialize(state.substr(newline + 1))) {
    return DataLoss("corrupt data position for layer '" + name() + "'");
  }
  StopPrefetching();  // drop the batches read ahead
  DT_RETURN_IF_ERROR(WithLayer(SeekTo(offset)));
  transformer_->rng() = rng;
  rewind_status_ = Status::Ok();
  return Status::Ok();
}

Status DataLayer::Advance() {
  ++offset_;
  // Shuffled, the cursor moves only to records this shard reads (LoadBatch), not to each one it
  // skips.
  if (order_) return Status::Ok();
  bool wrapped = false;
  DT_RETURN_IF_ERROR(reader_->Next(&wrapped));
  if (wrapped) DT_LOG(INFO) << "Restarting data prefetching from start.";
  return Status::Ok();
}

Status DataLayer::LoadBatch(Batch* batch) {
  if (served_) return LoadServedBatch(batch);
  // Error context, built only when something fails.
  auto where = [this] { return "LMDB '" + reader_->path() + "'"; };
  int64_t item_size = 0;
  float* data = nullptr;
  float* label = nullptr;
  int channels = 0, height = 0, width = 0;  // of the batch's first record
  for (int item = 0; item < batch_size_; ++item) {
    while (offset_ % shard_count_ != shard_index_) DT_RETURN_IF_ERROR(Advance());
    if (order_) DT_RETURN_IF_ERROR(PositionCursor());
    Status status = ParseDatum(reader_->value(), reader_->key(), &datum_, color_);
    if (!status.ok()) return status.WithContext(where());
    if (item == 0) {
      // Each batch takes its shape from its first record, as in Caffe.
      channels = datum_.channels();
      height = datum_.height();
      width = datum_.width();
      const std::vector<int> shape = transformer_->OutputShape(datum_);
      batch->data.Reshape({batch_size_, shape[0], shape[1], shape[2]});
      batch->label.Reshape({batch_size_});
      item_size = batch->data.count(1);
      data = batch->data.mutable_data();
      label = batch->label.mutable_data();
    } else if (datum_.channels() != channels ||
               (!transformer_->resizes() &&
                (datum_.height() != height || datum_.width() != width))) {
      // Resized images of any size make the same output (as in Intel Caffe); otherwise the
      // batch's first record sets the size.
      return DataLoss(where() + ": record '" + PrintableKey(reader_->key()) + "' is " +
                      DatumShapeString(datum_) + " but this batch's first record is " +
                      std::to_string(channels) + "x" + std::to_string(height) + "x" +
                      std::to_string(width));
    }
    // The random crop and mirror of a record depend only on its position in the sequence, so
    // that N shards draw exactly what one reader of the whole sequence draws (and no two ranks
    // share a stream).
    transformer_->rng().Seed(DeriveSeed(seed_, static_cast<uint64_t>(offset_) + 1));
    status = transformer_->Transform(datum_, data + item * item_size);
    if (!status.ok()) {
      return status.WithContext(where() + ": record '" + PrintableKey(reader_->key()) + "'");
    }
    label[item] = static_cast<float>(datum_.label());
    DT_RETURN_IF_ERROR(Advance());
  }
  batch->state = LoaderState();
  return Status::Ok();
}

Status DataLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  DT_RETURN_IF_ERROR(WithLayer(rewind_status_));
  if (!prefetcher_) {
    consumed_state_ = LoaderState();
    subscribed_ = false;  // a served stream restarts at offset_
    prefetcher_ = std::make_unique<BatchPrefetcher>(
        prefetch_depth_, [this](Batch* batch) { return WithLayer(LoadBatch(batch)); });
  }
  DT_ASSIGN_OR_RETURN(Batch * batch, prefetcher_->Take());
  CopyBatchTo(*batch, top[0], top.size() > 1 ? top[1] : nullptr);
  consumed_state_ = batch->state;
  prefetcher_->Release(batch);
  return Status::Ok();
}

}  // namespace dtrain
