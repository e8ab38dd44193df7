// AnnotatedDataLayer: the SSD fork's "AnnotatedData", batches of images with their object boxes
// from an LMDB of AnnotatedDatum records (what `dtrain convert annoset` and the fork's
// convert_annoset write), augmented as the fork does.
//
// Tops: data (N x C x H x W) and an optional label. With boxes (the first record states an
// AnnotationType, or annotated_data_param.anno_type is set) the label is 1 x 1 x G x 8, one row
// per box of the batch that survived the augmentation: [item, group_label, instance_id, xmin,
// ymin, xmax, ymax, difficult], coordinates normalised to the output image; a batch without any
// box gives one row of -1. Without boxes it is the Datums' labels (N), as Data's.
//
// Each record, in the fork's order (AnnotatedDataLayer::load_batch):
//   1. decoded (data/annotated_record.h; force_color / force_gray as Data);
//   2. distort_param: random photometric distortion; 3. expand_param: random zoom out;
//   4. annotated_data_param.batch_sampler: every sampler draws its boxes (detection/sampler.h),
//      and the image is cropped to one of all the kept boxes, chosen uniformly (none kept: the
//      whole image);
//   5. the transform: resize_param, crop_size, mirror, mean_value and scale, the boxes moved
//      with the image and those emit_constraint rejects or that fall outside dropped
//      (data/annotated_transformer.h has each step's exact semantics).
// A batch's shape is its first record's output shape; every record must give the same one (the
// fork aborts otherwise): set resize_param when the images differ in size or the samplers crop.
// FIT_SMALL_SIZE gives every image its own shape and needs batch_size 1, as in the fork.
//
// Parameters: data_param source (an LMDB, or a data server's "tcp://HOST:PORT"), batch_size,
// backend (LMDB), prefetch, rand_skip, shuffle, server_timeout, server_auth_file, as Data's;
// annotated_data_param batch_sampler, anno_type (replaces the records' own type; a record that
// states none is then read as that type), label_map_file (only the fork's tools read it; unused
// here, as in the fork). A record whose type differs from the first's is an error naming it.
//
// Randomness: every random choice of a record (distortion, expansion, samplers, crop offsets,
// mirror, interpolation) comes from a stream seeded by the layer's seed and the record's position
// in the sequence, so that N shards draw exactly what one reader draws, and a snapshot's position
// alone resumes the stream (the state is PrefetchingDataLayer's default, the position).
// Prefetching, sharding and faults are PrefetchingDataLayer's: a bad record makes Forward
// return an error naming the layer and the record's key.
//
// Data server (docs/data-server.md): with `source: "tcp://HOST:PORT"` the records come from
// `dtrain data-server --ship=records` (data/served_record_source.h), this rank's strided share,
// the very bytes of the LMDB it serves, augmented here as above: the tops are those the LMDB
// gives (the server's --shuffle and key order are the sequence; rand_skip and data_param.shuffle
// do not apply). A server shipping float batches is refused by name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "data/annotated_record.h"
#include "data/annotated_transformer.h"
#include "data/image_decode.h"
#include "data/stored_record_source.h"
#include "detection/sampler.h"
#include "layers/layer_inputs.h"
#include "layers/prefetching_data_layer.h"

namespace dtrain {

class AnnotatedDataLayer : public PrefetchingDataLayer {
 public:
  AnnotatedDataLayer(const LayerParameter& p, const LayerContext& c);
  ~AnnotatedDataLayer() override;

  const char* type() const override { return "AnnotatedData"; }
  // What the parameters name for it to read, and pointing its records elsewhere (layer_inputs.h).
  static LayerInputs Inputs(const LayerParameter& p);
  static void SetRecords(LayerParameter* p, const std::string& records);
  int MinTopBlobs() const override { return 1; }
  int MaxTopBlobs() const override { return 2; }

 protected:
  Status SetUpSource(const TensorVec& top) override;
  Status LoadBatch(Batch* batch) override;
  RecordSource* source() override { return records_.get(); }
  Status ShardChanged(bool started) override;

 private:
  // Reads the record at `position` and augments it into record_ (steps 1-4 above).
  Status ReadAugmented(int64_t position, Rng& rng);
  // Checks the parameters that need no record: batch samplers, FIT_SMALL_SIZE's batch size.
  Status CheckParameters();

  uint64_t seed_;
  std::unique_ptr<StoredRecordSource> records_;  // an LMDB or a data server
  std::unique_ptr<AnnotatedTransformer> transformer_;
  std::vector<detection::BatchSampler> samplers_;
  ImageColor color_ = ImageColor::kNative;
  bool boxes_ = false;       // whether the label top holds boxes (else the Datums' labels)
  int anno_type_ = 0;        // the annotation type of every record, when boxes_
  bool type_given_ = false;  // annotated_data_param.anno_type set
  ImageDecoder decoder_;     // used by the prefetch thread only
  AnnotatedRecord record_;   // reused per record
  std::vector<float> rows_;  // the label rows of the batch being filled
};

}  // namespace dtrain
