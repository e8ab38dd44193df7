// dtrain test: Caffe's `caffe test`: score a trained net over N batches (the mean of each output,
// the mAP of detection outputs).
#include <vector>

#include "cli/command.h"
#include "cli/net_state_flags.h"
#include "core/logging.h"
#include "solver/detection_scores.h"
#include "solver/net_loading.h"

namespace dtrain {
namespace {

Status RunTest(const Flags& flags) {
  DT_RETURN_IF_ERROR(ApplyThreadsFlag(flags));
  DT_ASSIGN_OR_RETURN(int iterations, flags.GetInt("iterations"));
  if (iterations <= 0) return InvalidArgument("--iterations must be positive");
  DT_ASSIGN_OR_RETURN(const NetState state, NetStateFromFlags(flags, TEST));
  DT_ASSIGN_OR_RETURN(auto net,
                      LoadNetForPhase(flags.Get("model"), state, flags.Get("weights"),
                                      flags.GetBool("weights-strict"), flags.Get("engine")));
  LogEngineChoices(*net, flags.GetBool("verbose"));
  DT_LOG(INFO) << "Running for " << iterations << " iterations.";
  // DetectionEvaluate outputs are scored by their mAP over all batches (the SSD fork's solver
  // does the same with eval_type "detection"); every other output by its mean.
  const std::vector<bool> detections = DetectionEvaluationOutputs(*net);
  DT_ASSIGN_OR_RETURN(const detection::ApVersion version,
                      detection::ParseApVersion(flags.Get("ap-version")));
  DetectionScores scores(static_cast<int>(detections.size()));
  std::vector<double> sums;
  std::vector<std::string> names;
  std::vector<float> weights;
  double loss = 0;
  for (int i = 0; i < iterations; ++i) {
    DT_ASSIGN_OR_RETURN(float l, net->Forward());
    loss += l;
    size_t k = 0;
    for (size_t o = 0; o < detections.size(); ++o) {
      const int id = net->output_blob_indices()[o];
      const Tensor* blob = net->blob(id);
      if (detections[o]) {
        DT_RETURN_IF_ERROR(scores.Add(static_cast<int>(o), *blob, net->blob_names()[id]));
        continue;
      }
      for (int64_t j = 0; j < blob->count(); ++j, ++k) {
        if (sums.size() <= k) {
          sums.push_back(0);
          names.push_back(net->blob_names()[id]);
          weights.push_back(net->blob_loss_weight(id));
        }
        sums[k] += blob->data()[j];
        DT_LOG(INFO) << "Batch " << i << ", " << names[k] << " = " << blob->data()[j];
      }
    }
  }
  DT_LOG(INFO) << "Loss: " << static_cast<float>(loss / iterations);
  for (size_t k = 0; k < sums.size(); ++k) {
    const float mean = static_cast<float>(sums[k] / iterations);
    DT_LOG(INFO) << names[k] << " = " << mean << LossWeightSuffix(weights[k], mean);
  }
  for (size_t o = 0; o < detections.size(); ++o) {
    if (!detections[o]) continue;
    DT_ASSIGN_OR_RETURN(DetectionScores::Result result, scores.Score(static_cast<int>(o), version));
    const std::string& name = net->blob_names()[net->output_blob_indices()[o]];
    for (const auto& [label, ap] : result.per_class) {
      DT_LOG(INFO) << name << " class " << label << " AP = " << ap;
    }
    DT_LOG(INFO) << name << " = " << result.mean_average_precision << " (mAP, "
                 << flags.Get("ap-version") << ")";
  }
  return Status::Ok();
}

}  // namespace

Command TestCommand() {
  return {"test",
          "score a trained net: mean of its outputs over N TEST-phase batches",
          "",
          {{"model", "net prototxt"},
           StageFlag(),
           LevelFlag(),
           {"weights", "trained .caffemodel"},
           {"weights-strict",
            "a layer of the net or of the file with parameters and no namesake "
            "on the other side is an error",
            true},
           {"iterations", "number of batches", false, "50"},
           {"ap-version",
            "how the mAP of DetectionEvaluate outputs is computed: 11point, MaxIntegral or "
            "Integral (the SSD fork's ap_version)",
            false, "Integral"},
           {"threads",
            "compute threads; 0 = $OMP_NUM_THREADS if set, else the usable cores other processes "
            "leave idle",
            false, "0"},
           {"engine",
            "force one engine on every layer: onednn or reference (default: each "
            "layer's own choice)"},
           {"verbose", "list which implementation each layer runs and why others declined", true},
           {"gpu", "accepted for Caffe compatibility; dtrain runs on the CPU"}},
          RunTest};
}

}  // namespace dtrain
