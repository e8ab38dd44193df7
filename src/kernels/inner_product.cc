#include "kernels/inner_product.h"

#include "kernels/onednn/inner_product.h"
#include "kernels/reference/inner_product.h"

namespace dtrain::kernels {
namespace {

const KernelList<LinearKernel, InnerProductProblem> kImplementations(
    "InnerProduct",
    {
        {Engine::kOnednn, "onednn", "oneDNN", &onednn::InnerProduct::Create},
        {Engine::kReference, "reference", "the reference", &reference::InnerProduct::Create},
    });

}  // namespace

StatusOr<std::unique_ptr<LinearKernel>> ChooseKernel(const InnerProductProblem& problem,
                                                     const KernelRequest& request,
                                                     std::string* report) {
  return kImplementations.Choose(problem, request, report);
}

}  // namespace dtrain::kernels
