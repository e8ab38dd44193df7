#include "kernels/convolution.h"

#include "kernels/onednn/convolution.h"
#include "kernels/reference/convolution.h"

namespace dtrain::kernels {
namespace {

const Implementation<LinearKernel, ConvolutionProblem> kImplementations[] = {
    {Engine::kOnednn, "onednn", "oneDNN", &onednn::Convolution::Create},
    {Engine::kReference, "reference", "the reference", &reference::Convolution::Create},
};

}  // namespace

StatusOr<std::unique_ptr<LinearKernel>> ChooseKernel(const ConvolutionProblem& problem,
                                                     const KernelRequest& request,
                                                     std::string* report) {
  return ChooseFrom(kImplementations, problem, request, report);
}

}  // namespace dtrain::kernels
