#include "data/served_record_source.h"

#include "core/check.h"
#include "data/served_batches.h"

namespace dtrain {

StatusOr<std::unique_ptr<ServedRecordSource>> ServedRecordSource::Create(
    std::unique_ptr<DataServerClient> client, int batch_size, const std::string& reader) {
  if (client->welcome().shipping() != SHIP_RECORDS) {
    return InvalidArgument("data server " + client->uri() +
                           " ships float batches (Datums transformed by the server: "
                           "--ship=floats, the default of --solver for a Data layer), which " +
                           reader + " cannot read; start the server with --ship=records");
  }
  return std::unique_ptr<ServedRecordSource>(new ServedRecordSource(std::move(client), batch_size));
}

void ServedRecordSource::Interrupt() {
  interrupted_ = true;
  client_->Interrupt();
}

std::string_view ServedRecordSource::value() const {
  if (!held_) return {};
  return std::string_view(batch_.body)
      .substr(offsets_[item_], offsets_[item_ + 1] - offsets_[item_]);
}

Status ServedRecordSource::ReadAt(int64_t position) {
  DT_CHECK(position >= 0);
  // Position p is item i of batch k of rank p mod N: p = (k*b + i)*N + r (ServedPosition).
  const int64_t in_share = position / shard_count_;
  const BatchId id{static_cast<int>(position % shard_count_), shard_count_, in_share / batch_size_};
  // An interrupted client serves nothing more until it subscribes again.
  if (interrupted_.exchange(false)) subscribed_ = false;
  if (!held_ || !(held_id_ == id)) DT_RETURN_IF_ERROR(Fetch(id));
  item_ = static_cast<int>(in_share % batch_size_);
  key_ = "position " + std::to_string(position);
  return Status::Ok();
}

Status ServedRecordSource::Fetch(const BatchId& id) {
  held_ = false;
  if (!subscribed_ || !(next_ == id)) {
    DataServerSubscribe subscribe;
    subscribe.set_rank(id.rank);
    subscribe.set_world_size(id.world);
    subscribe.set_batch_size(static_cast<uint32_t>(batch_size_));
    subscribe.set_first_batch(id.index);
    subscribed_ = false;
    DT_RETURN_IF_ERROR(client_->Subscribe(subscribe));
    subscribed_ = true;
    next_ = id;
  }
  Status status = client_->Next(&batch_);
  if (status.ok()) status = IndexBatch(id);
  if (!status.ok()) {
    subscribed_ = false;  // the next read starts a clean subscription
    return status;
  }
  ++next_.index;
  held_ = true;
  held_id_ = id;
  return Status::Ok();
}

Status ServedRecordSource::IndexBatch(const BatchId& id) {
  const DataServerBatch& meta = batch_.meta;
  const int64_t first = ServedPosition(id.index, 0, batch_size_, id.rank, id.world);
  if (meta.first_position() != first) {
    return DataLoss(where() + " sent a batch starting at position " +
                    std::to_string(meta.first_position()) + " where position " +
                    std::to_string(first) + " was due");
  }
  if (meta.record_size_size() != batch_size_) {
    return DataLoss(where() + " sent " + std::to_string(meta.record_size_size()) +
                    " records for a batch of " + std::to_string(batch_size_));
  }
  offsets_.assign(1, 0);
  for (uint32_t size : meta.record_size()) offsets_.push_back(offsets_.back() + size);
  if (offsets_.back() != batch_.body.size()) {
    return DataLoss(where() + " sent a batch whose records add up to " +
                    std::to_string(offsets_.back()) + " bytes, not its " +
                    std::to_string(batch_.body.size()));
  }
  return Status::Ok();
}

}  // namespace dtrain
