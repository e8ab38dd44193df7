// DataLayer's data-server half: a Data layer whose source is "tcp://HOST:PORT" (data_layer.h).
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "core/logging.h"
#include "data/datum.h"
#include "data/shared_secret.h"
#include "layers/data_layer.h"

namespace dtrain {
namespace {

// "host pid", how the server's log names this process.
std::string ProcessName() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return std::string(host) + " pid " + std::to_string(getpid());
}

}  // namespace

Status DataLayer::SetUpServed(const DataParameter& data) {
  DataServerClientOptions options;
  options.uri = data.source();
  options.timeout_s = data.server_timeout();
  options.window = prefetch_depth_;
  options.name = ProcessName();
  if (data.has_server_auth_file()) {
    DT_ASSIGN_OR_RETURN(options.secret, ReadSharedSecret(data.server_auth_file()));
  }
  if (data.rand_skip() > 0) DT_LOG(WARNING) << "rand_skip does not apply to a data server source";
  DT_LOG(INFO) << "Waiting for data server " << data.source() << " (up to " << data.server_timeout()
               << " s)";
  DT_ASSIGN_OR_RETURN(served_, DataServerClient::Connect(options));
  const DataServerWelcome& welcome = served_->welcome();
  if (welcome.batch_size() != 0 && welcome.batch_size() != data.batch_size()) {
    return InvalidArgument("data server " + data.source() + " serves batches of " +
                           std::to_string(welcome.batch_size()) +
                           " records per rank; data_param.batch_size is " +
                           std::to_string(data.batch_size()));
  }
  std::vector<int> shape;
  if (welcome.shipping() == SHIP_RECORDS) {
    DT_RETURN_IF_ERROR(ParseDatum(welcome.first_record(), "first", &datum_, color_)
                           .WithContext("data server " + data.source()));
    DT_RETURN_IF_ERROR(transformer_->CheckFits(datum_));
    shape = transformer_->OutputShape(datum_);
  } else {
    if (welcome.item_shape_size() != 3) {
      return DataLoss("data server " + data.source() + " sent an item shape of " +
                      std::to_string(welcome.item_shape_size()) + " axes; expected C, H, W");
    }
    shape.assign(welcome.item_shape().begin(), welcome.item_shape().end());
    if (param_.has_transform_param()) {
      DT_LOG(INFO) << "layer '" << name() << "': the data server ships transformed batches; "
                   << "this layer's transform_param is not applied";
    }
  }
  DT_LOG(INFO) << "Data server " << data.source() << " serves " << welcome.description() << " ("
               << welcome.record_count() << " records, "
               << (welcome.shipping() == SHIP_RECORDS ? "records" : "float batches") << ")";
  SetTopShapes(shape);
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
  DT_RETURN_IF_ERROR(served_->welcome().shipping() == SHIP_RECORDS ? UnpackRecords(batch)
                                                                   : UnpackFloats(batch));
  offset_ = (index + 1) * round;
  batch->state = LoaderState();
  return Status::Ok();
}

Status DataLayer::UnpackRecords(Batch* batch) {
  const DataServerBatch& meta = received_.meta;
  if (meta.record_size_size() != batch_size_) {
    return DataLoss(served_->uri() + " sent " + std::to_string(meta.record_size_size()) +
                    " records for a batch of " + std::to_string(batch_size_));
  }
  batch->data.Reshape(top_shapes_[0]);
  batch->label.Reshape({batch_size_});
  const int64_t item_size = batch->data.count(1);
  float* data = batch->data.mutable_data();
  float* label = batch->label.mutable_data();
  std::string_view body = received_.body;
  for (int item = 0; item < batch_size_; ++item) {
    const uint32_t size = meta.record_size(item);
    if (size > body.size()) return DataLoss(served_->uri() + " sent a truncated batch");
    const int64_t position = meta.first_position() + int64_t{item} * shard_count_;
    const std::string key = "position " + std::to_string(position);
    DT_RETURN_IF_ERROR(
        ParseDatum(body.substr(0, size), key, &datum_, color_).WithContext(served_->uri()));
    body.remove_prefix(size);
    if (transformer_->OutputShape(datum_) !=
        std::vector<int>(top_shapes_[0].begin() + 1, top_shapes_[0].end())) {
      return DataLoss(served_->uri() + ": record at " + key + " is " + DatumShapeString(datum_) +
                      ", unlike the first record");
    }
    // Seeded by the record's position, exactly as an LMDB reader seeds it (data_layer.cc).
    transformer_->rng().Seed(DeriveSeed(seed_, static_cast<uint64_t>(position) + 1));
    DT_RETURN_IF_ERROR(transformer_->Transform(datum_, data + item * item_size)
                           .WithContext(served_->uri() + ": record at " + key));
    label[item] = static_cast<float>(datum_.label());
  }
  if (!body.empty()) return DataLoss(served_->uri() + " sent bytes past the batch's records");
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
