// The annotation files of detection data sets (VOC XML, the SSD fork's JSON, plain text) read
// into normalised, grouped boxes, and their damaged forms refused with file and line.
#include "data/box_annotations.h"

#include <gtest/gtest.h>

#include "data/label_map.h"
#include "image_test_util.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::TempDir;

const std::map<std::string, int> kLabels = {{"cat", 8}, {"dog", 12}, {"3", 3}};

// Reads `text` written as `name` in `format`, and adds its boxes for a 200 x 100 (w x h) image.
StatusOr<AnnotatedDatum> Read(const TempDir& dir, const std::string& name,
                              const std::string& format, const std::string& text) {
  testing::WriteBytes(dir.Path(name), text);
  StatusOr<ImageBoxes> boxes = ReadBoxAnnotations(dir.Path(name), format, kLabels);
  if (!boxes.ok()) return boxes.status();
  AnnotatedDatum datum;
  Status added =
      AddBoxes(*boxes, /*image_height=*/100, /*image_width=*/200, dir.Path(name), &datum);
  if (!added.ok()) return added;
  return datum;
}

std::string Box(const NormalizedBBox& b) {
  return std::to_string(b.xmin()) + " " + std::to_string(b.ymin()) + " " +
         std::to_string(b.xmax()) + " " + std::to_string(b.ymax()) + (b.difficult() ? " d" : "");
}

TEST(BoxAnnotationsTest, VocXmlBoxesAreNormalisedByTheStatedSizeAndGroupedByLabel) {
  TempDir dir;
  auto datum = Read(dir, "a.xml", "xml", R"(<annotation>
  <size><width>200</width><height>100</height><depth>3</depth></size>
  <object><name>dog</name><difficult>0</difficult>
    <bndbox><xmin>20</xmin><ymin>10</ymin><xmax>120</xmax><ymax>90</ymax></bndbox></object>
  <object><name>cat</name><difficult>1</difficult>
    <bndbox><xmin>0</xmin><ymin>0</ymin><xmax>50</xmax><ymax>25</ymax></bndbox></object>
  <object><bndbox><xmin>100</xmin><ymin>50</ymin><xmax>200</xmax><ymax>100</ymax></bndbox>
    <name> dog </name></object>
</annotation>)");
  ASSERT_TRUE(datum.ok()) << datum.status().message();
  EXPECT_EQ(datum->type(), AnnotatedDatum::BBOX);
  ASSERT_EQ(datum->annotation_group_size(), 2);
  // Groups in the order their label first appears; instances numbered within a group.
  const AnnotationGroup& dogs = datum->annotation_group(0);
  EXPECT_EQ(dogs.group_label(), 12);
  ASSERT_EQ(dogs.annotation_size(), 2);
  EXPECT_EQ(dogs.annotation(0).instance_id(), 0);
  EXPECT_EQ(Box(dogs.annotation(0).bbox()), "0.100000 0.100000 0.600000 0.900000");
  EXPECT_EQ(dogs.annotation(1).instance_id(), 1);
  EXPECT_EQ(Box(dogs.annotation(1).bbox()), "0.500000 0.500000 1.000000 1.000000");
  const AnnotationGroup& cats = datum->annotation_group(1);
  EXPECT_EQ(cats.group_label(), 8);
  EXPECT_EQ(Box(cats.annotation(0).bbox()), "0.000000 0.000000 0.250000 0.250000 d");
}

TEST(BoxAnnotationsTest, AStatedSizeOtherThanTheImagesIsWhatBoxesAreDividedBy) {
  TempDir dir;
  auto datum = Read(dir, "a.xml", "xml", R"(<annotation><size><width>400</width>
  <height>200</height></size><object><name>cat</name>
  <bndbox><xmin>40</xmin><ymin>20</ymin><xmax>200</xmax><ymax>100</ymax></bndbox></object>
  </annotation>)");
  ASSERT_TRUE(datum.ok()) << datum.status().message();
  EXPECT_EQ(Box(datum->annotation_group(0).annotation(0).bbox()),
            "0.100000 0.100000 0.500000 0.500000");
  // Without a <size>, the image's own size.
  datum = Read(dir, "b.xml", "xml",
               "<annotation><object><name>cat</name><bndbox><xmin>40</xmin><ymin>20</ymin>"
               "<xmax>200</xmax><ymax>100</ymax></bndbox></object></annotation>");
  ASSERT_TRUE(datum.ok()) << datum.status().message();
  EXPECT_EQ(Box(datum->annotation_group(0).annotation(0).bbox()),
            "0.200000 0.200000 1.000000 1.000000");
}

