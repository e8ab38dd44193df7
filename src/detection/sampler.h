// The SSD fork's batch samplers (its util/sampler.cpp), as AnnotatedData's batch_sampler uses
// them: each BatchSampler draws up to max_trials boxes of random scale and aspect ratio inside
// the image and keeps those that satisfy its constraint against the image's objects, at most
// max_sample of them; the data layer then crops the image to one of all the kept boxes.
//
// A drawn box: scale s ~ U[min_scale, max_scale], aspect ratio r ~ U[min_aspect_ratio,
// max_aspect_ratio] clamped to [s^2, 1 / s^2], width s sqrt(r), height s / sqrt(r), its corner
// ~ U[0, 1 - width] x U[0, 1 - height]. A constraint holds when it sets no bound, or when some
// object passes every bound it sets: Jaccard overlap with the box, the share of the box the
// object covers (sample coverage) and the share of the object the box covers (object coverage).
// Plain values and a caller's Rng; thread-safe for distinct Rngs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/status.h"
#include "detection/box.h"

namespace dtrain::detection {

struct SampleConstraint {
  std::optional<float> min_jaccard_overlap, max_jaccard_overlap;
  std::optional<float> min_sample_coverage, max_sample_coverage;
  std::optional<float> min_object_coverage, max_object_coverage;
};

struct BatchSampler {
  bool use_original_image = true;  // false: the sampler draws nothing (as in the fork)
  float min_scale = 1, max_scale = 1;
  float min_aspect_ratio = 1, max_aspect_ratio = 1;
  SampleConstraint constraint;
  std::optional<uint32_t> max_sample;  // unset: no bound
  uint32_t max_trials = 100;
};

// Where the fork aborts: min_scale <= 0, max_scale > 1 or < min_scale, min_aspect_ratio <= 0,
// max_aspect_ratio < min_aspect_ratio or not finite; also a max_trials above 10^6 (each trial
// draws and tests a box; the fork loops as long as it is told). The message names the field.
Status ValidateBatchSampler(const BatchSampler& sampler);

// The share of `a` that `b` covers (0 where they do not overlap or `a` has no area).
float BoxCoverage(const NormalizedBox& a, const NormalizedBox& b);

// `box`, given in the coordinates of `source` ([0, 1] spans source), in the image's.
NormalizedBox LocateBox(const NormalizedBox& source, const NormalizedBox& box);

bool SatisfiesConstraint(const NormalizedBox& sampled, const std::vector<NormalizedBox>& objects,
                         const SampleConstraint& constraint);

// One box drawn as above.
NormalizedBox SampleBox(const BatchSampler& sampler, Rng& rng);

// The kept boxes of every sampler in turn, for an image whose objects are `objects`.
std::vector<NormalizedBox> GenerateBatchSamples(const std::vector<NormalizedBox>& objects,
                                                const std::vector<BatchSampler>& samplers,
                                                Rng& rng);

}  // namespace dtrain::detection
