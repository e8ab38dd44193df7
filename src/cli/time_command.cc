// dtrain time: Caffe's `caffe time`: per-layer forward/backward times, throughput, and the
// GFLOP/s of the layers that count their work (layer.h ForwardMacs), per layer type and in all.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/net_state_flags.h"
#include "core/logging.h"
#include "solver/net_loading.h"

namespace dtrain {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

struct LayerWork {
  double ms = 0;     // per iteration
  double flops = 0;  // per iteration
};

// "          conv1\tforward:    1.2345 ms,   98.7 GFLOP/s" (no rate for layers that count no work).
std::string LayerLine(const std::string& name, const char* pass, double ms, double flops) {
  char line[200];
  int n = std::snprintf(line, sizeof(line), "%15s\t%s: %9.4f ms.", name.c_str(), pass, ms);
  if (flops > 0 && ms > 0) {
    std::snprintf(line + n - 1, sizeof(line) - n + 1, ", %7.1f GFLOP/s", flops / ms / 1e6);
  }
  return line;
}

Status RunTime(const Flags& flags) {
  DT_RETURN_IF_ERROR(ApplyThreadsFlag(flags));
  DT_ASSIGN_OR_RETURN(int iterations, flags.GetInt("iterations"));
  if (iterations <= 0) return InvalidArgument("--iterations must be positive");
  DT_ASSIGN_OR_RETURN(const NetState state, NetStateFromFlags(flags, TRAIN));
  DT_ASSIGN_OR_RETURN(auto net,
                      LoadNetForPhase(flags.Get("model"), state, flags.Get("weights"),
                                      flags.GetBool("weights-strict"), flags.Get("engine")));
  LogEngineChoices(*net, flags.GetBool("verbose"));
  const auto& layers = net->layers();
  const size_t n = layers.size();
  int need_backward = 0;
  for (size_t i = 0; i < n; ++i) need_backward += net->layer_need_backward(static_cast<int>(i));
  // A deploy net (no loss) computes no gradient, so its backward times would all read 0.
  if (need_backward == 0) {
    DT_LOG(WARNING) << "No layer needs backward (the net has no loss and does not set "
                       "force_backward: true): backward is skipped and only forward is timed; "
                       "add force_backward: true to the net to time backward too";
  }

  // One untimed pass warms caches and settles shapes.
  DT_LOG(INFO) << "Performing Forward";
  DT_ASSIGN_OR_RETURN(float initial_loss, net->Forward());
  DT_LOG(INFO) << "Initial loss: " << initial_loss;
  DT_LOG(INFO) << "Performing Backward";
  net->Backward();
  DT_RETURN_IF_ERROR(net->TakeBackwardError());

  std::vector<double> forward_ms(n, 0), backward_ms(n, 0);
  double total_ms = 0;
  for (int it = 0; it < iterations; ++it) {
    const auto iter_start = Clock::now();
    for (size_t i = 0; i < n; ++i) {
      const auto t0 = Clock::now();
      float loss;
      DT_RETURN_IF_ERROR(layers[i]->Forward(net->bottom_vecs()[i], net->top_vecs()[i], &loss));
      forward_ms[i] += Ms(t0, Clock::now());
    }
    for (size_t i = n; i-- > 0;) {
      if (!net->layer_need_backward(static_cast<int>(i))) continue;
      const auto t0 = Clock::now();
      net->BackwardLayer(static_cast<int>(i));
      backward_ms[i] += Ms(t0, Clock::now());
    }
    DT_RETURN_IF_ERROR(net->TakeBackwardError());
    const double ms = Ms(iter_start, Clock::now());
    total_ms += ms;
    DT_LOG(INFO) << "Iteration: " << it + 1 << " forward-backward time: " << ms << " ms.";
  }
  DT_LOG(INFO) << "Average time per layer: ";
  double forward_total = 0, backward_total = 0;
  // Work of the layers that count it (Convolution, Deconvolution, InnerProduct, the recurrent
  // ones): forward MACs, and backward MACs for each gradient computed (weights, and data where a
  // bottom needs it), per layer type.
  std::map<std::string, LayerWork> work_by_type;
  for (size_t i = 0; i < n; ++i) {
    const Layer& layer = *layers[i];
    const double forward_flops = 2 * layer.ForwardMacs();
    const std::vector<bool>& need = net->bottom_need_backward(static_cast<int>(i));
    bool weights_grad = false;
    for (size_t b = 0; b < layer.blobs().size(); ++b) weights_grad |= layer.param_propagate_down(b);
    const bool data_grad = std::find(need.begin(), need.end(), true) != need.end();
    const double backward_flops = net->layer_need_backward(static_cast<int>(i))
                                      ? forward_flops * (weights_grad + data_grad)
                                      : 0;
    const double f_ms = forward_ms[i] / iterations, b_ms = backward_ms[i] / iterations;
    DT_LOG(INFO) << LayerLine(net->layer_names()[i], "forward", f_ms, forward_flops);
    DT_LOG(INFO) << LayerLine(net->layer_names()[i], "backward", b_ms, backward_flops);
    forward_total += forward_ms[i];
    backward_total += backward_ms[i];
    if (forward_flops > 0) {
      LayerWork& work = work_by_type[layer.type()];
      work.ms += f_ms + b_ms;
      work.flops += forward_flops + backward_flops;
    }
  }
  LayerWork all;
  for (const auto& [type, work] : work_by_type) {
    if (work.ms <= 0) continue;
    DT_LOG(INFO) << type << " layers: " << work.ms << " ms forward+backward, "
                 << work.flops / work.ms / 1e6 << " GFLOP/s";
    all.ms += work.ms;
    all.flops += work.flops;
  }
  if (work_by_type.size() > 1 && all.ms > 0) {
    DT_LOG(INFO) << "Layers that count their work: " << all.ms << " ms forward+backward, "
                 << all.flops / all.ms / 1e6 << " GFLOP/s";
  }
  const double per_iter = total_ms / iterations;
  const int batch = net->top_vecs().empty() || net->top_vecs()[0].empty() ||
                            net->top_vecs()[0][0]->num_axes() == 0
                        ? 1
                        : net->top_vecs()[0][0]->shape(0);
  DT_LOG(INFO) << "Average Forward pass: " << forward_total / iterations << " ms.";
  DT_LOG(INFO) << "Average Backward pass: " << backward_total / iterations << " ms.";
  DT_LOG(INFO) << "Average Forward-Backward: " << per_iter << " ms.";
  DT_LOG(INFO) << "Total Time: " << total_ms << " ms.";
  DT_LOG(INFO) << "Throughput: " << (per_iter > 0 ? batch * 1000.0 / per_iter : 0)
               << " images/s (batch " << batch << ")";
  return Status::Ok();
}

}  // namespace

Command TimeCommand() {
  return {"time",
          "time a net's forward and backward passes, layer by layer",
          "",
          {{"model", "net prototxt (TRAIN phase is timed)"},
           StageFlag(),
           LevelFlag(),
           {"weights", "optional .caffemodel"},
           {"weights-strict",
            "a layer of the net or of the file with parameters and no namesake "
            "on the other side is an error",
            true},
           {"iterations", "timed iterations", false, "50"},
           {"threads",
            "compute threads; 0 = $OMP_NUM_THREADS if set, else the usable cores other processes "
            "leave idle",
            false, "0"},
           {"engine",
            "force one engine on every layer: onednn or reference (default: each "
            "layer's own choice)"},
           {"verbose", "list which implementation each layer runs and why others declined", true},
           {"gpu", "accepted for Caffe compatibility; dtrain runs on the CPU"}},
          RunTime};
}

}  // namespace dtrain
