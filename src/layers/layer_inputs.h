// The files a layer's parameters name for it to read, known before any layer is built: what
// `dtrain launch` checks and stages on every host, what per-worker files split, what the data
// server serves. Each data layer class answers for its own type (a static Inputs and
// SetRecords beside its constructor); layers/registry.cc routes a LayerParameter to it.
#pragma once

#include <string>
#include <vector>

#include "core/proto_forward.h"
#include "core/status.h"

namespace dtrain {

// How a layer's records are stored, as far as the commands that stage a job care.
enum class RecordsFormat {
  kNone,           // the layer reads no records (Input, DummyData, MemoryData, every other layer)
  kLmdb,           // a database a data server can serve in the layer's place (Data)
  kDataServer,     // records arrive from a data server (Data, AnnotatedData or BoxData with a
                   // tcp:// source)
  kImageList,      // a text list of image files, one per line: split per rank by dtrain launch
  kHdf5List,       // a text list of HDF5 files
  kWindowFile,     // a window file (WindowData)
  kAnnotatedLmdb,  // an LMDB of AnnotatedDatum records (AnnotatedData; a data server serves it
                   // as records)
  kBoxLmdb,        // an LMDB of encoded Datums with boxes in float_data (BoxData; a data server
                   // serves it as records)
  kVideoFile,      // a video file (VideoData)
};

struct LayerInputs {
  RecordsFormat format = RecordsFormat::kNone;
  std::string records;             // the source field as written (may hold a rank pattern %#)
  std::string root_folder;         // what the records' paths are relative to ("" if nothing)
  std::vector<std::string> files;  // other files it reads (mean files), as written
};

// The inputs of `param`'s layer type; a type that reads nothing (or an unknown one) gives kNone.
LayerInputs InputsOfLayer(const LayerParameter& param);

// Points the layer's records at `records` (a per-rank list, say). An error names the layer if
// its type reads no records.
Status SetRecordsOfLayer(LayerParameter* param, const std::string& records);

}  // namespace dtrain
