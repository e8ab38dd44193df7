// dtrain convert / compute-mean: Caffe's convert_mnist_data, convert_cifar_data and
// compute_image_mean.
#include "cli/command.h"
#include "data/convert.h"

namespace dtrain {
namespace {

Status RunConvert(const Flags& flags) {
  const auto& args = flags.positional();
  const std::string format = args.empty() ? "" : args[0];
  if (format == "mnist") {
    if (args.size() != 4) return InvalidArgument("usage: dtrain convert mnist IMAGES LABELS OUT_LMDB");
    return ConvertMnist(args[1], args[2], args[3]);
  }
  if (format == "cifar10") {
    if (args.size() != 3) return InvalidArgument("usage: dtrain convert cifar10 DIR OUT_DIR");
    return ConvertCifar10(args[1], args[2]);
  }
  return InvalidArgument("convert needs a format: mnist (IDX images and labels, plain or .gz) "
                         "or cifar10 (CIFAR-10 binary batches)");
}

Status RunComputeMean(const Flags& flags) {
  const auto& args = flags.positional();
  if (args.size() != 2) return InvalidArgument("usage: dtrain compute-mean LMDB OUT.binaryproto");
  return ComputeMean(args[0], args[1]);
}

}  // namespace

Command ConvertCommand() {
  return {"convert",
          "convert a data set to an LMDB of Datum records (mnist, cifar10)",
          "mnist IMAGES LABELS OUT_LMDB | cifar10 DIR OUT_DIR",
          {},
          RunConvert};
}

Command ComputeMeanCommand() {
  return {"compute-mean", "per-pixel mean of an LMDB, as a .binaryproto mean file",
          "LMDB OUT.binaryproto", {}, RunComputeMean};
}

}  // namespace dtrain
