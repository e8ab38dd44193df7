#include "layers/detection_evaluate_layer.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "detection/box.h"
#include "detection/result_files.h"
#include "proto/detection_params.pb.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

using detection::NormalizedBox;

namespace {

// v truncated to an int as the fork's cast does, or false when that cast would be undefined.
bool ToInt(float v, int* out) {
  if (!(v > -2147483649.f && v < 2147483648.f)) return false;
  *out = static_cast<int>(v);
  return true;
}

}  // namespace

Status DetectionEvaluateLayer::LayerSetUp(const TensorVec& bottom, const TensorVec& top) {
  const DetectionEvaluateParameter& p = param_.detection_evaluate_param();
  if (!p.has_num_classes()) return Error("detection_evaluate_param.num_classes is required");
  if (p.num_classes() < 1) {
    return Error("detection_evaluate_param.num_classes must be at least 1");
  }
  StatusOr<int> classes = Dimension("detection_evaluate_param.num_classes", p.num_classes());
  if (!classes.ok()) return classes.status();
  num_classes_ = *classes;
  background_label_id_ = static_cast<int>(p.background_label_id());
  if (background_label_id_ != -1 && background_label_id_ >= num_classes_) {
    return Error("detection_evaluate_param.background_label_id " +
                 std::to_string(p.background_label_id()) + " must be below num_classes " +
                 std::to_string(num_classes_) + " (or 4294967295 for none)");
  }
  overlap_threshold_ = p.overlap_threshold();
  if (!(overlap_threshold_ > 0)) {
    return Error("detection_evaluate_param.overlap_threshold must be positive, got " +
                 std::to_string(overlap_threshold_));
  }
  evaluate_difficult_gt_ = p.evaluate_difficult_gt();
  if (p.has_name_size_file()) DT_RETURN_IF_ERROR(ReadNameSizeFile(p.name_size_file()));
  if (p.has_resize_param()) {
    const ResizeParameter& r = p.resize_param();
    resize_ = std::make_unique<detection::ResizeSettings>();
    resize_->mode = static_cast<detection::ResizeMode>(r.resize_mode());
    resize_->height = static_cast<float>(r.height());
    resize_->width = static_cast<float>(r.width());
    resize_->height_scale = static_cast<int>(r.height_scale());
    resize_->width_scale = static_cast<int>(r.width_scale());
    const std::string problem = detection::ResizeProblem(*resize_);
    if (!problem.empty()) return Error("detection_evaluate_param." + problem);
  }
  count_ = 0;
  return Status::Ok();
}

Status DetectionEvaluateLayer::ReadNameSizeFile(const std::string& path) {
  StatusOr<std::vector<detection::ImageNameSize>> images =
      detection::ReadNameSizeFile(path, "detection_evaluate_param.name_size_file");
  if (!images.ok()) return Error(images.status().message());
  for (const detection::ImageNameSize& image : *images) {
    sizes_.emplace_back(image.height, image.width);
  }
  return Status::Ok();
}

Status DetectionEvaluateLayer::Reshape(const TensorVec& bottom, const TensorVec& top) {
  const Tensor& det = *bottom[0];
  const Tensor& gt = *bottom[1];
  if (det.num_axes() != 4 || det.shape(0) != 1 || det.shape(1) != 1 || det.shape(3) != 7) {
    return Error("bottom 0 (detections) must be (1, 1, D, 7), got " + det.ShapeString());
  }
  if (gt.num_axes() != 4 || gt.shape(0) != 1 || gt.shape(1) != 1 || gt.shape(3) != 8) {
    return Error("bottom 1 (ground truth) must be (1, 1, G, 8), got " + gt.ShapeString());
  }
  const int classes = background_label_id_ == -1 ? num_classes_ : num_classes_ - 1;
  top[0]->Reshape({1, 1, classes, 5});
  return Status::Ok();
}

