#include "layers/prefetching_data_layer.h"

#include <algorithm>
#include <cstdint>
#include <exception>

#include "core/check.h"
#include "core/logging.h"
#include "core/rng.h"
#include "data/data_param_server.h"
#include "data/lmdb_record_source.h"
#include "data/served_record_source.h"
#include "proto/net.pb.h"

namespace dtrain {

PrefetchingDataLayer::~PrefetchingDataLayer() {
  // A subclass stops the thread in its own destructor (it uses the subclass's members).
  DT_CHECK(!prefetcher_);
}

Status PrefetchingDataLayer::WithLayer(const Status& status) const {
  return status.WithContext("layer '" + name() + "' (" + type() + ")");
}

Status PrefetchingDataLayer::CorruptState() const {
  return DataLoss("corrupt data position for layer '" + name() + "'");
}

void PrefetchingDataLayer::InterruptLoader() {
  if (RecordSource* records = source()) records->Interrupt();
}

void PrefetchingDataLayer::StopPrefetching() {
  if (!prefetcher_) return;
  InterruptLoader();
  prefetcher_.reset();  // joins the thread: the source and the position are ours again
}

Status PrefetchingDataLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  StopPrefetching();  // a repeated Setup starts over
  pending_ = Status::Ok();
  offset_ = 0;
  set_up_ = false;
  DT_RETURN_IF_ERROR(SetUpSource(top));
  if (RecordSource* records = source()) records->ExpectShard(shard_index_, shard_count_);
  set_up_ = true;
  consumed_state_ = LoaderState();
  return Status::Ok();
}

Status PrefetchingDataLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  for (size_t t = 0; t < top.size() && t < top_shapes_.size(); ++t) top[t]->Reshape(top_shapes_[t]);
  return Status::Ok();
}

void PrefetchingDataLayer::SetShard(int index, int count) {
  DT_CHECK(count >= 1 && index >= 0 && index < count);
  const bool started = prefetcher_ != nullptr;
  StopPrefetching();
  shard_index_ = index;
  shard_count_ = count;
  if (!set_up_) return;
  if (RecordSource* records = source()) records->ExpectShard(index, count);
  pending_ = ShardChanged(started);
  if (pending_.ok()) consumed_state_ = LoaderState();
}

Status PrefetchingDataLayer::ShardChanged(bool started) { return RestoreLoader(consumed_state_); }

std::string PrefetchingDataLayer::SaveState() const {
  if (!set_up_) return std::string();  // not set up: nothing read yet
  return prefetcher_ ? consumed_state_ : LoaderState();
}

Status PrefetchingDataLayer::RestoreState(const std::string& state) {
  if (!set_up_) return Error("cannot restore the data position before Setup");
  StopPrefetching();  // drop the batches read ahead
  DT_RETURN_IF_ERROR(RestoreLoader(state));
  pending_ = Status::Ok();
  consumed_state_ = LoaderState();
  return Status::Ok();
}

int64_t PrefetchingDataLayer::NextPosition() {
  offset_ = PeekPosition();
  return offset_++;
}

int64_t PrefetchingDataLayer::PeekPosition() const {
  int64_t position = offset_;
  while (position % shard_count_ != shard_index_) ++position;
  return position;
}

int64_t PrefetchingDataLayer::RoundStart() const {
  return (offset_ + shard_count_ - 1) / shard_count_ * shard_count_;
}

int64_t PrefetchingDataLayer::ParsePosition(const std::string& text) {
  try {
    size_t used = 0;
    const int64_t position = std::stoll(text, &used);
    return used == text.size() && position >= 0 ? position : -1;
  } catch (const std::exception&) {
    return -1;
  }
}

std::string PrefetchingDataLayer::LoaderState() const { return std::to_string(RoundStart()); }

Status PrefetchingDataLayer::RestoreLoader(const std::string& state) {
  const int64_t position = ParsePosition(state);
  if (position < 0) return CorruptState();
  offset_ = position;
  return Status::Ok();
}

StatusOr<std::unique_ptr<StoredRecordSource>> PrefetchingDataLayer::OpenDataParamRecords(
    uint64_t seed) {
  const DataParameter& data = param_.data_param();
  if (data.source().empty()) return Error("data_param.source is not set");
  const bool served = IsDataServerUri(data.source());
  // A served LMDB is the server's business, whatever the backend says.
  if (!served && data.has_backend() && data.backend() != DataParameter::LMDB) {
    return Error("data_param.backend " + DataParameter::DB_Name(data.backend()) +
                 " is not supported; convert the data set to LMDB");
  }
  if (data.batch_size() == 0) return Error("data_param.batch_size must be positive");
  DT_ASSIGN_OR_RETURN(batch_size_, Dimension("data_param.batch_size", data.batch_size()));
  prefetch_depth_ = std::max(1, static_cast<int>(data.prefetch()));
  if (served) {
    auto client = ConnectDataParamServer(data, prefetch_depth_);
    if (!client.ok()) return WithLayer(client.status());
    auto records = ServedRecordSource::Create(std::move(client).value(), batch_size_, type());
    if (!records.ok()) return WithLayer(records.status());
    return std::unique_ptr<StoredRecordSource>(std::move(records).value());
  }
  Rng skip_rng(DeriveSeed(seed, 0));
  const uint32_t skip = data.rand_skip() > 0 ? skip_rng.Next() % data.rand_skip() : 0;
  auto lmdb =
      LmdbRecordSource::Open(data.source(), skip, data.shuffle(), DeriveSeed(seed, UINT64_MAX));
  if (!lmdb.ok()) return WithLayer(lmdb.status());
  if ((*lmdb)->RecordCount() == 0) return Error("LMDB '" + data.source() + "' has no records");
  DT_LOG(INFO) << "Opened lmdb " << data.source();
  return std::unique_ptr<StoredRecordSource>(std::move(lmdb).value());
}

Status PrefetchingDataLayer::LoadBatch(Batch* batch) {
  RecordSource* records = source();
  DT_CHECK(records);  // a subclass without a source overrides LoadBatch
  for (int item = 0; item < batch_size_; ++item) {
    const int64_t position = NextPosition();
    DT_RETURN_IF_ERROR(records->ReadAt(position));
    DT_RETURN_IF_ERROR(FillItem(item, position, batch));
  }
  batch->state = LoaderState();
  return Status::Ok();
}

Status PrefetchingDataLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  DT_RETURN_IF_ERROR(pending_);
  if (!prefetcher_) {
    consumed_state_ = LoaderState();
    PrefetchStarting();
    prefetcher_ = std::make_unique<BatchPrefetcher>(
        prefetch_depth_, [this](Batch* batch) { return WithLayer(LoadBatch(batch)); });
  }
  DT_ASSIGN_OR_RETURN(Batch * batch, prefetcher_->Take());
  CopyBatchTo(*batch, top[0], top.size() > 1 ? top[1] : nullptr);
  for (size_t t = 2; t < top.size() && t - 2 < batch->more.size(); ++t) {
    CopyTensor(batch->more[t - 2], top[t]);
  }
  consumed_state_ = batch->state;
  BatchConsumed(*batch);
  prefetcher_->Release(batch);
  return Status::Ok();
}

}  // namespace dtrain
