#include "layers/detection_output_layer.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "data/label_map.h"
#include "proto/annotation.pb.h"
#include "proto/detection_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

using detection::CodeType;
using detection::NormalizedBox;
using detection::Prior;

Status DetectionOutputLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const DetectionOutputParameter& p = param_.detection_output_param();
  if (!p.has_num_classes()) return Error("detection_output_param.num_classes is required");
  if (p.num_classes() < 1) return Error("detection_output_param.num_classes must be at least 1");
  StatusOr<int> classes = Dimension("detection_output_param.num_classes", p.num_classes());
  if (!classes.ok()) return classes.status();
  num_classes_ = *classes;
  share_location_ = p.share_location();
  num_loc_classes_ = share_location_ ? 1 : num_classes_;
  background_label_id_ = p.background_label_id();
  if (share_location_ && background_label_id_ == -1) {
    return Error(
        "detection_output_param.background_label_id -1 with share_location is refused: the fork "
        "skips the shared boxes as if they were the background's and stops (\"Could not find "
        "location predictions for label -1\")");
  }
  code_type_ = static_cast<CodeType>(p.code_type());
  variance_encoded_in_target_ = p.variance_encoded_in_target();
  keep_top_k_ = p.keep_top_k();
  nms_.score_threshold = p.has_confidence_threshold() ? p.confidence_threshold() : -FLT_MAX;
  if (std::isnan(nms_.score_threshold)) {
    return Error("detection_output_param.confidence_threshold is NaN");
  }
  nms_.nms_threshold = p.nms_param().nms_threshold();
  if (!(nms_.nms_threshold >= 0)) {
    return Error("detection_output_param.nms_param.nms_threshold must be non-negative, got " +
                 std::to_string(nms_.nms_threshold));
  }
  nms_.eta = p.nms_param().eta();
  if (!(nms_.eta > 0 && nms_.eta <= 1)) {
    return Error("detection_output_param.nms_param.eta must be in (0, 1], got " +
                 std::to_string(nms_.eta));
  }
  nms_.top_k = p.nms_param().has_top_k() ? p.nms_param().top_k() : -1;
  if (p.visualize()) {
    return Error(
        "detection_output_param.visualize is not supported: the fork draws the detections in "
        "OpenCV windows; dtrain has no display");
  }
  return SetUpSaving();
}

Status DetectionOutputLayer::SetUpSaving() {
  saving_.reset();
  const SaveOutputParameter& s = param_.detection_output_param().save_output_param();
  if (s.output_directory().empty()) return Status::Ok();
  const std::string field = "detection_output_param.save_output_param";
  if (s.label_map_file().empty() || s.name_size_file().empty()) {
    return Error(field +
                 ".output_directory needs label_map_file and name_size_file (the fork silently "
                 "saves nothing without them)");
  }
  auto saving = std::make_unique<Saving>();
  StatusOr<detection::ResultFormat> format =
      detection::ParseResultFormat(s.output_format(), field + ".output_format");
  if (!format.ok()) return Error(format.status().message());
  saving->files.format = *format;
  saving->files.directory = s.output_directory();
  saving->files.prefix = s.output_name_prefix();

  StatusOr<LabelMap> map = ReadLabelMap(s.label_map_file());
  if (!map.ok()) return Error(field + ".label_map_file: " + map.status().message());
  std::map<int, std::string> names;
  for (const LabelMapItem& item : map->item()) {
    if (!names.emplace(item.label(), item.name()).second) {
      return Error(field + ".label_map_file '" + s.label_map_file() + "' gives label " +
                   std::to_string(item.label()) + " twice");
    }
  }
  for (int c = 0; c < num_classes_; ++c) {
    if (c == background_label_id_) continue;
    const auto name = names.find(c);
    if (name == names.end()) {
      return Error(field + ".label_map_file '" + s.label_map_file() + "' has no name for class " +
                   std::to_string(c) + " (num_classes is " + std::to_string(num_classes_) + ")");
    }
    saving->files.class_names[c] = name->second;
  }

  StatusOr<std::vector<detection::ImageNameSize>> images =
      detection::ReadNameSizeFile(s.name_size_file(), field + ".name_size_file");
  if (!images.ok()) return Error(images.status().message());
  saving->images = std::move(images).value();
  if (saving->images.empty()) return Error(field + ".name_size_file lists no image");
  const uint64_t per_file = s.has_num_test_image() ? s.num_test_image() : saving->images.size();
  if (per_file == 0 || per_file > saving->images.size()) {
    return Error(field + ".num_test_image " + std::to_string(per_file) +
                 " must be between 1 and the " + std::to_string(saving->images.size()) +
                 " images of name_size_file");
  }
  saving->images_per_file = static_cast<int>(per_file);
  if (s.has_resize_param()) {
    const ResizeParameter& r = s.resize_param();
    saving->resize = std::make_unique<detection::ResizeSettings>();
    saving->resize->mode = static_cast<detection::ResizeMode>(r.resize_mode());
    saving->resize->height = static_cast<float>(r.height());
    saving->resize->width = static_cast<float>(r.width());
    saving->resize->height_scale = static_cast<int>(r.height_scale());
    saving->resize->width_scale = static_cast<int>(r.width_scale());
    const std::string problem = detection::ResizeProblem(*saving->resize);
    if (!problem.empty()) return Error(field + "." + problem);
  }
  std::error_code error;
  std::filesystem::create_directories(saving->files.directory, error);
  if (!std::filesystem::is_directory(saving->files.directory, error)) {
    return Error("cannot create " + field + ".output_directory '" + saving->files.directory + "'");
  }
  saving_ = std::move(saving);
  return Status::Ok();
}

