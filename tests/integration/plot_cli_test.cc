// dtrain plot: the curves read from a --metrics file and from a Caffe-format log (BVLC Caffe's
// lines), and the picture read back by cairo's own PNG reader: its size, and each run's colour
// on it.
#include <cairo.h>
#include <gtest/gtest.h>

#include <fstream>

#include "report/training_curves.h"
#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

constexpr const char* kMetrics =
    R"({"event":"test","iter":0,"net":0,"scores":{"accuracy":0.1,"loss":2.3},"wall_time":1000.0}
{"event":"train","iter":100,"loss":0.9,"lr":0.01,"images_per_s":900,"seconds_left":9,"wall_time":1002.5}
{"event":"train","iter":200,"loss":0.5,"lr":0.01,"images_per_s":900,"seconds_left":8,"wall_time":1005.0}
{"event":"test","iter":200,"net":0,"scores":{"accuracy":0.8,"loss":0.6},"wall_time":1006.0}
)";

// As BVLC Caffe logs a run (glog prefix, display line, test pass).
constexpr const char* kCaffeLog =
    R"(I1203 23:59:58.000000  4711 solver.cc:218] Iteration 100 (12.5 iter/s, 8s/100 iters), loss = 0.8
I1203 23:59:58.000000  4711 solver.cc:237]     Train net output #0: loss = 0.8 (* 1 = 0.8 loss)
I1203 23:59:59.500000  4711 solver.cc:330] Iteration 200, Testing net (#0)
I1203 23:59:59.900000  4711 solver.cc:397]     Test net output #0: accuracy = 0.75
I1203 23:59:59.900000  4711 solver.cc:397]     Test net output #1: loss = 0.7 (* 1 = 0.7 loss)
I1204 00:00:01.000000  4711 solver.cc:218] Iteration 200 (12.5 iter/s, 8s/100 iters), loss = 0.4
)";

using Points = std::vector<std::pair<double, double>>;

TEST(PlotCurves, AreReadFromMetricsFilesAndCaffeLogs) {
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("m.jsonl"), kMetrics);
  testing::WriteTextFile(dir.Path("caffe.log"), kCaffeLog);
  auto metrics = ReadRunCurves(dir.Path("m.jsonl"), CurveX::kIterations);
  ASSERT_TRUE(metrics.ok()) << metrics.status().message();
  ASSERT_EQ(metrics->curves.size(), 3u);
  EXPECT_EQ(metrics->curves[0].name, "test accuracy");
  EXPECT_EQ(metrics->curves[0].points, (Points{{0, 0.1}, {200, 0.8}}));
  EXPECT_EQ(metrics->curves[2].name, "train loss");
  EXPECT_EQ(metrics->curves[2].points, (Points{{100, 0.9}, {200, 0.5}}));
  auto seconds = ReadRunCurves(dir.Path("m.jsonl"), CurveX::kSeconds);
  ASSERT_TRUE(seconds.ok());
  EXPECT_EQ(seconds->curves[2].points, (Points{{2.5, 0.9}, {5.0, 0.5}}));

  auto log = ReadRunCurves(dir.Path("caffe.log"), CurveX::kIterations);
  ASSERT_TRUE(log.ok()) << log.status().message();
  ASSERT_EQ(log->curves.size(), 3u);
  EXPECT_EQ(log->curves[0].name, "train loss");
  EXPECT_EQ(log->curves[0].points, (Points{{100, 0.8}, {200, 0.4}}));
  EXPECT_EQ(log->curves[1].name, "test accuracy");
  EXPECT_EQ(log->curves[1].points, (Points{{200, 0.75}}));
  EXPECT_EQ(log->curves[2].name, "test loss");
  // Over midnight, seconds keep counting from the first line.
  auto log_seconds = ReadRunCurves(dir.Path("caffe.log"), CurveX::kSeconds);
  ASSERT_TRUE(log_seconds.ok());
  EXPECT_EQ(log_seconds->curves[0].points, (Points{{0, 0.8}, {3, 0.4}}));
  EXPECT_EQ(log_seconds->curves[1].points, (Points{{1.5, 0.75}}));
}

