// Rng: a seeded pseudo-random generator (mt19937) with the draws dtrain needs.
//
// Every consumer owns its Rng (seeded from the solver's random_seed and its own index), so runs
// are reproducible and no random state is global. Not thread-safe; one owner per instance.
#pragma once

#include <cstdint>
#include <random>
#include <sstream>
#include <string>

namespace dtrain {

class Rng {
 public:
  explicit Rng(uint64_t seed = 5489u) : engine_(seed) {}

  void Seed(uint64_t seed) { engine_.seed(seed); }
  float Uniform(float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(engine_);
  }
  float Gaussian(float mean, float stddev) {
    return std::normal_distribution<float>(mean, stddev)(engine_);
  }
  bool Bernoulli(float p) { return Uniform(0.f, 1.f) < p; }
  // Uniform integer in [0, n).
  uint32_t UniformInt(uint32_t n) { return static_cast<uint32_t>(engine_() % n); }
  uint32_t Next() { return engine_(); }
  std::mt19937& engine() { return engine_; }

  // The full generator state as text, and back (for bit-exact resume from a snapshot).
  std::string Serialize() const {
    std::ostringstream out;
    out << engine_;
    return out.str();
  }
  bool Deserialize(const std::string& state) {
    std::istringstream in(state);
    in >> engine_;
    return !in.fail();
  }

 private:
  std::mt19937 engine_;
};

// A seed derived from a base seed and an index, so that consumers get independent streams.
inline uint64_t DeriveSeed(uint64_t base, uint64_t index) {
  uint64_t z = base + 0x9E3779B97F4A7C15ull * (index + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace dtrain
