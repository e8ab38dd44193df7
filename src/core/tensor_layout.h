// TensorLayout: an arrangement of a tensor's values other than plain row-major, such as oneDNN's
// channel-blocked nChw16c, in which consecutive kernels that share it pass activations along
// without converting (core/tensor.h keeps a tensor's values in at most one such layout besides
// the plain one). A layout knows its size and converts to and from plain; the kernels that use
// it implement it (kernels/onednn/memory_layout.h), so core depends on no engine.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace dtrain {

class TensorLayout {
 public:
  virtual ~TensorLayout() = default;
  // Bytes a buffer in this layout takes (blocked layouts pad the channels to whole blocks).
  virtual size_t bytes() const = 0;
  // Whether `other` arranges the same values in the same bytes.
  virtual bool Equals(const TensorLayout& other) const = 0;
  virtual void ToPlain(const float* from, float* plain) const = 0;
  virtual void FromPlain(const float* plain, float* to) const = 0;
  // For messages and tests: "nChw16c 32x64x56x56".
  virtual std::string name() const = 0;
};

// Null means plain row-major.
using LayoutPtr = std::shared_ptr<const TensorLayout>;

inline bool SameLayout(const LayoutPtr& a, const LayoutPtr& b) {
  if (!a || !b) return !a && !b;
  return a == b || a->Equals(*b);
}

}  // namespace dtrain
