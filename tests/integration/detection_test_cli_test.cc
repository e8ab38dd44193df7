// dtrain test on a net whose output is DetectionEvaluate's: the mAP over every batch, as the SSD
// fork's solver computes it with eval_type "detection". The detections and ground truth come
// from HDF5 files written by h5py, one image per batch.
#include <gtest/gtest.h>

#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

TEST(DetectionTestCli, TheMapOfDetectionEvaluateOutputsOverAllBatches) {
  testing::TempDir dir;
  // Image 1: class 1 box A found (0.9), class 2 box B missed once (0.8) then found (0.6).
  // Image 2: class 1 box C found (0.7) and two false alarms (0.5, 0.4); class 2 box D missed.
  // Class 1: 2 positives, precision 1, 1, 2/3, 1/2 at recall 1/2, 1, 1, 1: 11-point AP 1.
  // Class 2: 2 positives, precision 0, 1/2 at recall 0, 1/2: the 6 points r <= 0.5 get 1/2,
  // AP 3/11. mAP (1 + 3/11) / 2 = 0.636364.
  const std::string script = R"(
import h5py, numpy as np
det = np.array([
  [[[0, 1, 0.9, 0.1, 0.1, 0.4, 0.4], [0, 2, 0.8, 0.0, 0.0, 0.2, 0.2],
    [0, 2, 0.6, 0.5, 0.5, 0.9, 0.9]]],
  [[[0, 1, 0.7, 0.2, 0.2, 0.6, 0.6], [0, 1, 0.5, 0.7, 0.7, 0.9, 0.9],
    [0, 1, 0.4, 0.0, 0.7, 0.1, 0.9]]]], dtype=np.float32)
gt = np.array([
  [[[0, 1, 0, 0.1, 0.1, 0.4, 0.4, 0], [0, 2, 0, 0.5, 0.5, 0.9, 0.9, 0]]],
  [[[0, 1, 0, 0.2, 0.2, 0.6, 0.6, 0], [0, 2, 0, 0.1, 0.6, 0.3, 0.9, 0]]]], dtype=np.float32)
with h5py.File(")" + dir.Path("boxes.h5") +
                             R"(", "w") as f:
    f["det"] = det
    f["gt"] = gt
)";
  testing::WriteTextFile(dir.Path("write.py"), script);
  auto r = testing::RunShell("/usr/bin/python3 " + dir.Path("write.py") + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  testing::WriteTextFile(dir.Path("list.txt"), dir.Path("boxes.h5") + "\n");
  testing::WriteTextFile(dir.Path("net.prototxt"), R"(
layer { name: "boxes" type: "HDF5Data" top: "det" top: "gt"
        hdf5_data_param { source: ")" + dir.Path("list.txt") +
                                                       R"(" batch_size: 1 } }
layer { name: "detection_eval" type: "DetectionEvaluate" bottom: "det" bottom: "gt"
        top: "detection_eval" detection_evaluate_param { num_classes: 3 } }
)");
  r = testing::RunDtrain("test --model=" + dir.Path("net.prototxt") +
                         " --iterations=2 --ap-version=11point");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("detection_eval class 1 AP = 1\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("detection_eval class 2 AP = 0.272727"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("detection_eval = 0.636364 (mAP, 11point)"), std::string::npos)
      << r.output;

  r = testing::RunDtrain("test --model=" + dir.Path("net.prototxt") +
                         " --iterations=2 --ap-version=VOC");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("unknown ap_version \"VOC\""), std::string::npos) << r.output;
}

}  // namespace
}  // namespace dtrain