TEST(BoxAnnotationsTest, TheForksJsonAndPlainTextFiles) {
  TempDir dir;
  auto json = Read(dir, "a.json", "json",
                   R"({"image": {"width": 200, "height": 100, "file_name": "a.jpg"},
                       "annotation": [{"category_id": 3, "iscrowd": 1, "bbox": [20, 10, 80, 40]},
                                      {"category_id": "cat", "bbox": [0, 0, 200, 100]}]})");
  ASSERT_TRUE(json.ok()) << json.status().message();
  ASSERT_EQ(json->annotation_group_size(), 2);
  EXPECT_EQ(json->annotation_group(0).group_label(), 3);
  EXPECT_EQ(Box(json->annotation_group(0).annotation(0).bbox()),
            "0.100000 0.100000 0.500000 0.500000 d");
  EXPECT_EQ(Box(json->annotation_group(1).annotation(0).bbox()),
            "0.000000 0.000000 1.000000 1.000000");

  auto text = Read(dir, "a.txt", "txt", "5 20 10 120 90\n\n5 0 0 100 50\r\n2 10 10 20 20\n");
  ASSERT_TRUE(text.ok()) << text.status().message();
  ASSERT_EQ(text->annotation_group_size(), 2);
  EXPECT_EQ(text->annotation_group(0).group_label(), 5);
  EXPECT_EQ(text->annotation_group(0).annotation(1).instance_id(), 1);
  EXPECT_EQ(Box(text->annotation_group(0).annotation(1).bbox()),
            "0.000000 0.000000 0.500000 0.500000");
  EXPECT_EQ(text->annotation_group(1).group_label(), 2);
}

TEST(BoxAnnotationsTest, BoxesOnlyPartlyOutsideTheImageAreKeptAsTheForkKeepsThem) {
  TempDir dir;
  auto datum = Read(dir, "a.txt", "txt", "1 -10 -5 210 50\n");
  ASSERT_TRUE(datum.ok()) << datum.status().message();
  EXPECT_EQ(Box(datum->annotation_group(0).annotation(0).bbox()),
            "-0.050000 -0.050000 1.050000 0.500000");
}

TEST(BoxAnnotationsTest, DamagedFilesAreRefusedNamingFileAndLine) {
  TempDir dir;
  const std::string xml = dir.Path("a.xml"), txt = dir.Path("a.txt"), json = dir.Path("a.json");
  struct Case {
    std::string name, format, text, message;
  };
  const Case cases[] = {
      {"a.xml", "xml", "<annotation>\n<object><name>cat</name>\n</annotation>",
       xml + ":3: Premature end of data in tag annotation line 1"},
      {"a.xml", "xml", "<root/>", xml + ": the root element is not <annotation>"},
      {"a.xml", "xml", "<annotation>\n<object><name>cow</name><bndbox/></object></annotation>",
       xml + ":2: object name 'cow' is not in the label map"},
      {"a.xml", "xml", "<annotation>\n\n<object><name>cat</name></object></annotation>",
       xml + ":3: <object> has no <bndbox>"},
      {"a.xml", "xml",
       "<annotation><object><name>cat</name><bndbox><xmin>1</xmin><ymin>1</ymin>\n"
       "<xmax>12px</xmax><ymax>9</ymax></bndbox></object></annotation>",
       xml + ":2: xmax '12px' is not a number"},
      {"a.xml", "xml",
       "<annotation><object><name>cat</name><bndbox><xmin>1</xmin><ymin>1</ymin>"
       "<ymax>9</ymax></bndbox></object></annotation>",
       xml + ":1: <bndbox> has no <xmax>"},
      {"a.xml", "xml", "<annotation><size><width>-4</width><height>3</height></size></annotation>",
       xml + ":1: width -4 is not a size in pixels (a whole number from 0 to 2^30)"},
      {"a.txt", "txt", "1 2 3 4 5\n1 2 3 4\n",
       txt + ":2: expected \"label xmin ymin xmax ymax\", got 4 fields"},
      {"a.txt", "txt", "1 50 10 40 20\n",
       txt + ":1: box (50.000000, 10.000000, 40.000000, 20.000000) is irregular (xmin > xmax)"},
      {"a.txt", "txt", "1 300 10 400 20\n",
       txt +
           ":1: box (300.000000, 10.000000, 400.000000, 20.000000) lies outside the 200x100 image"},
      {"a.txt", "txt", "1 nan 10 40 20\n", txt + ":1: xmin is not finite"},
      {"a.txt", "txt", "-1 0 0 4 4\n", txt + ":1: label -1 is not a class id (>= 0)"},
      {"a.json", "json", "{\"annotation\": [{\"category_id\": 7, \"bbox\": [0, 0, 1, 1]}]}",
       json + ": annotation 0: category_id '7' is not in the label map"},
      {"a.json", "json", "{\"annotation\": [{\"category_id\": 3, \"bbox\": [0, 0, 1]}]}",
       json + ": annotation 0: bbox is not [x, y, width, height]"},
      {"a.json", "json", "[1, 2",
       json + ": [json.exception.parse_error.101] parse error at line 1, column 6: syntax error "
              "while parsing array - unexpected end of input; expected ']'"},
  };
  for (const Case& c : cases) {
    StatusOr<AnnotatedDatum> datum = Read(dir, c.name, c.format, c.text);
    ASSERT_FALSE(datum.ok()) << c.text;
    EXPECT_EQ(datum.status().message(), c.message) << c.text;
  }
}

