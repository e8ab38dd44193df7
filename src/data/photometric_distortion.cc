#include "data/photometric_distortion.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace dtrain {
namespace {

constexpr int kHsvShift = 12;

// OpenCV's division tables: 255 * 2^12 / v and 180 * 2^12 / (6 diff), rounded (0 for 0).
struct HsvTables {
  std::array<int, 256> saturation{}, hue{};
  HsvTables() {
    for (int i = 1; i < 256; ++i) {
      saturation[i] = static_cast<int>(std::lrint((255 << kHsvShift) / (1.0 * i)));
      hue[i] = static_cast<int>(std::lrint((180 << kHsvShift) / (6.0 * i)));
    }
  }
};

const HsvTables& Tables() {
  static const HsvTables tables;
  return tables;
}

uint8_t Saturate(float value) {
  return static_cast<uint8_t>(std::clamp(std::lrint(value), 0L, 255L));
}

// convertTo(alpha, beta) of one 8-bit value.
uint8_t Scaled(uint8_t v, float alpha, float beta) {
  return Saturate(static_cast<float>(v) * alpha + beta);
}

const char kField[] = "transform_param.distort_param.";

// %g: "0.5", "1e+38", "nan".
std::string Number(float value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

}  // namespace

void BgrToHsv(const uint8_t* bgr, uint8_t* hsv) {
  const HsvTables& tables = Tables();
  const int b = bgr[0], g = bgr[1], r = bgr[2];
  const int v = std::max({b, g, r});
  const int diff = v - std::min({b, g, r});
  const int s = (diff * tables.saturation[v] + (1 << (kHsvShift - 1))) >> kHsvShift;
  // The hue's sector: from red (between magenta and yellow), green or blue, whichever is max,
  // red winning ties, then green.
  int h;
  if (v == r) {
    h = g - b;
  } else if (v == g) {
    h = b - r + 2 * diff;
  } else {
    h = r - g + 4 * diff;
  }
  h = (h * tables.hue[diff] + (1 << (kHsvShift - 1))) >> kHsvShift;
  if (h < 0) h += 180;
  hsv[0] = static_cast<uint8_t>(std::clamp(h, 0, 255));
  hsv[1] = static_cast<uint8_t>(s);
  hsv[2] = static_cast<uint8_t>(v);
}

void HsvToBgr(const uint8_t* hsv, uint8_t* bgr) {
  float h = hsv[0];
  const float s = hsv[1] * (1.f / 255.f);
  const float v = hsv[2] * (1.f / 255.f);
  float b = v, g = v, r = v;
  if (s != 0) {
    // Which of v, v (1 - s), v (1 - s t), v (1 - s (1 - t)) each of b, g, r takes, by sector.
    static const int kSectorTaps[6][3] = {{1, 3, 0}, {1, 0, 2}, {3, 0, 1},
                                          {0, 2, 1}, {0, 1, 3}, {2, 1, 0}};
    h *= 6.f / 180.f;
    h = std::fmod(h, 6.f);
    int sector = static_cast<int>(std::floor(h));
    h -= static_cast<float>(sector);
    if (static_cast<unsigned>(sector) >= 6u) {
      sector = 0;
      h = 0.f;
    }
    const float tab[4] = {v, v * (1.f - s), v * (1.f - s * h), v * (1.f - s * (1.f - h))};
    b = tab[kSectorTaps[sector][0]];
    g = tab[kSectorTaps[sector][1]];
    r = tab[kSectorTaps[sector][2]];
  }
  bgr[0] = Saturate(b * 255.f);
  bgr[1] = Saturate(g * 255.f);
  bgr[2] = Saturate(r * 255.f);
}

void AdjustBrightness(float delta, uint8_t* bgr, size_t pixels) {
  if (!(std::fabs(delta) > 0)) return;
  for (size_t i = 0; i < 3 * pixels; ++i) bgr[i] = Scaled(bgr[i], 1.f, delta);
}

void AdjustContrast(float factor, uint8_t* bgr, size_t pixels) {
  if (!(std::fabs(factor - 1.f) > 1e-3f)) return;
  for (size_t i = 0; i < 3 * pixels; ++i) bgr[i] = Scaled(bgr[i], factor, 0.f);
}

void AdjustSaturation(float factor, uint8_t* bgr, size_t pixels) {
  for (size_t i = 0; i < pixels; ++i) {
    uint8_t hsv[3];
    BgrToHsv(bgr + 3 * i, hsv);
    hsv[1] = Scaled(hsv[1], factor, 0.f);
    HsvToBgr(hsv, bgr + 3 * i);
  }
}

void AdjustHue(float delta, uint8_t* bgr, size_t pixels) {
  if (!(std::fabs(delta) > 0)) return;
  for (size_t i = 0; i < pixels; ++i) {
    uint8_t hsv[3];
    BgrToHsv(bgr + 3 * i, hsv);
    hsv[0] = Scaled(hsv[0], 1.f, delta);
    HsvToBgr(hsv, bgr + 3 * i);
  }
}

Status ValidateDistortion(const DistortionParameter& p) {
  const std::pair<const char*, float> values[] = {{"brightness_prob", p.brightness_prob()},
                                                  {"brightness_delta", p.brightness_delta()},
                                                  {"contrast_prob", p.contrast_prob()},
                                                  {"contrast_lower", p.contrast_lower()},
                                                  {"contrast_upper", p.contrast_upper()},
                                                  {"hue_prob", p.hue_prob()},
                                                  {"hue_delta", p.hue_delta()},
                                                  {"saturation_prob", p.saturation_prob()},
                                                  {"saturation_lower", p.saturation_lower()},
                                                  {"saturation_upper", p.saturation_upper()},
                                                  {"random_order_prob", p.random_order_prob()}};
  for (const auto& [name, value] : values) {
    if (!(std::fabs(value) <= 1e30f)) {
      return InvalidArgument(std::string(kField) + name + " " + Number(value) +
                             " must be a finite number of at most 1e30 in magnitude");
    }
  }
  auto non_negative = [](const char* name, float value) {
    if (value >= 0) return Status::Ok();
    return InvalidArgument(std::string(kField) + name + " " + Number(value) +
                           " must be non-negative");
  };
  auto range = [&](const char* lower_name, float lower, const char* upper_name, float upper) {
    DT_RETURN_IF_ERROR(non_negative(lower_name, lower));
    if (upper >= lower) return Status::Ok();
    return InvalidArgument(std::string(kField) + upper_name + " " + Number(upper) +
                           " is less than " + lower_name + " " + Number(lower));
  };
  if (p.brightness_prob() > 0)
    DT_RETURN_IF_ERROR(non_negative("brightness_delta", p.brightness_delta()));
  if (p.contrast_prob() > 0) {
    DT_RETURN_IF_ERROR(
        range("contrast_lower", p.contrast_lower(), "contrast_upper", p.contrast_upper()));
  }
  if (p.saturation_prob() > 0) {
    DT_RETURN_IF_ERROR(
        range("saturation_lower", p.saturation_lower(), "saturation_upper", p.saturation_upper()));
  }
  if (p.hue_prob() > 0) DT_RETURN_IF_ERROR(non_negative("hue_delta", p.hue_delta()));
  return Status::Ok();
}

void ApplyDistortion(const DistortionParameter& p, Rng& rng, uint8_t* bgr, size_t pixels) {
  auto brightness = [&] {
    if (rng.Uniform(0.f, 1.f) < p.brightness_prob()) {
      AdjustBrightness(rng.Uniform(-p.brightness_delta(), p.brightness_delta()), bgr, pixels);
    }
  };
  auto contrast = [&] {
    if (rng.Uniform(0.f, 1.f) < p.contrast_prob()) {
      AdjustContrast(rng.Uniform(p.contrast_lower(), p.contrast_upper()), bgr, pixels);
    }
  };
  auto saturation = [&] {
    if (rng.Uniform(0.f, 1.f) < p.saturation_prob()) {
      AdjustSaturation(rng.Uniform(p.saturation_lower(), p.saturation_upper()), bgr, pixels);
    }
  };
  auto hue = [&] {
    if (rng.Uniform(0.f, 1.f) < p.hue_prob()) {
      AdjustHue(rng.Uniform(-p.hue_delta(), p.hue_delta()), bgr, pixels);
    }
  };
  auto channel_order = [&] {
    if (!(rng.Uniform(0.f, 1.f) < p.random_order_prob())) return;
    int order[3] = {0, 1, 2};
    for (int i = 1; i < 3; ++i) std::swap(order[i], order[rng.UniformInt(i + 1)]);
    for (size_t i = 0; i < pixels; ++i) {
      uint8_t* pixel = bgr + 3 * i;
      const uint8_t old[3] = {pixel[0], pixel[1], pixel[2]};
      for (int c = 0; c < 3; ++c) pixel[c] = old[order[c]];
    }
  };
  if (rng.Uniform(0.f, 1.f) > 0.5f) {
    brightness();
    contrast();
    saturation();
    hue();
  } else {
    brightness();
    saturation();
    hue();
    contrast();
  }
  channel_order();
}

}  // namespace dtrain