// Whether the PNG has a pixel of colour (r, g, b).
bool HasColour(cairo_surface_t* png, int r, int g, int b) {
  const unsigned char* data = cairo_image_surface_get_data(png);
  const int stride = cairo_image_surface_get_stride(png);
  for (int y = 0; y < cairo_image_surface_get_height(png); ++y) {
    for (int x = 0; x < cairo_image_surface_get_width(png); ++x) {
      const uint32_t pixel = *reinterpret_cast<const uint32_t*>(data + y * stride + 4 * x);
      if (int((pixel >> 16) & 0xff) == r && int((pixel >> 8) & 0xff) == g && int(pixel & 0xff) == b)
        return true;
    }
  }
  return false;
}

TEST(PlotCommand, DrawsTheRunsOverlaidAsPngAndSvg) {
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("m.jsonl"), kMetrics);
  testing::WriteTextFile(dir.Path("caffe.log"), kCaffeLog);
  const testing::CommandResult r =
      testing::RunDtrain("plot " + dir.Path("m.jsonl") + " " + dir.Path("caffe.log") +
                         " --output=" + dir.Path("c.png"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("plot: 6 curve(s) of 2 run(s)"), std::string::npos) << r.output;
  cairo_surface_t* png = cairo_image_surface_create_from_png(dir.Path("c.png").c_str());
  ASSERT_EQ(cairo_surface_status(png), CAIRO_STATUS_SUCCESS);
  EXPECT_EQ(cairo_image_surface_get_width(png), 900);
  EXPECT_EQ(cairo_image_surface_get_height(png), 3 * 280);  // train loss, test accuracy, test loss
  EXPECT_TRUE(HasColour(png, 31, 120, 181));                // the first run's blue
  EXPECT_TRUE(HasColour(png, 255, 128, 13));                // the second run's orange
  cairo_surface_destroy(png);

  const testing::CommandResult svg = testing::RunDtrain(
      "plot " + dir.Path("m.jsonl") + " --x=seconds --output=" + dir.Path("c.svg"));
  ASSERT_EQ(svg.exit_code, 0) << svg.output;
  std::ifstream in(dir.Path("c.svg"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("<svg"), std::string::npos);
}

TEST(PlotCommand, BadInputIsAClearError) {
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("notes.txt"), "no curves here\n");
  testing::WriteTextFile(dir.Path("bad.jsonl"), "{\"event\":\"train\"}\n");
  const struct {
    std::string args, error;
  } cases[] = {
      {"--output=c.png", "give one or more --metrics files or training logs to plot"},
      {dir.Path("notes.txt"), "--output=F.png or F.svg is required"},
      {dir.Path("notes.txt") + " --output=" + dir.Path("c.png"),
       dir.Path("notes.txt") + ": no training loss or test score in it"},
      {dir.Path("bad.jsonl") + " --output=" + dir.Path("c.png"),
       dir.Path("bad.jsonl") + ":1: not a metrics event"},
      {dir.Path("missing.jsonl") + " --output=" + dir.Path("c.png"),
       "cannot read " + dir.Path("missing.jsonl")},
      {dir.Path("notes.txt") + " --x=hours --output=c.png", "--x must be iterations or seconds"},
  };
  for (const auto& c : cases) {
    const testing::CommandResult r = testing::RunDtrain("plot " + c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.error), std::string::npos) << c.args << "\n" << r.output;
  }
  testing::WriteTextFile(dir.Path("m.jsonl"), kMetrics);
  const testing::CommandResult gif =
      testing::RunDtrain("plot " + dir.Path("m.jsonl") + " --output=" + dir.Path("c.gif"));
  EXPECT_EQ(gif.exit_code, 1);
  EXPECT_NE(gif.output.find("--output must end in .png or .svg"), std::string::npos) << gif.output;
}

}  // namespace
}  // namespace dtrain
