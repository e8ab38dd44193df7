// dtrain convert / compute-mean: Caffe's convert_mnist_data, convert_cifar_data,
// convert_imageset, the SSD fork's convert_annoset, and compute_image_mean.
#include "cli/command.h"
#include "data/convert.h"

namespace dtrain {
namespace {

// The flags only `convert imageset` and `convert annoset` read.
const char* const kImageFlags[] = {"resize_height", "resize_width", "shuffle", "encoded",
                                   "encode_type",   "gray",         "seed"};
// The flags only `convert annoset` reads.
const char* const kAnnosetFlags[] = {"anno_type",  "label_type", "label_map_file", "check_label",
                                     "check_size", "min_dim",    "max_dim"};

StatusOr<ImagesetOptions> ImageOptionsFromFlags(const Flags& flags) {
  ImagesetOptions options;
  DT_ASSIGN_OR_RETURN(options.resize_height, flags.GetInt("resize_height"));
  DT_ASSIGN_OR_RETURN(options.resize_width, flags.GetInt("resize_width"));
  DT_ASSIGN_OR_RETURN(const int seed, flags.GetInt("seed"));
  options.seed = static_cast<uint64_t>(seed);
  options.shuffle = flags.GetBool("shuffle");
  options.encoded = flags.GetBool("encoded");
  options.encode_type = flags.Get("encode_type");
  options.gray = flags.GetBool("gray");
  return options;
}

Status RunConvertImageset(const Flags& flags) {
  const auto& args = flags.positional();
  if (args.size() != 4) {
    return InvalidArgument(
        "usage: dtrain convert imageset ROOT LIST OUT_LMDB [--resize_height=H] "
        "[--resize_width=W] [--shuffle] [--encoded] [--encode_type=jpg|png] [--gray] [--seed=N]");
  }
  DT_ASSIGN_OR_RETURN(ImagesetOptions options, ImageOptionsFromFlags(flags));
  return ConvertImageset(args[1], args[2], args[3], options);
}

Status RunConvertAnnoset(const Flags& flags) {
  const auto& args = flags.positional();
  if (args.size() != 4) {
    return InvalidArgument(
        "usage: dtrain convert annoset ROOT LIST OUT_LMDB --anno_type=detection "
        "--label_type=xml|json|txt --label_map_file=F [--check_label] [--check_size] and the "
        "image flags of convert imageset");
  }
  for (const char* name : {"min_dim", "max_dim"}) {
    DT_ASSIGN_OR_RETURN(const int value, flags.GetInt(name));
    if (value != 0) {
      return InvalidArgument(std::string("--") + name +
                             " is refused: Intel Caffe's convert_annoset ignores it while the SSD "
                             "fork resizes by it; use --resize_height and --resize_width");
    }
  }
  AnnosetOptions options;
  DT_ASSIGN_OR_RETURN(options.image, ImageOptionsFromFlags(flags));
  options.anno_type = flags.Get("anno_type");
  options.label_type = flags.Get("label_type");
  options.label_map_file = flags.Get("label_map_file");
  options.check_label = flags.GetBool("check_label");
  options.check_size = flags.GetBool("check_size");
  return ConvertAnnoset(args[1], args[2], args[3], options);
}

Status RunConvert(const Flags& flags) {
  const auto& args = flags.positional();
  const std::string format = args.empty() ? "" : args[0];
  if (format == "annoset") return RunConvertAnnoset(flags);
  for (const char* name : kAnnosetFlags) {
    if (flags.Has(name)) {
      return InvalidArgument(std::string("--") + name + " applies to convert annoset only");
    }
  }
  if (format == "imageset") return RunConvertImageset(flags);
  for (const char* name : kImageFlags) {
    if (flags.Has(name)) {
      return InvalidArgument(std::string("--") + name +
                             " applies to convert imageset and annoset only");
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
      "cifar10 (CIFAR-10 binary batches), imageset (an image list) or annoset (images with "
      "detection boxes)");
}

Status RunComputeMean(const Flags& flags) {
  const auto& args = flags.positional();
  if (args.size() != 2) return InvalidArgument("usage: dtrain compute-mean LMDB OUT.binaryproto");
  return ComputeMean(args[0], args[1]);
}

}  // namespace

Command ConvertCommand() {
  return {
      "convert",
      "convert a data set to an LMDB of Datum records (mnist, cifar10, imageset) or of "
      "AnnotatedDatum records (annoset)",
      "mnist IMAGES LABELS OUT_LMDB | cifar10 DIR OUT_DIR | imageset ROOT LIST OUT_LMDB | "
      "annoset ROOT LIST OUT_LMDB",
      {{"resize_height", "imageset, annoset: resize every image to this height", false, "0"},
       {"resize_width", "imageset, annoset: resize every image to this width", false, "0"},
       {"shuffle", "imageset, annoset: shuffle the list (with --seed)", true},
       {"encoded", "imageset, annoset: store the JPEG/PNG files, not pixels", true},
       {"encode_type", "imageset, annoset: with --encoded, store every image as jpg or png", false,
        ""},
       {"gray", "imageset, annoset: 1-channel gray images", true},
       {"seed", "imageset, annoset: seed of --shuffle", false, "0"},
       {"anno_type",
        "annoset: detection (image and annotation file per line) or "
        "classification (image and label)",
        false, "classification"},
       {"label_type", "annoset: the annotation files' format: xml (VOC), json, txt", false, "xml"},
       {"label_map_file", "annoset: the LabelMap prototxt naming the classes", false, ""},
       {"check_label", "annoset: a name twice in the label map is an error", true},
       {"check_size", "annoset: every image must have the first one's size", true},
       {"min_dim", "annoset: refused (the SSD fork's aspect-keeping resize)", false, "0"},
       {"max_dim", "annoset: refused (the SSD fork's aspect-keeping resize)", false, "0"}},
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
