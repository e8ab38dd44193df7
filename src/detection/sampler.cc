#include "detection/sampler.h"

#include <algorithm>
#include <cmath>

namespace dtrain::detection {

Status ValidateBatchSampler(const BatchSampler& s) {
  const auto bad = [](const std::string& what) {
    return InvalidArgument("batch_sampler: " + what);
  };
  if (!(s.min_scale > 0)) return bad("sampler.min_scale must be > 0");
  if (!(s.max_scale <= 1)) return bad("sampler.max_scale must be <= 1");
  if (!(s.max_scale >= s.min_scale)) return bad("sampler.max_scale must be >= min_scale");
  if (!(s.min_aspect_ratio > 0)) return bad("sampler.min_aspect_ratio must be > 0");
  if (!(s.max_aspect_ratio >= s.min_aspect_ratio) || !std::isfinite(s.max_aspect_ratio)) {
    return bad("sampler.max_aspect_ratio must be finite and >= min_aspect_ratio");
  }
  if (s.max_trials > 1000000) {
    return bad("max_trials " + std::to_string(s.max_trials) + " is absurd (at most 1000000)");
  }
  return Status::Ok();
}

float BoxCoverage(const NormalizedBox& a, const NormalizedBox& b) {
  const float inter = BoxSize(IntersectBoxes(a, b));
  if (!(inter > 0)) return 0.f;
  const float size = BoxSize(a);
  return size > 0 ? inter / size : 0.f;
}

NormalizedBox LocateBox(const NormalizedBox& source, const NormalizedBox& box) {
  const float width = source.xmax - source.xmin, height = source.ymax - source.ymin;
  NormalizedBox out = box;
  out.xmin = source.xmin + box.xmin * width;
  out.ymin = source.ymin + box.ymin * height;
  out.xmax = source.xmin + box.xmax * width;
  out.ymax = source.ymin + box.ymax * height;
  return out;
}

namespace {

// Whether `value` lies within the bounds that are set.
bool Within(float value, const std::optional<float>& low, const std::optional<float>& high) {
  return !(low && value < *low) && !(high && value > *high);
}

}  // namespace

bool SatisfiesConstraint(const NormalizedBox& sampled, const std::vector<NormalizedBox>& objects,
                         const SampleConstraint& c) {
  const bool jaccard = c.min_jaccard_overlap || c.max_jaccard_overlap;
  const bool sample = c.min_sample_coverage || c.max_sample_coverage;
  const bool object = c.min_object_coverage || c.max_object_coverage;
  if (!jaccard && !sample && !object) return true;
  for (const NormalizedBox& o : objects) {
    if (jaccard &&
        !Within(JaccardOverlap(sampled, o), c.min_jaccard_overlap, c.max_jaccard_overlap)) {
      continue;
    }
    if (sample && !Within(BoxCoverage(sampled, o), c.min_sample_coverage, c.max_sample_coverage)) {
      continue;
    }
    if (object && !Within(BoxCoverage(o, sampled), c.min_object_coverage, c.max_object_coverage)) {
      continue;
    }
    return true;
  }
  return false;
}

NormalizedBox SampleBox(const BatchSampler& s, Rng& rng) {
  const float scale = rng.Uniform(s.min_scale, s.max_scale);
  float ratio = rng.Uniform(s.min_aspect_ratio, s.max_aspect_ratio);
  ratio = std::max<float>(ratio, std::pow(scale, 2.));
  ratio = std::min<float>(ratio, 1 / std::pow(scale, 2.));
  const float width = scale * std::sqrt(ratio), height = scale / std::sqrt(ratio);
  // A box as wide as the image can come out a rounding error wider (the fork's uniform draw
  // then aborts on its reversed bounds): its corner is 0.
  const float x = rng.Uniform(0.f, std::max(0.f, 1 - width));
  const float y = rng.Uniform(0.f, std::max(0.f, 1 - height));
  NormalizedBox box;
  box.xmin = x;
  box.ymin = y;
  box.xmax = x + width;
  box.ymax = y + height;
  return box;
}

std::vector<NormalizedBox> GenerateBatchSamples(const std::vector<NormalizedBox>& objects,
                                                const std::vector<BatchSampler>& samplers,
                                                Rng& rng) {
  const NormalizedBox whole{0, 0, 1, 1};
  std::vector<NormalizedBox> kept;
  for (const BatchSampler& s : samplers) {
    if (!s.use_original_image) continue;
    uint32_t found = 0;
    for (uint32_t trial = 0; trial < s.max_trials; ++trial) {
      if (s.max_sample && found >= *s.max_sample) break;
      const NormalizedBox box = LocateBox(whole, SampleBox(s, rng));
      if (SatisfiesConstraint(box, objects, s.constraint)) {
        ++found;
        kept.push_back(box);
      }
    }
  }
  return kept;
}

}  // namespace dtrain::detection
