// The SSD fork's batch samplers: constraints decided by hand, drawn boxes within their bounds.
#include "detection/sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace dtrain::detection {
namespace {

NormalizedBox Box(float xmin, float ymin, float xmax, float ymax) {
  NormalizedBox b;
  b.xmin = xmin;
  b.ymin = ymin;
  b.xmax = xmax;
  b.ymax = ymax;
  return b;
}

TEST(SamplerTest, CoverageAndLocation) {
  // The left half of the image against its top-left quarter: the quarter is half of the half,
  // the half covers all of the quarter.
  const NormalizedBox half = Box(0, 0, 0.5f, 1), quarter = Box(0, 0, 0.5f, 0.5f);
  EXPECT_FLOAT_EQ(BoxCoverage(half, quarter), 0.5f);
  EXPECT_FLOAT_EQ(BoxCoverage(quarter, half), 1.f);
  EXPECT_FLOAT_EQ(BoxCoverage(quarter, Box(0.6f, 0.6f, 1, 1)), 0.f);
  const NormalizedBox located = LocateBox(Box(0.2f, 0.4f, 0.6f, 0.8f), Box(0.5f, 0, 1, 0.5f));
  EXPECT_FLOAT_EQ(located.xmin, 0.4f);
  EXPECT_FLOAT_EQ(located.ymin, 0.4f);
  EXPECT_FLOAT_EQ(located.xmax, 0.6f);
  EXPECT_FLOAT_EQ(located.ymax, 0.6f);
}

TEST(SamplerTest, AConstraintHoldsWhenOneObjectPassesEveryBoundItSets) {
  const NormalizedBox sampled = Box(0, 0, 0.5f, 0.5f);
  // Jaccard of sampled with a: 0.25 / 0.25 = 1; with b (the whole image): 0.25.
  const std::vector<NormalizedBox> objects = {Box(0, 0, 0.5f, 0.5f), Box(0, 0, 1, 1)};
  SampleConstraint none;
  EXPECT_TRUE(SatisfiesConstraint(sampled, {}, none));  // no bound: always
  SampleConstraint jaccard;
  jaccard.min_jaccard_overlap = 0.5f;
  EXPECT_TRUE(SatisfiesConstraint(sampled, objects, jaccard));
  EXPECT_FALSE(SatisfiesConstraint(sampled, {objects[1]}, jaccard));
  EXPECT_FALSE(SatisfiesConstraint(sampled, {}, jaccard));  // bounds, and no object
  // a passes the Jaccard bound but fails the object-coverage bound (it is fully covered); b
  // passes the object bound (a quarter of it) but fails Jaccard: no single object passes both.
  SampleConstraint both = jaccard;
  both.max_object_coverage = 0.5f;
  EXPECT_FALSE(SatisfiesConstraint(sampled, objects, both));
  SampleConstraint sample_coverage;
  sample_coverage.min_sample_coverage = 1.f;  // the sampled box wholly inside an object
  EXPECT_TRUE(SatisfiesConstraint(sampled, {objects[1]}, sample_coverage));
}

TEST(SamplerTest, DrawnBoxesKeepTheirScaleAndRatioBoundsInsideTheImage) {
  BatchSampler s;
  s.min_scale = 0.3f;
  s.max_scale = 1.f;
  s.min_aspect_ratio = 0.5f;
  s.max_aspect_ratio = 2.f;
  ASSERT_TRUE(ValidateBatchSampler(s).ok());
  Rng rng(7);
  for (int i = 0; i < 2000; ++i) {
    const NormalizedBox b = SampleBox(s, rng);
    const float w = b.xmax - b.xmin, h = b.ymax - b.ymin;
    const float scale = std::sqrt(w * h), ratio = w / h;
    ASSERT_GE(b.xmin, 0.f);
    ASSERT_GE(b.ymin, 0.f);
    ASSERT_LE(b.xmax, 1.f + 1e-6f);
    ASSERT_LE(b.ymax, 1.f + 1e-6f);
    ASSERT_GE(scale, 0.3f - 1e-5f);
    ASSERT_LE(scale, 1.f + 1e-5f);
    // The ratio is clamped to [scale^2, 1 / scale^2] so that the box fits the image.
    ASSERT_GE(ratio, std::max(0.5f, scale * scale) * (1 - 1e-4f));
    ASSERT_LE(ratio, std::min(2.f, 1 / (scale * scale)) * (1 + 1e-4f));
  }
}

TEST(SamplerTest, MaxSampleAndMaxTrialsBoundWhatIsKept) {
  const std::vector<NormalizedBox> objects = {Box(0.1f, 0.1f, 0.9f, 0.9f)};
  BatchSampler whole;  // scale 1, ratio 1: the whole image, always kept
  whole.max_sample = 1;
  BatchSampler crops;
  crops.min_scale = 0.3f;
  crops.max_trials = 50;
  crops.constraint.min_jaccard_overlap = 0.1f;
  crops.max_sample = 3;
  BatchSampler off;
  off.use_original_image = false;
  Rng rng(3);
  const std::vector<NormalizedBox> kept = GenerateBatchSamples(objects, {whole, crops, off}, rng);
  ASSERT_GE(kept.size(), 1u);
  ASSERT_LE(kept.size(), 4u);
  EXPECT_FLOAT_EQ(kept[0].xmin, 0.f);
  EXPECT_FLOAT_EQ(kept[0].xmax, 1.f);
  for (size_t i = 1; i < kept.size(); ++i) {
    EXPECT_GE(JaccardOverlap(kept[i], objects[0]), 0.1f);
  }
  BatchSampler impossible = crops;
  impossible.constraint.min_jaccard_overlap = 1.1f;  // no box can pass
  EXPECT_TRUE(GenerateBatchSamples(objects, {impossible}, rng).empty());
}

TEST(SamplerTest, SettingsWhereTheForkAbortsAreRefusedByField) {
  BatchSampler s;
  s.min_scale = 0;
  EXPECT_EQ(ValidateBatchSampler(s).message(), "batch_sampler: sampler.min_scale must be > 0");
  s = BatchSampler();
  s.max_scale = 1.5f;
  EXPECT_EQ(ValidateBatchSampler(s).message(), "batch_sampler: sampler.max_scale must be <= 1");
  s = BatchSampler();
  s.min_scale = 0.5f;
  s.max_scale = 0.4f;
  EXPECT_EQ(ValidateBatchSampler(s).message(),
            "batch_sampler: sampler.max_scale must be >= min_scale");
  s = BatchSampler();
  s.max_aspect_ratio = std::numeric_limits<float>::infinity();
  EXPECT_EQ(ValidateBatchSampler(s).message(),
            "batch_sampler: sampler.max_aspect_ratio must be finite and >= min_aspect_ratio");
  s = BatchSampler();
  s.min_aspect_ratio = std::nanf("");
  EXPECT_EQ(ValidateBatchSampler(s).message(),
            "batch_sampler: sampler.min_aspect_ratio must be > 0");
  s = BatchSampler();
  s.max_trials = 4000000000u;
  EXPECT_EQ(ValidateBatchSampler(s).message(),
            "batch_sampler: max_trials 4000000000 is absurd (at most 1000000)");
}

}  // namespace
}  // namespace dtrain::detection