Status DetectionOutputLayer::SaveImage(const float* rows, int count) {
  Saving& s = *saving_;
  const detection::ImageNameSize& image = s.images[s.next_image];
  for (int i = 0; i < count; ++i) {
    const float* r = rows + i * 7;
    const NormalizedBox pixels = detection::OutputPixelBox({r[3], r[4], r[5], r[6]}, image.height,
                                                           image.width, s.resize.get());
    s.detections.push_back({image.name, static_cast<int>(r[1]), r[2], pixels.xmin, pixels.ymin,
                            pixels.xmax, pixels.ymax});
  }
  if (++s.next_image % s.images_per_file != 0) return Status::Ok();
  s.next_image = 0;
  const Status written = detection::WriteResultFiles(s.files, s.detections);
  s.detections.clear();
  return written.ok() ? Status::Ok() : Error(written.message());
}

Status DetectionOutputLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& loc = *bottom[0];
  const Tensor& conf = *bottom[1];
  const Tensor& priors = *bottom[2];
  if (priors.num_axes() < 3 || priors.shape(1) != 2 || priors.count(3) != 1 ||
      priors.shape(2) % 4 != 0) {
    return Error("bottom 2 (priors) must be (1, 2, P * 4) as PriorBox writes it, got " +
                 priors.ShapeString());
  }
  num_priors_ = priors.shape(2) / 4;
  if (loc.num_axes() < 1 || conf.num_axes() < 1 || loc.shape(0) != conf.shape(0)) {
    return Error("bottoms 0 (loc) and 1 (conf) must have the same number of images, got " +
                 loc.ShapeString() + " and " + conf.ShapeString());
  }
  const int64_t loc_per_image = static_cast<int64_t>(num_priors_) * num_loc_classes_ * 4;
  if (loc.count(1) != loc_per_image) {
    return Error("Number of priors must match number of location predictions: bottom 0 (loc) " +
                 loc.ShapeString() + " has " + std::to_string(loc.count(1)) +
                 " values per image, " + std::to_string(num_priors_) + " priors x " +
                 std::to_string(num_loc_classes_) +
                 " location classes x 4 = " + std::to_string(loc_per_image));
  }
  const int64_t conf_per_image = static_cast<int64_t>(num_priors_) * num_classes_;
  if (conf.count(1) != conf_per_image) {
    return Error("Number of priors must match number of confidence predictions: bottom 1 (conf) " +
                 conf.ShapeString() + " has " + std::to_string(conf.count(1)) +
                 " values per image, " + std::to_string(num_priors_) + " priors x " +
                 std::to_string(num_classes_) + " classes = " + std::to_string(conf_per_image));
  }
  top[0]->Reshape({1, 1, 1, 7});
  return Status::Ok();
}

Status DetectionOutputLayer::CheckFinite(const Tensor& t, const char* name) const {
  const float* x = t.data();
  for (int64_t i = 0; i < t.count(); ++i) {
    if (!std::isfinite(x[i])) {
      return Error(std::string(name) + " value " + std::to_string(i) + " is " +
                   std::to_string(x[i]) + " (every value must be finite)");
    }
  }
  return Status::Ok();
}

