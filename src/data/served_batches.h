// BatchMaker: what a data server serves, one batch at a time (docs/data-server.md).
//
// It holds an LMDB open for the server's life (LmdbReader: one read transaction, so every value
// stays mapped and readable from any thread) and an index of its records in key order. A client
// subscribes as rank r of N with a per-rank batch b; its batch k holds the records at sequence
// positions (k*b + i)*N + r, i = 0..b-1, the sequence wrapping round the records in key order.
// That is exactly the strided share a Data layer reads with SetShard(r, N), so training from a
// data server matches training from the LMDB itself, and N ranks together read every record of an
// epoch once. With `shuffle`, position p holds the record EpochOrder gives it: every epoch in a
// new order drawn from the seed, still split disjointly among the ranks. The assignment is a pure
// function of (r, N, b, k): a reconnecting or restarted client asks for the batch it needs and gets
// the same records.
//
// SHIP_RECORDS batches carry the stored values untouched, whatever they hold (Datum records for
// Data and BoxData, AnnotatedDatum records for AnnotatedData): the server never parses them, the
// layers do (data/served_record_source.h). SHIP_FLOATS batches are parsed as Datums and
// transformed here with the client's seed, record by record as DataLayer does (the crop and mirror
// of a record are drawn from DeriveSeed(seed, position + 1)).
//
// Thread-safe: MakeBatch is const; each caller brings its own DataTransformer (NewTransformer).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "data/data_server_frame.h"
#include "data/epoch_order.h"
#include "data/image_decode.h"
#include "data/lmdb_db.h"
#include "data/transformer.h"
#include "proto/data_server.pb.h"

namespace dtrain {

// What to serve and how.
struct ServedData {
  std::string source;  // the LMDB directory
  DataShipping shipping = SHIP_RECORDS;
  uint32_t batch_size = 0;            // the per-rank batch clients must ask for; 0: any
  TransformationParameter transform;  // SHIP_FLOATS: applied to every record
  Phase phase = TRAIN;                // SHIP_FLOATS: TRAIN crops at random, TEST centres
  bool force_encoded_color = false;   // SHIP_FLOATS: data_param's, for encoded records
  bool shuffle = false;               // a new record order every epoch (epoch_order.h)
  uint64_t shuffle_seed = 1;
};

// The sequence position of item `item` of batch `batch` for rank `rank` of `world_size`.
inline int64_t ServedPosition(int64_t batch, int item, uint32_t batch_size, int rank,
                              int world_size) {
  return (batch * batch_size + item) * world_size + rank;
}

// A batch ready to send: the frame header, its meta message and the body, kept apart so they
// can be written with one gather write and no copy.
struct OutgoingFrame {
  FrameHeaderBytes header{};
  std::string meta;
  std::string body;
  size_t size() const { return header.size() + meta.size() + body.size(); }
};
// Builds an OutgoingFrame from a message and a body.
OutgoingFrame MakeOutgoingFrame(FrameType type, const google::protobuf::MessageLite& meta,
                                std::string body = {});

class BatchMaker {
 public:
  // Opens the LMDB; for SHIP_FLOATS, checks its first record as a Datum and the transform.
  static StatusOr<std::unique_ptr<BatchMaker>> Open(const ServedData& data);

  const ServedData& data() const { return data_; }
  int64_t record_count() const { return static_cast<int64_t>(values_.size()); }
  // The WELCOME message every client gets.
  const DataServerWelcome& welcome() const { return welcome_; }

  // Checks a client's subscription: 0 <= rank < world_size, a positive batch (the server's if it
  // has one) whose frames fit kServerFrameLimits, 0 <= first_batch with positions that cannot
  // overflow. The error is sent to the client and logged.
  Status CheckSubscription(const DataServerSubscribe& subscribe) const;

  // A transformer for SHIP_FLOATS batches (null for SHIP_RECORDS); one per concurrent caller.
  std::unique_ptr<DataTransformer> NewTransformer() const;

  // Batch `index` of the subscribed sequence as a BATCH frame. A record that does not parse or
  // fit the transform is an error naming its key.
  StatusOr<OutgoingFrame> MakeBatch(const DataServerSubscribe& subscribe, int64_t index,
                                    DataTransformer* transformer) const;

 private:
  BatchMaker() = default;
  // How SHIP_FLOATS decodes encoded records: transform_param's force_color / force_gray, and
  // data_param's force_encoded_color, as a Data layer does.
  ImageColor Color() const;
  Status FillFloats(const DataServerSubscribe& subscribe, int64_t index,
                    DataTransformer* transformer, OutgoingFrame* frame) const;

  ServedData data_;
  std::unique_ptr<LmdbReader> reader_;  // keeps the values below mapped
  std::unique_ptr<EpochOrder> order_;
  std::vector<std::string_view> keys_;  // in key order
  std::vector<std::string_view> values_;
  std::vector<int> item_shape_;  // SHIP_FLOATS: C, H, W after the transform
  uint64_t largest_record_ = 0;  // bytes
  DataServerWelcome welcome_;
};

}  // namespace dtrain
