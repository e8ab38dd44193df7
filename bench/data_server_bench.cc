// dtrain_data_server_bench: how fast a data server (src/data/data_server.h) feeds training ranks
// over loopback, in both shipping modes, to 1, 2 and 4 clients:
//
//   build/dtrain_data_server_bench [--seconds=3] [--threads=2] [--consumer-img-s=X]
//
// Data sets (written to a temporary directory, removed at the end): CIFAR-sized, 10000 uint8
// Datums of 3x32x32 served in batches of 100 per rank (floats: scaled, as cifar10_quick's net
// reads them); ImageNet-sized, 512 Datums of 3x256x256 in batches of 32 (floats: random 224 crop
// and mirror, as GoogLeNet's net reads them); the same as JPEG-encoded Datums (~40 KB: records
// ship them compressed and the ranks decode; floats are decoded and cropped by the server). Each
// client is a thread with its own connection (rank i of N) that receives batches as fast as it
// can without unpacking them: what is measured is the server and the transport, on the same
// cores as the clients. --consumer-img-s is the rate
// at which training consumes CIFAR images (bench/data_server.sh measures cifar10_quick with
// `dtrain time`); each CIFAR row then shows its multiple of it (target: >= 10).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/logging.h"
#include "data/data_server.h"
#include "data/data_server_client.h"
#include "data/datum.h"
#include "data/image_encode.h"
#include "data/lmdb_db.h"

namespace dtrain {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  double seconds = 3;
  int threads = 2;
  double consumer_img_s = 0;
};

struct DataSet {
  std::string name;
  int records, size;  // size x size, 3 channels
  uint32_t batch;
  TransformationParameter floats_transform;
  bool jpeg = false;  // encoded Datums (JPEG, quality 90) rather than raw pixels
};

Status WriteLmdb(const std::string& path, const DataSet& set) {
  DT_ASSIGN_OR_RETURN(auto writer, LmdbWriter::Create(path));
  std::mt19937 rng(1);
  std::vector<uint8_t> pixels(size_t{3} * set.size * set.size);
  for (int i = 0; i < set.records; ++i) {
    Datum datum;
    if (set.jpeg) {
      // Gradients plus noise (HWC), so that the JPEGs come out photo-sized (~40 KB).
      for (size_t j = 0; j < pixels.size(); ++j) {
        const size_t x = j / 3 % set.size, y = j / 3 / set.size;
        pixels[j] = static_cast<uint8_t>(x / 2 + y / 3 + i + rng() % 24);
      }
      DT_ASSIGN_OR_RETURN(std::string jpeg,
                          EncodeJpeg(HwcImage{pixels.data(), 3, set.size, set.size}, 90));
      datum.set_encoded(true);
      datum.set_data(jpeg);
      datum.set_label(i % 10);
    } else {
      for (auto& p : pixels) p = static_cast<uint8_t>(rng());
      datum = MakeDatum(3, set.size, set.size, pixels.data(), i % 10);
    }
    DT_RETURN_IF_ERROR(writer->Put(RecordKey(i), datum.SerializeAsString()));
  }
  return writer->Close();
}

struct Rate {
  double batches_s = 0, mb_s = 0;
};

// N clients receive for `seconds`; the batches and bytes they got per second.
StatusOr<Rate> Measure(const DataServer& server, int clients, uint32_t batch, double seconds) {
  std::atomic<int64_t> batches{0}, bytes{0};
  std::atomic<bool> failed{false};
  std::string error;
  const Clock::time_point start = Clock::now();
  const Clock::time_point end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::vector<std::thread> threads;
  for (int rank = 0; rank < clients; ++rank) {
    threads.emplace_back([&, rank] {
      DataServerClientOptions options;
      options.uri = "tcp://127.0.0.1:" + std::to_string(server.port());
      options.timeout_s = 10;
      auto client = DataServerClient::Connect(options);
      DataServerSubscribe subscribe;
      subscribe.set_rank(rank);
      subscribe.set_world_size(clients);
      subscribe.set_batch_size(batch);
      subscribe.set_seed(7);
      Status status = client.ok() ? (*client)->Subscribe(subscribe) : client.status();
      ReceivedBatch received;
      while (status.ok() && Clock::now() < end) {
        status = (*client)->Next(&received);
        if (status.ok()) {
          ++batches;
          bytes += static_cast<int64_t>(received.body.size() + received.meta.ByteSizeLong());
        }
      }
      if (!status.ok() && !failed.exchange(true)) error = status.message();
    });
  }
  for (auto& t : threads) t.join();
  if (failed) return Status(StatusCode::kInternal, error);
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  return Rate{batches / elapsed, bytes / elapsed / 1e6};
}