Status DetectionOutputLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  if (saving_ && shard_count_ > 1) {
    return Error("detection_output_param.save_output_param in a job of " +
                 std::to_string(shard_count_) +
                 " ranks is not supported yet: each rank sees only its share of the test images "
                 "(write the result files with `dtrain test` in one process)");
  }
  DT_RETURN_IF_ERROR(CheckFinite(*bottom[0], "bottom 0 (loc)"));
  DT_RETURN_IF_ERROR(CheckFinite(*bottom[1], "bottom 1 (conf)"));
  DT_RETURN_IF_ERROR(CheckFinite(*bottom[2], "bottom 2 (priors)"));
  const int num = bottom[0]->shape(0);
  const int P = num_priors_;
  const float* loc = bottom[0]->data();
  const float* conf = bottom[1]->data();
  const float* prior_data = bottom[2]->data();

  std::vector<Prior> priors(P);
  for (int i = 0; i < P; ++i) {
    const float* b = prior_data + i * 4;
    const float* v = prior_data + (P + i) * 4;
    priors[i].box = {b[0], b[1], b[2], b[3]};
    priors[i].variance = {v[0], v[1], v[2], v[3]};
    const std::string problem = detection::PriorProblem(priors[i], code_type_);
    if (!problem.empty())
      return Error("bottom 2 (priors), prior " + std::to_string(i) + ": " + problem);
  }

  // A detection kept by NMS: its class, prior and score.
  struct Kept {
    int label, prior;
    float score;
  };
  // decoded[c][p]: location class c's box at prior p (c = 0 when shared), for the current image.
  std::vector<std::vector<NormalizedBox>> decoded(num_loc_classes_, std::vector<NormalizedBox>(P));
  std::vector<float> rows;  // the top's rows, 7 values each
  std::vector<float> scores(P);
  for (int n = 0; n < num; ++n) {
    const float* image_loc = loc + static_cast<int64_t>(n) * P * num_loc_classes_ * 4;
    const float* image_conf = conf + static_cast<int64_t>(n) * P * num_classes_;
    for (int c = 0; c < num_loc_classes_; ++c) {
      if (!share_location_ && c == background_label_id_) continue;
      for (int p = 0; p < P; ++p) {
        const float* o = image_loc + (static_cast<int64_t>(p) * num_loc_classes_ + c) * 4;
        decoded[c][p] = detection::DecodeBox(priors[p], code_type_, variance_encoded_in_target_,
                                             {o[0], o[1], o[2], o[3]});
      }
    }
    // NMS per class, in label order.
    std::vector<Kept> found;
    for (int c = 0; c < num_classes_; ++c) {
      if (c == background_label_id_) continue;
      for (int p = 0; p < P; ++p) {
        scores[p] = image_conf[static_cast<int64_t>(p) * num_classes_ + c];
      }
      const std::vector<NormalizedBox>& boxes = decoded[share_location_ ? 0 : c];
      for (int p : detection::ApplyNms(boxes, scores, nms_)) found.push_back({c, p, scores[p]});
    }
    if (keep_top_k_ > -1 && static_cast<int64_t>(found.size()) > keep_top_k_) {
      std::stable_sort(found.begin(), found.end(),
                       [](const Kept& a, const Kept& b) { return a.score > b.score; });
      found.resize(keep_top_k_);
      // Back to label order, each label's detections in descending score.
      std::stable_sort(found.begin(), found.end(),
                       [](const Kept& a, const Kept& b) { return a.label < b.label; });
    }
    const size_t first_row = rows.size();
    for (const Kept& k : found) {
      const NormalizedBox& b = decoded[share_location_ ? 0 : k.label][k.prior];
      rows.insert(rows.end(), {static_cast<float>(n), static_cast<float>(k.label), k.score, b.xmin,
                               b.ymin, b.xmax, b.ymax});
    }
    if (saving_) {
      DT_RETURN_IF_ERROR(SaveImage(rows.data() + first_row, static_cast<int>(found.size())));
    }
  }

  if (rows.empty()) {
    // No detection in any image: one row of -1 per image, with its index.
    top[0]->Reshape({1, 1, num, 7});
    float* y = top[0]->mutable_data();
    std::fill(y, y + top[0]->count(), -1.f);
    for (int n = 0; n < num; ++n) y[n * 7] = static_cast<float>(n);
    return Status::Ok();
  }
  StatusOr<int> count = Dimension("the number of detections", rows.size() / 7);
  if (!count.ok()) return count.status();
  top[0]->Reshape({1, 1, *count, 7});
  std::copy(rows.begin(), rows.end(), top[0]->mutable_data());
  return Status::Ok();
}

}  // namespace dtrain