Status DetectionEvaluateLayer::ForwardImpl(const TensorVec& bottom, const TensorVec& top) {
  for (int b = 0; b < 2; ++b) {
    const float* x = bottom[b]->data();
    for (int64_t i = 0; i < bottom[b]->count(); ++i) {
      if (!std::isfinite(x[i])) {
        return Error(std::string(b == 0 ? "bottom 0 (detections)" : "bottom 1 (ground truth)") +
                     " row " + std::to_string(i / (b == 0 ? 7 : 8)) + " has the value " +
                     std::to_string(x[i]) + " (every value must be finite)");
      }
    }
  }
  // detections[image][label]: boxes with scores; ground_truth[image][label]: boxes.
  std::map<int, std::map<int, std::vector<NormalizedBox>>> detections, ground_truth;
  const float* det = bottom[0]->data();
  const int num_det = bottom[0]->shape(2);
  int rows = background_label_id_ == -1 ? num_classes_ : num_classes_ - 1;
  for (int i = 0; i < num_det; ++i) {
    const float* d = det + i * 7;
    if (d[1] != -1) ++rows;
    int image = 0, label = 0;
    if (!ToInt(d[0], &image) || !ToInt(d[1], &label)) {
      return Error("bottom 0 (detections) row " + std::to_string(i) +
                   ": the image or label is beyond an int");
    }
    if (image == -1) continue;
    if (label == background_label_id_) {
      return Error("bottom 0 (detections) row " + std::to_string(i) + " has the background label " +
                   std::to_string(label));
    }
    NormalizedBox box{d[3], d[4], d[5], d[6]};
    box.label = label;
    box.score = d[2];
    detections[image][label].push_back(box);
  }
  const float* g = bottom[1]->data();
  for (int i = 0; i < bottom[1]->shape(2); ++i, g += 8) {
    int image = 0, label = 0;
    if (!ToInt(g[0], &image) || !ToInt(g[1], &label)) {
      return Error("bottom 1 (ground truth) row " + std::to_string(i) +
                   ": the image or label is beyond an int");
    }
    if (image == -1) break;  // the fork stops reading at the first padding row
    if (label == background_label_id_) {
      return Error("bottom 1 (ground truth) row " + std::to_string(i) +
                   " has the background label " + std::to_string(label));
    }
    NormalizedBox box{g[3], g[4], g[5], g[6]};
    box.label = label;
    box.difficult = g[7] != 0;
    ground_truth[image][label].push_back(box);
  }

  StatusOr<int> top_rows = Dimension("the number of rows", rows);
  if (!top_rows.ok()) return top_rows.status();
  top[0]->Reshape({1, 1, *top_rows, 5});
  float* y = top[0]->mutable_data();
  std::fill(y, y + top[0]->count(), 0.f);

  std::map<int, int> positives;
  for (const auto& [image, labels] : ground_truth) {
    for (const auto& [label, boxes] : labels) {
      for (const NormalizedBox& b : boxes) {
        if (evaluate_difficult_gt_ || !b.difficult) ++positives[label];
      }
    }
  }
  for (int c = 0; c < num_classes_; ++c) {
    if (c == background_label_id_) continue;
    const auto it = positives.find(c);
    const float row[5] = {-1.f, static_cast<float>(c),
                          static_cast<float>(it == positives.end() ? 0 : it->second), -1.f, -1.f};
    y = std::copy(row, row + 5, y);
  }

  const bool in_pixels = !sizes_.empty();
  for (auto& [image, labels] : detections) {
    const auto image_gt = ground_truth.find(image);
    for (auto& [label, boxes] : labels) {
      if (label == -1) continue;
      std::vector<NormalizedBox>* gt = nullptr;
      if (image_gt != ground_truth.end()) {
        const auto it = image_gt->second.find(label);
        if (it != image_gt->second.end()) gt = &it->second;
      }
      if (gt == nullptr) {
        // No ground truth of this class in this image: every detection is a false positive.
        for (const NormalizedBox& b : boxes) {
          const float row[5] = {static_cast<float>(image), static_cast<float>(label), b.score, 0,
                                1};
          y = std::copy(row, row + 5, y);
        }
        continue;
      }
      if (in_pixels) {
        const auto [height, width] = sizes_[count_];
        for (NormalizedBox& b : *gt) b = detection::OutputPixelBox(b, height, width, resize_.get());
      }
      std::vector<bool> taken(gt->size(), false);
      std::stable_sort(
          boxes.begin(), boxes.end(),
          [](const NormalizedBox& a, const NormalizedBox& b) { return a.score > b.score; });
      for (NormalizedBox& b : boxes) {
        y[0] = static_cast<float>(image);
        y[1] = static_cast<float>(label);
        y[2] = b.score;
        if (in_pixels) {
          const auto [height, width] = sizes_[count_];
          b = detection::OutputPixelBox(b, height, width, resize_.get());
        }
        float best = -1;
        int best_gt = -1;
        for (size_t j = 0; j < gt->size(); ++j) {
          const float overlap = detection::JaccardOverlap(b, (*gt)[j], !in_pixels);
          if (overlap > best) best = overlap, best_gt = static_cast<int>(j);
        }
        if (best >= overlap_threshold_) {
          if (evaluate_difficult_gt_ || !(*gt)[best_gt].difficult) {
            const bool first = !taken[best_gt];
            taken[best_gt] = true;
            y[3] = first ? 1.f : 0.f;
            y[4] = first ? 0.f : 1.f;
          }
        } else {
          y[3] = 0.f;
          y[4] = 1.f;
        }
        y += 5;
      }
    }
    if (in_pixels && ++count_ == sizes_.size()) count_ = 0;
  }
  return Status::Ok();
}

}  // namespace dtrain
