#include "kernels/conv_batch_norm.h"

#include "kernels/blocked/depthwise_conv_batch_norm.h"
#include "kernels/onednn/folded_conv_batch_norm.h"

namespace dtrain::kernels {
namespace {

const KernelList<ConvBatchNormKernel, ConvBatchNormProblem> kImplementations(
    "ConvBatchNorm",
    {
        {Engine::kOnednn, "onednn", "oneDNN", &onednn::FoldedConvBatchNorm::Create},
        {Engine::kOnednn, "blocked", "dtrain's blocked loops",
         &blocked::DepthwiseConvBatchNorm::Create},
    });

}  // namespace

StatusOr<std::unique_ptr<ConvBatchNormKernel>> ChooseKernel(const ConvBatchNormProblem& problem,
                                                            const KernelRequest& request,
                                                            std::string* report) {
  return kImplementations.Choose(problem, request, report);
}

}  // namespace dtrain::kernels
