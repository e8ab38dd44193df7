// The fuzz target of every parser of a file a user hands dtrain: net and solver prototxt (with
// Caffe's upgrade path), .caffemodel and .solverstate (checksum, upgrade, every blob read into a
// tensor), mean files, Datum records, IDX and CIFAR files, image lists, window files and
// hostfiles. Shared by the libFuzzer binary (file_parsers_fuzz.cc, scripts/fuzz.sh) and the gtest
// that runs it on random and mutated input in every test run.
//
// The first byte picks the parser, the rest is the file. Errors are fine; what must hold for any
// input is checked and aborts (a fuzzer finding) when it fails: a tensor read from a blob holds
// exactly the values its shape names; a parsed Datum's payload matches its shape; IDX and CIFAR
// pixel counts match their headers; window coordinates are ordered and within bounds; hostfile
// names pass CheckHostName and slots are in range. Files are written to one path per process
// (the fuzzer runs one input at a time).
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "cluster/hostfile.h"
#include "core/proto_checksum.h"
#include "core/proto_io.h"
#include "core/tensor.h"
#include "data/cifar_reader.h"
#include "data/datum.h"
#include "data/idx_reader.h"
#include "data/image_list.h"
#include "data/window_file.h"
#include "net/upgrade_net.h"
#include "proto/blob.pb.h"
#include "proto/net.pb.h"
#include "proto/solver.pb.h"
#include "solver/upgrade_solver.h"

namespace dtrain {

constexpr int kFileParsers = 11;

inline void FuzzCheck(bool holds) {
  if (!holds) std::abort();
}

// A blob read into a tensor must hold exactly the values its shape names.
inline void FuzzBlob(const BlobProto& blob) {
  Tensor tensor;
  if (!tensor.FromProto(blob, /*reshape=*/true).ok()) return;
  FuzzCheck(tensor.count() == blob.data_size() || tensor.count() == blob.double_data_size() ||
            tensor.count() == 0);
}

inline std::string FuzzFile(std::string_view bytes) {
  const std::string path = "/tmp/dtrain_fuzz_file_" + std::to_string(getpid());
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

inline void FuzzFileParsers(std::string_view input) {
  if (input.empty()) return;
  const int parser = static_cast<unsigned char>(input[0]) % kFileParsers;
  const std::string_view bytes = input.substr(1);
  const std::string text(bytes);
  switch (parser) {
    case 0: {  // net prototxt, then Caffe's upgrade path
      NetParameter net;
      if (ParseTextProto(text, "net.prototxt", &net).ok()) (void)UpgradeNet(net);
      break;
    }
    case 1: {  // solver prototxt
      SolverParameter solver;
      if (ParseTextProto(text, "solver.prototxt", &solver).ok()) {
        (void)UpgradeSolverAsNeeded("solver.prototxt", &solver);
      }
      break;
    }
    case 2: {  // .caffemodel
      NetParameter net;
      if (!net.ParseFromString(text) || !VerifyChecksum(net, "w.caffemodel").ok()) break;
      for (const LayerParameter& layer : net.layer()) {
        for (const BlobProto& blob : layer.blobs()) FuzzBlob(blob);
      }
      (void)UpgradeNet(net);
      break;
    }
    case 3: {  // .solverstate
      SolverState state;
      if (!state.ParseFromString(text) || !VerifyChecksum(state, "s.solverstate").ok()) break;
      for (const BlobProto& blob : state.history()) FuzzBlob(blob);
      break;
    }
    case 4: {  // mean file (.binaryproto)
      BlobProto blob;
      if (blob.ParseFromString(text)) FuzzBlob(blob);
      break;
    }
    case 5: {  // a Datum record (an LMDB value), encoded images decoded
      Datum datum;
      if (!ParseDatum(bytes, "00000001", &datum).ok()) break;
      FuzzCheck(DatumSize(datum) ==
                static_cast<int64_t>(datum.channels()) * datum.height() * datum.width());
      break;
    }
    case 6: {  // IDX images and labels
      const std::string path = FuzzFile(bytes);
      auto images = ReadIdxImages(path);
      if (images.ok()) {
        FuzzCheck(images->pixels.size() ==
                  static_cast<size_t>(images->count) * images->rows * images->cols);
      }
      (void)ReadIdxLabels(path);
      break;
    }
    case 7: {  // a CIFAR-10 batch
      auto batch = ReadCifarBatch(FuzzFile(bytes));
      if (batch.ok()) {
        FuzzCheck(batch->labels.size() == static_cast<size_t>(batch->count));
        FuzzCheck(batch->pixels.size() == static_cast<size_t>(batch->count) * 3 * 32 * 32);
      }
      break;
    }
    case 8: {  // an image list
      auto list = ReadImageList(FuzzFile(bytes));
      if (list.ok()) FuzzCheck(!list->empty());
      break;
    }
    case 9: {  // a window file
      auto windows = ReadWindowFile(FuzzFile(bytes), 0.5f, 0.5f);
      if (!windows.ok()) break;
      for (const auto* pool : {&windows->foreground, &windows->background}) {
        for (const Window& w : *pool) {
          FuzzCheck(w.x1 <= w.x2 && w.y1 <= w.y2 && w.x1 >= 0 && w.y1 >= 0);
          FuzzCheck(w.image >= 0 && w.image < static_cast<int>(windows->images.size()));
        }
      }
      break;
    }
    case 10: {  // a hostfile
      auto hosts = ParseHostfile(text, "hosts");
      if (!hosts.ok()) break;
      for (const Host& host : *hosts) {
        FuzzCheck(CheckHostName(host.name).ok());
        FuzzCheck(host.slots >= 1 && host.slots <= kMaxSlotsPerHost);
      }
      break;
    }
  }
}

}  // namespace dtrain
