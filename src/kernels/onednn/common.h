// Plumbing shared by the oneDNN kernels (every oneDNN call in dtrain lives in kernels/onednn/).
//
// Tensors arrive as the caller's float32 buffers, dense row-major (NCHW for 4-D) or in the
// layout the kernel named for them (layouts(), memory_layout.h); a kernel wraps them in oneDNN
// memory objects whose data handle is swapped per call, runs primitives created once per
// problem, and moves data to and from any other layout a primitive prefers (Relayout), in
// regions of the net's Scratch that only live for one call (core/scratch.h). oneDNN
// errors become a Status at creation, where a kernel can decline; a failure after creation is a
// broken invariant and aborts. Kernels are not thread-safe; each owns its engine and stream.
#pragma once

#include <dnnl.hpp>
#include <memory>
#include <string>
#include <unordered_map>

#include "core/scratch.h"
#include "core/status.h"

namespace dtrain::onednn {

using Dims = dnnl::memory::dims;
using Args = std::unordered_map<int, dnnl::memory>;

// A CPU engine and an in-order stream on it.
struct CpuContext {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

// Dense row-major float32 of these dims (nchw for 4-D, nc for 2-D, ...).
dnnl::memory::desc PlainDesc(const Dims& dims);
// Whether oneDNN runs AVX-512 code here, whose blocked layouts hold 16 channels (else 8).
bool BlocksOf16Channels();
// The channel-blocked 4-D layout oneDNN's vectorised kernels prefer on this CPU (nChw16c with
// AVX-512, else nChw8c), for primitives that take no `any` layout for their input.
dnnl::memory::desc BlockedDesc4d(const Dims& dims);
// A memory object over the caller's buffers; point it at data with Bind before each use.
dnnl::memory UserMemory(const CpuContext& context, const Dims& dims);
inline void Bind(dnnl::memory& memory, const float* data) {
  memory.set_data_handle(const_cast<float*>(data));
}

// Attributes that make a primitive take its scratchpad (oneDNN's working memory, e.g. Winograd's
// transformed tiles) from the caller as DNNL_ARG_SCRATCHPAD instead of oneDNN's own global buffer,
// so that the net's Scratch holds it, sized at creation (pd.scratchpad_desc()) and shared with
// the relaid tensors of the same call.
dnnl::primitive_attr UserScratchpad();

// Primitive descriptors in both oneDNN generations dtrain builds against: Debian's 2.x (the
// default) makes one from an operation descriptor of the operation's arguments, oneDNN 3.x (an
// optional build, scripts/install-onednn3.sh) from the engine and the same arguments. Where the
// arguments differ between them (3.x adds the dst desc to normalisations, eltwise, LRN and
// softmax), the kernel passes each generation its own under DTRAIN_ONEDNN3.
#if DNNL_VERSION_MAJOR >= 3
#define DTRAIN_ONEDNN3 1
#else
#define DTRAIN_ONEDNN3 0
#endif

template <typename Primitive, typename... Operation>
typename Primitive::primitive_desc ForwardDesc(const CpuContext& context,
                                               const dnnl::primitive_attr& attr,
                                               const Operation&... operation) {
#if DTRAIN_ONEDNN3
  return typename Primitive::primitive_desc(context.engine, operation..., attr);
#else
  return typename Primitive::primitive_desc(typename Primitive::desc(operation...), attr,
                                            context.engine);
#endif
}

// A backward primitive's descriptor, with its forward one as the hint.
template <typename Primitive, typename Hint, typename... Operation>
typename Primitive::primitive_desc BackwardDesc(const CpuContext& context,
                                                const dnnl::primitive_attr& attr, const Hint& hint,
                                                const Operation&... operation) {
#if DTRAIN_ONEDNN3
  return typename Primitive::primitive_desc(context.engine, operation..., hint, attr);
#else
  return typename Primitive::primitive_desc(typename Primitive::desc(operation...), attr,
                                            context.engine, hint);
#endif
}

// The dims of a memory desc (named differently in the two generations).
inline Dims DimsOf(const dnnl::memory::desc& desc) {
#if DTRAIN_ONEDNN3
  return desc.get_dims();
#else
  return desc.dims();
#endif
}

// Runs `create` (which builds primitives and returns a Status), turning a oneDNN error into a
// Status that says which primitive declined and why.
template <typename Create>
Status Guarded(const char* what, Create create) {
  try {
    return create();
  } catch (const dnnl::error& e) {
    return Unsupported(std::string("oneDNN ") + what + ": " + e.what());
  }
}

// The Create of every kernel: constructs it, runs its Init under Guarded and returns it as the
// op's kernel interface.
template <typename Interface, typename Kernel, typename... Problem>
StatusOr<std::unique_ptr<Interface>> CreateKernel(const char* what, const Problem&... problem) {
  std::unique_ptr<Kernel> kernel(new Kernel());
  DT_RETURN_IF_ERROR(Guarded(what, [&] { return kernel->Init(problem...); }));
  return std::unique_ptr<Interface>(std::move(kernel));
}

// Moves one tensor between the caller's plain layout (`user`) and the layout a primitive wants
// (`inner`). When they are equal, nothing is copied and the user's buffer is used directly;
// otherwise the inner copy lives in a region the call takes from `scratch` (so the kernel must
// reserve scratch_bytes() for each call that uses it, and Reset the scratch at its start).
class Relayout {
 public:
  Relayout() = default;
  Relayout(const CpuContext& context, const dnnl::memory::desc& user,
           const dnnl::memory::desc& inner, Scratch* scratch);

  // Scratch bytes one In or Target takes.
  size_t scratch_bytes() const { return reorders_ ? Scratch::Rounded(inner_bytes_) : 0; }
  // Memory holding `data` in the inner layout (a reordered copy when the layouts differ).
  dnnl::memory& In(CpuContext& context, const float* data);
  // Memory a primitive writes its inner-layout result to; `data` receives it after Out.
  dnnl::memory& Target(float* data);
  // Lands the result written to Target(data) in `data` (a reorder when the layouts differ).
  void Out(CpuContext& context);

 private:
  bool reorders_ = false;
  size_t inner_bytes_ = 0;
  Scratch* scratch_ = nullptr;
  dnnl::memory user_, inner_;
  dnnl::reorder to_inner_, to_user_;
};

// The Scratch a kernel uses: the net's when given, else one of its own (a layer built alone, as
// in tests).
class ScratchRef {
 public:
  explicit ScratchRef(Scratch* shared)
      : own_(shared ? nullptr : new Scratch()), scratch_(shared ? shared : own_.get()) {}
  Scratch* get() const { return scratch_; }

 private:
  std::unique_ptr<Scratch> own_;
  Scratch* scratch_;
};

// A primitive's output that the caller accumulates into (Caffe's parameter gradients are +=):
// the primitive writes a private buffer, AddTo adds it to the user's plain tensor.
class Accumulator {
 public:
  Accumulator() = default;
  Accumulator(const CpuContext& context, const dnnl::memory::desc& user,
              const dnnl::memory::desc& inner);

  dnnl::memory& target() { return inner_; }
  void AddTo(CpuContext& context, float* data);

 private:
  dnnl::memory user_, inner_;
  dnnl::reorder add_;
};

}  // namespace dtrain::onednn