TEST(BoxAnnotationsTest, AnEntityBombIsRefusedNotExpanded) {
  TempDir dir;
  std::string bomb = "<?xml version=\"1.0\"?>\n<!DOCTYPE a [<!ENTITY x0 \"xxxxxxxxxx\">";
  for (int i = 1; i < 12; ++i) {
    bomb += "<!ENTITY x" + std::to_string(i) + " \"";
    for (int k = 0; k < 10; ++k) bomb += "&x" + std::to_string(i - 1) + ";";
    bomb += "\">";
  }
  bomb += "]>\n<annotation><object><name>&x11;</name><bndbox/></object></annotation>";
  StatusOr<AnnotatedDatum> datum = Read(dir, "bomb.xml", "xml", bomb);
  ASSERT_FALSE(datum.ok());
  EXPECT_NE(datum.status().message().find(dir.Path("bomb.xml") + ":"), std::string::npos)
      << datum.status().message();
}

TEST(LabelMapTest, ItemsNeedNameAndLabelAndLabelsAreClassIds) {
  TempDir dir;
  testing::WriteBytes(dir.Path("map.prototxt"),
                      "item { name: 'none_of_the_above' label: 0 display_name: 'background' }\n"
                      "item { name: 'cat' label: 8 }\nitem { name: 'cat' label: 9 }\n");
  StatusOr<LabelMap> map = ReadLabelMap(dir.Path("map.prototxt"));
  ASSERT_TRUE(map.ok()) << map.status().message();
  auto loose = NameToLabel(*map, /*strict=*/false, "map");
  ASSERT_TRUE(loose.ok());
  EXPECT_EQ(loose->at("cat"), 9);  // the last item of a name wins, as in the fork
  auto strict = NameToLabel(*map, /*strict=*/true, "map");
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().message(),
            "label map 'map' names 'cat' more than once (labels 8 and 9)");
  auto shown = LabelToDisplayName(*map, "map");
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ(shown->at(0), "background");
  EXPECT_EQ(shown->at(8), "cat");

  testing::WriteBytes(dir.Path("bad.prototxt"), "item { name: 'cat' }\n");
  EXPECT_EQ(ReadLabelMap(dir.Path("bad.prototxt")).status().message(),
            "label map '" + dir.Path("bad.prototxt") +
                "': item 1 ('cat') has no label; every "
                "item needs both");
  testing::WriteBytes(dir.Path("neg.prototxt"), "item { name: 'cat' label: -2 }\n");
  EXPECT_EQ(ReadLabelMap(dir.Path("neg.prototxt")).status().message(),
            "label map '" + dir.Path("neg.prototxt") +
                "': 'cat' has label -2; labels are class ids >= 0");
}

}  // namespace
}  // namespace dtrain
