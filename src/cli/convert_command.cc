// dtrain convert / compute-mean: Caffe's convert_mnist_data, convert_cifar_data,
// convert_imageset and compute_image_mean.
#include "cli/command.h"
#include "data/convert.h"

namespace dtrain {
namespace {

// The flags only `convert imageset` reads.
const char* const kImagesetFlags[] = {"resize_height", "resize_width", "shuffle",
                                      "encoded",       "gray",         "seed"};

Status RunConvertImageset(const Flags& flags) {
  const auto& args = flags.positional();
  if (args.size() != 4) {
    return InvalidArgument(
        "usage: dtrain convert imageset ROOT LIST OUT_LMDB [--resize_height=H] "
        "[--resize_width=W] [--shuffle] [--encoded] [--gray] [--seed=N]");
  }
  ImagesetOptions options;
  DT_ASSIGN_OR_RETURN(options.resize_height, flags.GetInt("resize_height"));
  DT_ASSIGN_OR_RETURN(options.resize_width, flags.GetInt("resize_width"));
  DT_ASSIGN_OR_RETURN(const int seed, flags.GetInt("seed"));
  options.seed = static_cast<uint64_t>(seed);
  options.shuffle = flags.GetBool("shuffle");
  options.encoded = flags.GetBool("encoded");
  options.gray = flags.GetBool("gray");
  return ConvertImageset(args[1], args[2], args[3], options);
}

Status RunConvert(const Flags& flags) {
  const auto& args = flags.positional();
  const std::string format = args.empty() ? "" : args[0];
  if (format == "imageset") return RunConvertImageset(flags);
  for (const char* name : kImagesetFlags) {
    if (flags.Has(name)) {
      return InvalidArgument(std::string("--") + name + " applies to convert imageset only");
    }
  }
  if (format == "mnist") {
    if (args.size() != 4)
      return InvalidArgument("usage: dtrain convert mnist IMAGES LABELS OUT_LMDB");
    return ConvertMnist(args[1], args[2], args[3]);
  }
  if (format == "cifar10") {
    if (args.size() != 3) return InvalidArgument("usage: dtrain convert cifar10 DIR OUT_DIR");
    return ConvertCifar10(args[1], args[2]);
  }
  return InvalidArgument(
      "convert needs a format: mnist (IDX images and labels, plain or .gz), "
      "cifar10 (CIFAR-10 binary batches) or imageset (an image list)");
}

Status RunComputeMean(const Flags& flags) {
  const auto& args = flags.positional();
  if (args.size() != 2) return InvalidArgument("usage: dtrain compute-mean LMDB OUT.binaryproto");
  return ComputeMean(args[0], args[1]);
}

}  // namespace

Command ConvertCommand() {
  return {"convert",
          "convert a data set to an LMDB of Datum records (mnist, cifar10, imageset)",
          "mnist IMAGES LABELS OUT_LMDB | cifar10 DIR OUT_DIR | imageset ROOT LIST OUT_LMDB",
          {{"resize_height", "imageset: resize every image to this height", false, "0"},
           {"resize_width", "imageset: resize every image to this width", false, "0"},
           {"shuffle", "imageset: shuffle the list (with --seed)", true},
           {"encoded", "imageset: store the JPEG/PNG files, not pixels", true},
           {"gray", "imageset: 1-channel gray images", true},
           {"seed", "imageset: seed of --shuffle", false, "0"}},
          RunConvert};
}

Command ComputeMeanCommand() {
  return {"compute-mean",
          "per-pixel mean of an LMDB, as a .binaryproto mean file",
          "LMDB OUT.binaryproto",
          {},
          RunComputeMean};
}

}  // namespace dtrain
