// BoxDataLayer: the YOLO ports' data layer ("BoxData", as Intel Caffe carries it): encoded
// images with their boxes, from an LMDB of Datum records, and a label top of up to 30 boxes per
// image.
//
// Records: a Datum whose `data` is an encoded image (JPEG/PNG, `encoded: true`; Intel's
// convert_box_data writes them) and whose `float_data` holds 6 values per box: class,
// difficult, then the box's centre x, y and its width, height, normalised to the image. A record
// without boxes, with a float_data count that is not a multiple of 6, a class below 0 or a value
// that is not finite is an error naming its key (Intel aborts); a difficult other than 0 or 1 is
// accepted, as Intel only warns.
//
// Tops: data (N, C, H, W), each image at its own decoded size (every image of a batch must have
// the first's size), then transform_param's mean_value or mean_file and scale; optionally label
// (N, 150): per image 30 rows [class, x, y, w, h], the image's boxes in record order, then
// zeros; boxes past the 30th are dropped (Intel writes them past the image's rows, into the next
// image's, which that image then clears, or past the batch for the last image).
//
// TRAIN, per image, Intel's random crop: s = 1 - u / 100 with u uniform in [0, 30), the crop
// rw = int(W s) - 1 by rh = int(H s) - 1 at x0 uniform in [0, W - rw), y0 in [0, H - rh); a box
// is kept when its integer centre (int(x W), int(y H)) lies in [x0, x0 + rw) x [y0, y0 + rh),
// becoming ((cx - x0) / rw, (cy - y0) / rh, int(w W) / rw, int(h H) / rh); drawn again until a
// box is kept; the crop is then resized back to W x H (OpenCV's INTER_LINEAR). A record none of
// whose box centres lies inside the image is an error (Intel draws forever), as is a training
// image smaller than 4 x 4. TEST: the image and boxes as stored.
//
// Parameters: data_param source (an LMDB, or a data server's "tcp://HOST:PORT": the records of
// `dtrain data-server --ship=records`, data/served_record_source.h, read as from the LMDB),
// batch_size, backend (LMDB), prefetch, rand_skip and shuffle (an LMDB's), server_timeout,
// server_auth_file; transform_param mean_value, mean_file, scale, force_color, force_gray.
// Refused by name: transform_param crop_size and mirror (Intel's BoxData crops and flips the image
// but not its boxes), pad and the resizes, distortions, expansion and noise (not applied to the
// boxes either); more than one label top (Intel's data_param.side, one label top per value, which
// dtrain's schema lacks); a data server shipping float batches.
//
// These labels are not what Intel's RegionLoss and EvalDetection read (AnnotatedData's
// (1, 1, G, 8) rows): they refuse them. Random draws come from a stream seeded by the layer's
// seed and the record's position (shards draw what one reader draws; a snapshot's position
// resumes exactly), not Intel's generator. Prefetching, sharding and faults are
// PrefetchingDataLayer's.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "data/image_decode.h"
#include "data/stored_record_source.h"
#include "data/transformer.h"
#include "layers/layer_inputs.h"
#include "layers/prefetching_data_layer.h"

namespace dtrain {

class BoxDataLayer : public PrefetchingDataLayer {
 public:
  BoxDataLayer(const LayerParameter& p, const LayerContext& c);
  ~BoxDataLayer() override;

  const char* type() const override { return "BoxData"; }
  // What the parameters name for it to read, and pointing its records elsewhere (layer_inputs.h).
  static LayerInputs Inputs(const LayerParameter& p);
  static void SetRecords(LayerParameter* p, const std::string& records);
  int MinTopBlobs() const override { return 1; }
  int MaxTopBlobs() const override { return 100; }  // more than 2 refused by name

  // Rows per image in the label top, and values per row.
  static constexpr int kMaxBoxes = 30;
  static constexpr int kRowSize = 5;

 protected:
  Status SetUpSource(const TensorVec& top) override;
  RecordSource* source() override { return records_.get(); }
  Status FillItem(int item, int64_t position, Batch* batch) override;
  Status ShardChanged(bool started) override;

 private:
  struct Box {
    float label, difficult, x, y, w, h;
  };
  // Decodes the current record into image_ and its boxes into boxes_.
  Status ReadRecord();
  // Intel's training crop of image_ (resized back to its size) and boxes_.
  Status RandomCrop(Rng& rng);

  uint64_t seed_;
  bool labels_ = false;
  std::unique_ptr<StoredRecordSource> records_;  // an LMDB or a data server
  std::unique_ptr<DataTransformer> transformer_;
  ImageColor color_ = ImageColor::kNative;
  ImageDecoder decoder_;
  Datum datum_;
  int channels_ = 0, height_ = 0, width_ = 0;  // every image's size (the first record's)
  std::vector<uint8_t> image_, crop_;          // HWC pixels of the current record
  std::vector<Box> boxes_, kept_;
};

}  // namespace dtrain
