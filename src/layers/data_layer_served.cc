// DataLayer's data-server half: a Data layer whose source is "tcp://HOST:PORT" (data_layer.h).
#include <algorithm>
#include <cstring>

#include "core/logging.h"
#include "data/data_param_server.h"
#include "data/served_record_source.h"
#include "layers/data_layer.h"

namespace dtrain {

Status DataLayer::SetUpServed(const DataParameter& data) {
  DT_ASSIGN_OR_RETURN(std::unique_ptr<DataServerClient> client,
                      ConnectDataParamServer(data, prefetch_depth_));
  const DataServerWelcome& welcome = client->welcome();
  if (welcome.shipping() == SHIP_RECORDS) {
    // Records are read and transformed as an LMDB's are.
    DT_ASSIGN_OR_RETURN(records_,
                        ServedRecordSource::Create(std::move(client), batch_size_, type()));
    return SetTopShapesFromFirstRecord();
  }
  if (welcome.item_shape_size() != 3) {
    return DataLoss("data server " + data.source() + " sent an item shape of " +
                    std::to_string(welcome.item_shape_size()) + " axes; expected C, H, W");
  }
  if (param_.has_transform_param()) {
    DT_LOG(INFO) << "layer '" << name() << "': the data server ships transformed batches; "
                 << "this layer's transform_param is not applied";
  }
  SetTopShapes(std::vector<int>(welcome.item_shape().begin(), welcome.item_shape().end()));
  served_ = std::move(client);
  return Status::Ok();
}

Status DataLayer::LoadServedBatch(Batch* batch) {
  const int64_t round = int64_t{batch_size_} * shard_count_;
  if (!subscribed_) {
    // offset_ is where the last batch handed out ended: a whole number of rounds unless the
    // position came from a run with another batch size or rank count.
    if (offset_ % round != 0) {
      return InvalidArgument("cannot resume a data-server stream at record position " +
                             std::to_string(offset_) + ": not a multiple of " +
                             std::to_string(batch_size_) + " records x " +
                             std::to_string(shard_count_) + " ranks");
    }
    DataServerSubscribe subscribe;
    subscribe.set_rank(shard_index_);
    subscribe.set_world_size(shard_count_);
    subscribe.set_batch_size(static_cast<uint32_t>(batch_size_));
    subscribe.set_first_batch(offset_ / round);
    subscribe.set_seed(seed_);
    DT_RETURN_IF_ERROR(served_->Subscribe(subscribe));
    subscribed_ = true;
  }
  DT_RETURN_IF_ERROR(served_->Next(&received_));
  const int64_t index = received_.meta.index();
  DT_RETURN_IF_ERROR(UnpackFloats(batch));
  offset_ = (index + 1) * round;
  batch->state = LoaderState();
  return Status::Ok();
}

Status DataLayer::UnpackFloats(Batch* batch) {
  const DataServerBatch& meta = received_.meta;
  if (!std::equal(meta.shape().begin(), meta.shape().end(), top_shapes_[0].begin(),
                  top_shapes_[0].end())) {
    return DataLoss(served_->uri() + " sent a batch of another shape than announced");
  }
  batch->data.Reshape(top_shapes_[0]);
  batch->label.Reshape({batch_size_});
  const size_t data_bytes = static_cast<size_t>(batch->data.count()) * sizeof(float);
  const size_t label_bytes = static_cast<size_t>(batch_size_) * sizeof(float);
  if (received_.body.size() != data_bytes + label_bytes) {
    return DataLoss(served_->uri() + " sent " + std::to_string(received_.body.size()) +
                    " bytes for a batch of " + std::to_string(data_bytes + label_bytes));
  }
  std::memcpy(batch->data.mutable_data(), received_.body.data(), data_bytes);
  std::memcpy(batch->label.mutable_data(), received_.body.data() + data_bytes, label_bytes);
  return Status::Ok();
}

}  // namespace dtrain
