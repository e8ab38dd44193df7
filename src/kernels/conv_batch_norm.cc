#include "kernels/conv_batch_norm.h"

#include "kernels/onednn/depthwise_conv_batch_norm.h"
#include "kernels/onednn/folded_conv_batch_norm.h"

namespace dtrain::kernels {
namespace {

const Implementation<ConvBatchNormKernel, ConvBatchNormProblem> kImplementations[] = {
    {Engine::kOnednn, "onednn", "oneDNN", &onednn::FoldedConvBatchNorm::Create},
    {Engine::kOnednn, "onednn", "dtrain's loops on oneDNN's layout",
     &onednn::DepthwiseConvBatchNorm::Create},
};

}  // namespace

StatusOr<std::unique_ptr<ConvBatchNormKernel>> ChooseKernel(const ConvBatchNormProblem& problem,
                                                            const KernelRequest& request,
                                                            std::string* report) {
  return ChooseFrom(kImplementations, problem, request, report);
}

}  // namespace dtrain::kernels
