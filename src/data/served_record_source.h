// ServedRecordSource: the records a data server ships untouched (`dtrain data-server
// --ship=records`) as a StoredRecordSource, so that Data, AnnotatedData and BoxData read a
// tcp:// source exactly as they read the LMDB it serves.
//
// The server's rank r of N with per-rank batch b gets batch k holding the records at positions
// (k*b + i)*N + r, i = 0..b-1 (data/served_batches.h): shard r of N's positions, in order. So the
// source streams one shard's share, N being ExpectShard's count: ReadAt(p) takes the record from
// the batch it holds or, at the end of that batch, from the next batch of its subscription. Any
// other position (an earlier one after a restore, one further on, another shard's, as a layer's
// first record at setup) subscribes afresh as rank p mod N from the batch that holds p, and the
// stream goes on from there. A subscription opens a new connection (DataServerClient), so only
// setup, a restore, a new shard or an interruption cost one; within a subscription a lost
// connection is resumed by the client. The sequence is the server's (key order, or its
// --shuffle); a layer's rand_skip and shuffle do not apply.
//
// key() is "position P" (the server ships no keys), where() "data server tcp://HOST:PORT". Errors:
// the client's (a server gone for longer than data_param.server_timeout, a refusal), or a batch
// whose records do not add up (DataLoss naming the server). One thread at a time, except
// Interrupt.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "data/data_server_client.h"
#include "data/stored_record_source.h"

namespace dtrain {

class ServedRecordSource : public StoredRecordSource {
 public:
  // Takes a connected client; `batch_size` is the per-rank batch it subscribes with. A server
  // shipping float batches is refused, naming `reader` (the layer type) and --ship=records.
  static StatusOr<std::unique_ptr<ServedRecordSource>> Create(
      std::unique_ptr<DataServerClient> client, int batch_size, const std::string& reader);

  int64_t RecordCount() const override { return client_->welcome().record_count(); }
  Status ReadAt(int64_t position) override;
  void ExpectShard(int index, int count) override { shard_count_ = count; }
  void Interrupt() override;

  std::string_view key() const override { return key_; }
  std::string_view value() const override;
  std::string where() const override { return "data server " + client_->uri(); }
  std::string where_record() const override { return where() + ": record '" + key_ + "'"; }

 private:
  // A batch of the server's assignment: batch `index` of rank `rank` of `world`.
  struct BatchId {
    int rank = 0;
    int world = 1;
    int64_t index = 0;
    bool operator==(const BatchId& o) const {
      return rank == o.rank && world == o.world && index == o.index;
    }
  };

  ServedRecordSource(std::unique_ptr<DataServerClient> client, int batch_size)
      : client_(std::move(client)), batch_size_(batch_size) {}
  // Makes batch `id` the held one: from the subscription if it is next there, else subscribing.
  Status Fetch(const BatchId& id);
  // Checks the received batch against `id` and indexes its records.
  Status IndexBatch(const BatchId& id);

  std::unique_ptr<DataServerClient> client_;
  int batch_size_;
  int shard_count_ = 1;
  std::atomic<bool> interrupted_{false};
  bool subscribed_ = false;
  BatchId next_;  // what the subscription delivers next
  bool held_ = false;
  BatchId held_id_;
  ReceivedBatch batch_;
  std::vector<size_t> offsets_;  // where each record of batch_.body starts, and its end
  int item_ = 0;                 // the current record, in the held batch
  std::string key_;
};

}  // namespace dtrain
