// Data set conversion tools, as Caffe's convert_mnist_data, convert_cifar_data, convert_imageset,
// the SSD fork's convert_annoset and compute_image_mean: raw data sets in, LMDBs of Datum (or
// AnnotatedDatum) records and mean images out.
//
// Converters never overwrite: an existing output path is an error naming it. Outputs are written
// under hidden temporary names and renamed when all are complete (data/partial_output.h), so a
// failed or killed run never leaves a half-written LMDB where training would take it.
// Progress goes to the log. Free functions; thread-safe for distinct outputs.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace dtrain {

// MNIST / Fashion-MNIST IDX files (plain or .gz) to an LMDB of 1 x rows x cols uint8 Datums with
// their labels, keyed "%08d" by index.
Status ConvertMnist(const std::string& images_path, const std::string& labels_path,
                    const std::string& out_lmdb);

// CIFAR-10 binary batches in `dir` (data_batch_1.bin .. data_batch_5.bin, test_batch.bin) to
// out_dir/cifar10_train_lmdb and out_dir/cifar10_test_lmdb: 3 x 32 x 32 uint8 Datums keyed
// "%05d" by index, as Caffe's convert_cifar_data writes them.
Status ConvertCifar10(const std::string& dir, const std::string& out_dir);

struct ImagesetOptions {
  int resize_height = 0;  // both or neither > 0: resize every image (OpenCV's INTER_LINEAR)
  int resize_width = 0;
  bool shuffle = false;  // shuffle the list with `seed` before writing
  uint64_t seed = 0;
  bool encoded = false;  // store the image files (encoded Datums) rather than pixels
  bool gray = false;     // 1-channel images rather than 3-channel BGR
  // With `encoded`: "jpg" (or "jpeg") or "png" stores every image in that format, re-encoded
  // where the file is in the other; "" keeps each file's own format.
  std::string encode_type;
};

// The images of an image list (data/image_list.h; "path label" lines, each path taken as
// root + path) to an LMDB of Datums keyed "%08d_" + path, as Caffe's convert_imageset. Plain
// Datums hold BGR (or gray) pixels in CHW order; encoded ones hold the file's own bytes, or the
// resized / gray image re-encoded in the file's format (JPEG at quality 95, or PNG) when
// resize or gray is asked. Every image is decoded to check it: a missing or corrupt one is an
// error naming the list line and the image. The LMDB is written next to `out_lmdb` under a
// temporary name and renamed to it only when complete.
Status ConvertImageset(const std::string& root, const std::string& list,
                       const std::string& out_lmdb, const ImagesetOptions& options);

struct AnnosetOptions {
  ImagesetOptions image;
  // "detection": list lines "image annotation", records AnnotatedDatums with boxes;
  // "classification" (the fork's default): list lines "image label", AnnotatedDatums without.
  std::string anno_type = "classification";
  std::string label_type = "xml";  // the annotation files' format: xml, json or txt
  std::string label_map_file;      // a LabelMap prototxt: required for xml and json
  bool check_label = false;        // a name twice in the label map is an error
  bool check_size = false;         // every Datum must have the first one's size
};

// The SSD fork's convert_annoset: the images of `list` (each path taken as root + path) and,
// for detection, their annotation files (root + second column; data/box_annotations.h) to an
// LMDB of AnnotatedDatums keyed "%08d_" + image path, which the fork's AnnotatedData layer and
// dtrain's read alike. A missing annotation file is an error (the fork stores the image with no
// box). The fork's --min_dim/--max_dim are refused by the command (Intel Caffe ignores them, the
// fork resizes by them). Atomic as the other converters.
Status ConvertAnnoset(const std::string& root, const std::string& list, const std::string& out_lmdb,
                      const AnnosetOptions& options);

// The per-pixel mean of every Datum in `lmdb` as a 1 x C x H x W BlobProto (legacy num/channels/
// height/width fields, as Caffe writes it), written atomically to `out_binaryproto`. All records
// must have the same shape.
Status ComputeMean(const std::string& lmdb, const std::string& out_binaryproto);

}  // namespace dtrain
