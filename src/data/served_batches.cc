#include "data/served_batches.h"

#include <algorithm>
#include <cstring>

#include "data/datum.h"

namespace dtrain {

OutgoingFrame MakeOutgoingFrame(FrameType type, const google::protobuf::MessageLite& meta,
                                std::string body) {
  OutgoingFrame frame;
  frame.meta = meta.SerializeAsString();
  frame.body = std::move(body);
  frame.header = EncodeFrameHeader(
      {type, static_cast<uint32_t>(frame.meta.size()), static_cast<uint32_t>(frame.body.size())});
  return frame;
}

StatusOr<std::unique_ptr<BatchMaker>> BatchMaker::Open(const ServedData& data) {
  std::unique_ptr<BatchMaker> maker(new BatchMaker());
  maker->data_ = data;
  DT_ASSIGN_OR_RETURN(maker->reader_, LmdbReader::Open(data.source));
  LmdbReader& reader = *maker->reader_;
  if (reader.Count() == 0) return DataLoss("LMDB '" + data.source + "' has no records");
  // Index every record once; the views stay valid while the reader's transaction is open.
  DT_RETURN_IF_ERROR(reader.SeekToFirst());
  maker->keys_.reserve(reader.Count());
  maker->values_.reserve(reader.Count());
  for (int64_t i = 0; i < reader.Count(); ++i) {
    maker->keys_.push_back(reader.key());
    maker->values_.push_back(reader.value());
    maker->largest_record_ = std::max<uint64_t>(maker->largest_record_, reader.value().size());
    DT_RETURN_IF_ERROR(reader.Next());
  }

  maker->order_ = std::make_unique<EpochOrder>(reader.Count(), data.shuffle, data.shuffle_seed);
  DataServerWelcome& welcome = maker->welcome_;
  welcome.set_shipping(data.shipping);
  welcome.set_record_count(reader.Count());
  welcome.set_batch_size(data.batch_size);
  welcome.set_description(data.source);
  if (data.shipping == SHIP_RECORDS) {
    // Shipped untouched, whatever they hold (Datum, AnnotatedDatum): the layers parse them.
    welcome.set_first_record(std::string(maker->values_[0]));
  } else {
    Datum first;
    DT_RETURN_IF_ERROR(ParseDatum(maker->values_[0], maker->keys_[0], &first, maker->Color())
                           .WithContext("LMDB '" + data.source + "'"));
    std::unique_ptr<DataTransformer> transformer = maker->NewTransformer();
    DT_RETURN_IF_ERROR(transformer->Init().WithContext("the served transform"));
    DT_RETURN_IF_ERROR(transformer->CheckFits(first).WithContext("LMDB '" + data.source + "'"));
    maker->item_shape_ = transformer->OutputShape(first);
    for (int dim : maker->item_shape_) welcome.add_item_shape(dim);
  }
  return maker;
}

Status BatchMaker::CheckSubscription(const DataServerSubscribe& s) const {
  if (s.world_size() < 1 || s.rank() < 0 || s.rank() >= s.world_size()) {
    return InvalidArgument("rank " + std::to_string(s.rank()) + " of " +
                           std::to_string(s.world_size()) + " is not a valid rank");
  }
  if (s.batch_size() == 0) return InvalidArgument("batch_size must be positive");
  if (data_.batch_size != 0 && s.batch_size() != data_.batch_size) {
    return InvalidArgument("this server serves batches of " + std::to_string(data_.batch_size) +
                           " records per rank; the client asks for " +
                           std::to_string(s.batch_size()) + " (data_param.batch_size)");
  }
  if (s.first_batch() < 0) return InvalidArgument("first_batch must not be negative");
  // Every batch must fit a frame (what a client accepts), and positions must not overflow.
  const uint64_t item_bytes =
      data_.shipping == SHIP_FLOATS
          ? (uint64_t{1} + uint64_t(item_shape_[0]) * item_shape_[1] * item_shape_[2]) *
                sizeof(float)
          : largest_record_;
  if (uint64_t{s.batch_size()} * item_bytes > kServerFrameLimits.max_body) {
    return InvalidArgument("a batch of " + std::to_string(s.batch_size()) +
                           " records would exceed " +
                           std::to_string(kServerFrameLimits.max_body >> 20) + " MiB");
  }
  if (s.first_batch() > (int64_t{1} << 62) / (int64_t{s.batch_size()} * s.world_size()) - 1) {
    return InvalidArgument("first_batch " + std::to_string(s.first_batch()) + " is out of range");
  }
  return Status::Ok();
}

ImageColor BatchMaker::Color() const {
  if (data_.transform.force_gray()) return ImageColor::kGray;
  if (data_.transform.force_color() || data_.force_encoded_color) return ImageColor::kColor;
  return ImageColor::kNative;
}

std::unique_ptr<DataTransformer> BatchMaker::NewTransformer() const {
  if (data_.shipping != SHIP_FLOATS) return nullptr;
  return std::make_unique<DataTransformer>(data_.transform, data_.phase, 0);
}

StatusOr<OutgoingFrame> BatchMaker::MakeBatch(const DataServerSubscribe& s, int64_t index,
                                              DataTransformer* transformer) const {
  DataServerBatch meta;
  meta.set_index(index);
  meta.set_first_position(ServedPosition(index, 0, s.batch_size(), s.rank(), s.world_size()));
  OutgoingFrame frame;
  if (data_.shipping == SHIP_FLOATS) {
    DT_RETURN_IF_ERROR(FillFloats(s, index, transformer, &frame));
    meta.add_shape(static_cast<int>(s.batch_size()));
    for (int dim : item_shape_) meta.add_shape(dim);
  } else {
    size_t bytes = 0;
    for (uint32_t i = 0; i < s.batch_size(); ++i) {
      const int64_t position = ServedPosition(index, i, s.batch_size(), s.rank(), s.world_size());
      bytes += values_[order_->RecordAt(position)].size();
    }
    frame.body.reserve(bytes);
    for (uint32_t i = 0; i < s.batch_size(); ++i) {
      const int64_t position = ServedPosition(index, i, s.batch_size(), s.rank(), s.world_size());
      const std::string_view value = values_[order_->RecordAt(position)];
      meta.add_record_size(static_cast<uint32_t>(value.size()));
      frame.body.append(value);
    }
  }
  frame.meta = meta.SerializeAsString();
  frame.header = EncodeFrameHeader({FrameType::kBatch, static_cast<uint32_t>(frame.meta.size()),
                                    static_cast<uint32_t>(frame.body.size())});
  return frame;
}

Status BatchMaker::FillFloats(const DataServerSubscribe& s, int64_t index,
                              DataTransformer* transformer, OutgoingFrame* frame) const {
  const int64_t item_size = int64_t{item_shape_[0]} * item_shape_[1] * item_shape_[2];
  const int64_t batch = s.batch_size();
  frame->body.resize(static_cast<size_t>((batch * item_size + batch) * sizeof(float)));
  // std::string storage is suitably aligned for float.
  float* data = reinterpret_cast<float*>(frame->body.data());
  float* labels = data + batch * item_size;
  Datum datum;
  for (int64_t i = 0; i < batch; ++i) {
    const int64_t position =
        ServedPosition(index, static_cast<int>(i), s.batch_size(), s.rank(), s.world_size());
    const int64_t record = order_->RecordAt(position);
    auto where = [&] { return "LMDB '" + data_.source + "'"; };  // built only on errors
    Status status = ParseDatum(values_[record], keys_[record], &datum, Color());
    if (!status.ok()) return status.WithContext(where());
    if (transformer->OutputShape(datum) != item_shape_) {
      return DataLoss(where() + ": record '" + PrintableKey(keys_[record]) + "' is " +
                      DatumShapeString(datum) + ", unlike the first record");
    }
    transformer->rng().Seed(DeriveSeed(s.seed(), static_cast<uint64_t>(position) + 1));
    status = transformer->Transform(datum, data + i * item_size);
    if (!status.ok()) {
      return status.WithContext(where() + ": record '" + PrintableKey(keys_[record]) + "'");
    }
    labels[i] = static_cast<float>(datum.label());
  }
  return Status::Ok();
}

}  // namespace dtrain