Status Run(const Options& options) {
  SetLogToStderr(false);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("dtrain_data_server_bench_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  DataSet cifar{"CIFAR 3x32x32", 10000, 32, 100, {}};
  cifar.floats_transform.set_scale(0.00390625f);
  DataSet imagenet{"ImageNet 3x256x256", 512, 256, 32, {}};
  imagenet.floats_transform.set_crop_size(224);
  imagenet.floats_transform.set_mirror(true);
  DataSet imagenet_jpeg = imagenet;
  imagenet_jpeg.name = "ImageNet JPEG 256x256";
  imagenet_jpeg.jpeg = true;
  std::printf("| data | shipping | clients | batch | batches/s | images/s | MB/s |%s\n",
              options.consumer_img_s > 0 ? " x cifar10_quick's consumption |" : "");
  std::printf("|---|---|---|---|---|---|---|%s\n", options.consumer_img_s > 0 ? "---|" : "");
  Status status;
  for (const DataSet& set : {cifar, imagenet, imagenet_jpeg}) {
    const std::string lmdb =
        (dir / (std::to_string(set.size) + (set.jpeg ? "_jpeg" : ""))).string();
    status = WriteLmdb(lmdb, set);
    if (!status.ok()) break;
    for (DataShipping shipping : {SHIP_RECORDS, SHIP_FLOATS}) {
      ServedData data;
      data.source = lmdb;
      data.shipping = shipping;
      data.transform = set.floats_transform;
      auto maker = BatchMaker::Open(data);
      if (!maker.ok()) return maker.status();
      DataServerOptions server_options;
      server_options.threads = options.threads;
      server_options.log_interval_s = 0;
      auto server =
          DataServer::Start(server_options, std::shared_ptr<const BatchMaker>(std::move(*maker)));
      if (!server.ok()) return server.status();
      for (int clients : {1, 2, 4}) {
        auto rate = Measure(**server, clients, set.batch, options.seconds);
        if (!rate.ok()) return rate.status();
        const double images = rate->batches_s * set.batch;
        std::printf("| %s | %s | %d | %u | %.1f | %.0f | %.1f |", set.name.c_str(),
                    shipping == SHIP_RECORDS ? "records" : "floats", clients, set.batch,
                    rate->batches_s, images, rate->mb_s);
        if (options.consumer_img_s > 0) {
          if (set.size == 32) {
            std::printf(" %.1f |", images / options.consumer_img_s);
          } else {
            std::printf(" |");
          }
        }
        std::printf("\n");
        std::fflush(stdout);
      }
    }
  }
  std::filesystem::remove_all(dir);
  return status;
}

}  // namespace
}  // namespace dtrain

int main(int argc, char** argv) {
  dtrain::Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&arg] { return std::stod(arg.substr(arg.find('=') + 1)); };
    if (arg.rfind("--seconds=", 0) == 0) {
      options.seconds = value();
    } else if (arg.rfind("--threads=", 0) == 0) {
      options.threads = static_cast<int>(value());
    } else if (arg.rfind("--consumer-img-s=", 0) == 0) {
      options.consumer_img_s = value();
    } else {
      std::fprintf(stderr,
                   "usage: dtrain_data_server_bench [--seconds=3] [--threads=2] "
                   "[--consumer-img-s=X]\n");
      return 2;
    }
  }
  const dtrain::Status status = dtrain::Run(options);
  if (!status.ok()) {
    std::fprintf(stderr, "dtrain_data_server_bench: %s\n", status.message().c_str());
    return 1;
  }
  return 0;
}
