// A steady-state training iteration allocates no memory for data: after the first
// iterations have sized every tensor, scratch arena and oneDNN primitive, further Solver steps
// make no C++ heap allocation in dtrain's own code (reference engine: none at all). oneDNN 2.6's
// primitive execute builds small per-call bookkeeping (its argument map, std::function wrappers)
// on the heap; with the oneDNN engine the test bounds those to small blocks, so no tensor-sized
// buffer is ever allocated per step. Counted by replacing the global operator new in this test
// binary (counting is off outside the measured region; C-library allocations are not seen).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "core/proto_io.h"
#include "solver/solver.h"

namespace {

std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
std::atomic<size_t> largest{0};

}  // namespace

// The replacements pair malloc with free; GCC cannot see that operator new is ours too.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void* operator new(std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) {
    allocations.fetch_add(1);
    size_t seen = largest.load();
    while (size > seen && !largest.compare_exchange_weak(seen, size)) {
    }
  }
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace dtrain {
namespace {

// Every layer type with a oneDNN kernel, in a net of realistic shape; "e" folds the BatchNorm,
// Scale and ReLU after it on the oneDNN engine and the depthwise "d" computes its own
// (kernels/conv_batch_norm.h).
const char kSolver[] = R"(
  base_lr: 0.001 momentum: 0.9 weight_decay: 0.0005 lr_policy: "fixed" display: 0
  max_iter: 100 random_seed: 1 snapshot_after_train: false
  net_param {
    layer { name: "data" type: "DummyData" top: "data" top: "label"
            dummy_data_param { refill: false shape { dim: 8 dim: 3 dim: 56 dim: 56 }
                               shape { dim: 8 } data_filler { type: "gaussian" std: 1 }
                               data_filler { type: "constant" value: 1 } } }
    layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
            convolution_param { num_output: 16 kernel_size: 3 pad: 1
                                weight_filler { type: "xavier" } } }
    layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
    layer { name: "d" type: "Convolution" bottom: "conv1" top: "d"
            convolution_param { num_output: 16 group: 16 kernel_size: 3 pad: 1 bias_term: false
                                weight_filler { type: "xavier" } } }
    layer { name: "d_bn" type: "BatchNorm" bottom: "d" top: "d" }
    layer { name: "d_scale" type: "Scale" bottom: "d" top: "d" scale_param { bias_term: true } }
    layer { name: "d_relu" type: "ReLU" bottom: "d" top: "d" }
    layer { name: "norm1" type: "LRN" bottom: "d" top: "norm1" }
    layer { name: "pool1" type: "Pooling" bottom: "norm1" top: "pool1"
            pooling_param { pool: MAX kernel_size: 3 stride: 2 } }
    layer { name: "a" type: "Convolution" bottom: "pool1" top: "a"
            convolution_param { num_output: 8 kernel_size: 1 weight_filler { type: "xavier" } } }
    layer { name: "b" type: "Convolution" bottom: "pool1" top: "b"
            convolution_param { num_output: 8 kernel_size: 3 pad: 1
                                weight_filler { type: "xavier" } } }
    layer { name: "cat" type: "Concat" bottom: "a" bottom: "b" top: "cat" }
    layer { name: "bn" type: "BatchNorm" bottom: "cat" top: "cat" }
    layer { name: "sum" type: "Eltwise" bottom: "cat" bottom: "pool1" top: "sum" }
    layer { name: "e" type: "Convolution" bottom: "sum" top: "e"
            convolution_param { num_output: 128 kernel_size: 1 bias_term: false
                                weight_filler { type: "xavier" } } }
    layer { name: "e_bn" type: "BatchNorm" bottom: "e" top: "e" }
    layer { name: "e_scale" type: "Scale" bottom: "e" top: "e" scale_param { bias_term: true } }
    layer { name: "e_relu" type: "ReLU" bottom: "e" top: "e" }
    layer { name: "ip" type: "InnerProduct" bottom: "e" top: "ip"
            inner_product_param { num_output: 10 weight_filler { type: "xavier" } } }
    layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
  })";

struct Counts {
  long allocations;
  size_t largest;
};

// Allocations during 3 training steps after 2 warm-up steps, on `engine`.
Counts CountSteadyStateAllocations(const std::string& engine) {
  SolverParameter param;
  EXPECT_TRUE(ParseTextProto(kSolver, "solver", &param).ok());
  param.set_forced_engine(engine);
  auto solver = CreateSolver(param);
  EXPECT_TRUE(solver.ok()) << solver.status().message();
  if (!solver.ok()) return {-1, 0};
  EXPECT_TRUE((*solver)->Step(2).ok());  // sizes everything
  allocations = 0;
  largest = 0;
  counting = true;
  const Status status = (*solver)->Step(3);
  counting = false;
  EXPECT_TRUE(status.ok()) << status.message();
  return {allocations.load(), largest.load()};
}

TEST(SteadyState, ReferenceIterationsAllocateNothing) {
  const Counts counts = CountSteadyStateAllocations("REFERENCE");
  EXPECT_EQ(counts.allocations, 0) << "largest " << counts.largest << " bytes";
}

TEST(SteadyState, OnednnIterationsAllocateNoDataBuffers) {
  // The smallest tensor of the net (the 8 x 10 scores) is 320 bytes, activations are >= 16 KiB;
  // oneDNN's bookkeeping blocks are a few hundred bytes.
  const Counts counts = CountSteadyStateAllocations("ONEDNN");
  EXPECT_LE(counts.largest, 1024u) << counts.allocations << " allocations";
}

}  // namespace
}  // namespace dtrain
