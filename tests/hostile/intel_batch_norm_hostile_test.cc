// Hostile input to Intel Caffe's BatchNorm fields (docs/layers.md, "Intel Caffe's BatchNorm"):
// sub-batches that do not divide the batch, larger than it or absurd, a ReLU that Intel would
// ignore or order otherwise, and an Intel-written .caffemodel of the wrong blob count or shape.
// Each is refused by `dtrain train` (exit 1, under a time limit) naming the layer and the field or
// blob; a ReLU on an in-place BatchNorm trains.
#include <gtest/gtest.h>

#include <string>

#include "core/proto_io.h"
#include "hostile/hostile.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

using testing::TinyRun;

// kTinyNet's four 1x6 inputs through a BatchNorm (in place) with `bn` as its batch_norm_param,
// and an optional Scale after it.
std::string BatchNormNet(const std::string& bn, const std::string& net_fields = "",
                         bool scale = false) {
  return net_fields +
         "\nlayer { name: 'data' type: 'DummyData' top: 'x' top: 'label' dummy_data_param {\n"
         "  shape { dim: 4 dim: 6 } shape { dim: 4 } data_filler { type: 'gaussian' std: 1 }\n"
         "  data_filler { type: 'uniform' min: 0 max: 2.99 } refill: false } }\n"
         "layer { name: 'bn' type: 'BatchNorm' bottom: 'x' top: 'x' batch_norm_param { " +
         bn + " } }\n" +
         (scale ? "layer { name: 'sc' type: 'Scale' bottom: 'x' top: 'x' "
                  "scale_param { bias_term: true } }\n"
                : "") +
         "layer { name: 'fc' type: 'InnerProduct' bottom: 'x' top: 'y'\n"
         "  inner_product_param { num_output: 3 weight_filler { type: 'xavier' } } }\n"
         "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'y' bottom: 'label' top: 'loss' }\n";
}

TEST(HostileIntelBatchNorm, SubBatchesThatDoNotFitTheBatchAreRefused) {
  const struct {
    std::string bn, net, error;
  } cases[] = {
      {"stats_batch_size: 3", "",
       "layer 'bn' (BatchNorm): stats_batch_size 3 does not divide the batch of 4 (Intel Caffe "
       "requires it to)"},
      {"stats_batch_size: 8", "",
       "layer 'bn' (BatchNorm): stats_batch_size 8 is larger than the batch of 4"},
      {"", "bn_stats_batch_size: 4294967295",
       "layer 'bn' (BatchNorm): stats_batch_size 4294967295 is larger than the batch of 4"},
      // The net's value replaces the layer's (Intel's ApplyBnStatsBatchSize).
      {"stats_batch_size: 2", "bn_stats_batch_size: 3",
       "stats_batch_size 3 does not divide the batch of 4"},
  };
  for (const auto& c : cases) {
    TinyRun run("", BatchNormNet(c.bn, c.net));
    EXPECT_REFUSED_WITH(run.Train(), c.error);
    EXPECT_TRUE(testing::FilesUnder(run.dir.Path("snap")).empty()) << c.bn << c.net;
  }
  TinyRun fits("", BatchNormNet("stats_batch_size: 2", "bn_stats_batch_size: 2"));
  const auto r = fits.Train();
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 of 1 BatchNorm layer(s) learn a scale and shift of their own"),
            std::string::npos)
      << r.output;
}

TEST(HostileIntelBatchNorm, ReluIsRefusedWhereIntelIgnoresItAndTrainsInPlace) {
  TinyRun caffe("", BatchNormNet("engine: CAFFE relu: true"));
  EXPECT_REFUSED_WITH(caffe.Train(),
                      "layer 'bn' (BatchNorm): relu: true on Intel Caffe's CAFFE engine, whose "
                      "BatchNorm ignores it");
  TinyRun merged("", BatchNormNet("relu: true", "", /*scale=*/true));
  EXPECT_REFUSED_WITH(merged.Train(), "layer 'bn' (BatchNorm): relu: true with the Scale 'sc'");
  TinyRun in_place("", BatchNormNet("relu: true stats_batch_size: 2"));
  const auto r = in_place.Train();
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Iteration 4"), std::string::npos) << r.output;
}

TEST(HostileIntelBatchNorm, AnIntelCaffemodelOfTheWrongShapeIsRefusedNamingLayerAndBlob) {
  TinyRun run("", BatchNormNet("", "", /*scale=*/true));
  // As Intel Caffe writes BatchNorm + merged Scale: one BatchNorm layer, no Scale.
  auto write = [&](int blobs, int gamma_count) {
    NetParameter file;
    LayerParameter* bn = file.add_layer();
    bn->set_name("bn");
    bn->set_type("BatchNorm");
    for (int b = 0; b < blobs; ++b) {
      BlobProto* blob = bn->add_blobs();
      const int count = b == 2 ? 1 : b == 3 ? gamma_count : 6;
      blob->mutable_shape()->add_dim(count);
      for (int k = 0; k < count; ++k) blob->add_data(1.f);
    }
    const std::string path = run.dir.Path("intel.caffemodel");
    EXPECT_TRUE(WriteBinaryProtoAtomically(path, file).ok());
    return path;
  };
  EXPECT_REFUSED_WITH(run.Train("--weights=" + write(4, 6)),
                      "layer 'bn': the weights file has 4 parameter blob(s), Intel Caffe's layout "
                      "of a BatchNorm with the Scale it merged; the net expects 3 and the Scale "
                      "'sc' 2 (5 in all)");
  EXPECT_REFUSED_WITH(run.Train("--weights=" + write(5, 7)),
                      "layer 'bn' blob 3 (gamma, into the Scale 'sc' parameter 0)");
  const auto ok = run.Train("--weights=" + write(5, 6));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

}  // namespace
}  // namespace dtrain
