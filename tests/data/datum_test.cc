#include "data/datum.h"

#include <gtest/gtest.h>

#include <string>

namespace dtrain {
namespace {

TEST(DatumTest, Uint8RoundTrip) {
  const uint8_t pixels[6] = {0, 1, 2, 200, 254, 255};
  const Datum datum = MakeDatum(1, 2, 3, pixels, 7);
  Datum parsed;
  Status s = ParseDatum(datum.SerializeAsString(), "00000000", &parsed);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(parsed.channels(), 1);
  EXPECT_EQ(parsed.height(), 2);
  EXPECT_EQ(parsed.width(), 3);
  EXPECT_EQ(parsed.label(), 7);
  EXPECT_EQ(DatumSize(parsed), 6);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(DatumValue(parsed, i), pixels[i]) << i;
  EXPECT_EQ(DatumShapeString(parsed), "1x2x3");
}

TEST(DatumTest, FloatRoundTrip) {
  Datum datum;
  datum.set_channels(2);
  datum.set_height(1);
  datum.set_width(2);
  for (float v : {-1.5f, 0.f, 2.25f, 1000.f}) datum.add_float_data(v);
  datum.set_label(3);
  Datum parsed;
  ASSERT_TRUE(ParseDatum(datum.SerializeAsString(), "k", &parsed).ok());
  EXPECT_EQ(DatumValue(parsed, 0), -1.5f);
  EXPECT_EQ(DatumValue(parsed, 2), 2.25f);
  EXPECT_EQ(DatumValue(parsed, 3), 1000.f);
}

TEST(DatumTest, TruncatedPayloadIsDataLossNamingTheKey) {
  const uint8_t pixels[12] = {};
  Datum datum = MakeDatum(3, 2, 2, pixels, 0);
  datum.mutable_data()->resize(10);
  Datum parsed;
  Status s = ParseDatum(datum.SerializeAsString(), "00000042", &parsed);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "record '00000042': shape 3x2x2 needs 12 uint8 values, the record has 10");
}

TEST(DatumTest, MissingFloatsAreDataLoss) {
  Datum datum;
  datum.set_channels(1);
  datum.set_height(2);
  datum.set_width(2);
  datum.add_float_data(1.f);
  Status s = ValidateDatum(datum, "abc");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(),
            "record 'abc': shape 1x2x2 needs 4 values, the record has 1 float values and no "
            "uint8 data");
}

TEST(DatumTest, CutRecordBytesAreDataLoss) {
  const uint8_t pixels[64] = {};
  const std::string bytes = MakeDatum(1, 8, 8, pixels, 1).SerializeAsString();
  Datum parsed;
  Status s = ParseDatum(std::string_view(bytes).substr(0, bytes.size() - 20), "00000007", &parsed);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("record '00000007'"), std::string::npos) << s.message();
}

TEST(DatumTest, BadShapeAndUndecodedAreRejected) {
  Datum datum;
  datum.set_channels(0);
  datum.set_height(2);
  datum.set_width(2);
  EXPECT_EQ(ValidateDatum(datum, "k").message(),
            "record 'k': bad shape 0x2x2 (channels, height and width must be positive)");
  datum.set_encoded(true);
  EXPECT_EQ(ValidateDatum(datum, "k").message(),
            "record 'k': holds an encoded (JPEG/PNG) image; decode it first (ParseDatum)");
}

TEST(DatumTest, CorruptEncodedImageNamesTheRecord) {
  Datum datum;
  datum.set_encoded(true);
  datum.set_data("GIF89a...");
  datum.set_label(3);
  Datum parsed;
  Status s = ParseDatum(datum.SerializeAsString(), "00000042_cat.gif", &parsed);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(),
            "record '00000042_cat.gif': encoded image: not a JPEG or PNG image "
            "(starts with bytes 47 49 46 38)");
}

}  // namespace
}  // namespace dtrain
