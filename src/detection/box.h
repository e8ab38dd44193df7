// NormalizedBox: an axis-aligned box as the SSD fork's NormalizedBBox carries it, as a plain value,
// and the fork's arithmetic on boxes (src/caffe/util/bbox_util.cpp in Intel Caffe).
//
// Coordinates are floats, normally normalised to the image ([0, 1], x right, y down); "pixel" boxes
// (normalized = false) follow the fork's +1 convention: a box from x 0 to x 9 is 10 pixels wide.
// A box with xmax < xmin or ymax < ymin is empty: its size is 0 and it overlaps nothing. NaN
// coordinates never crash anything here; they give a size or overlap that compares false against
// every threshold (so an NMS or a match never keeps them). Pure functions; thread-safe.
#pragma once

namespace dtrain::detection {

struct NormalizedBox {
  float xmin = 0, ymin = 0, xmax = 0, ymax = 0;
  int label = -1;          // the class, where a box has one (ground truth, detections)
  bool difficult = false;  // a ground-truth box VOC marks difficult
  float score = 0;         // a detection's confidence
};

// Width x height; (width + 1) x (height + 1) when !normalized; 0 for an empty box.
float BoxSize(const NormalizedBox& box, bool normalized = true);

// The intersection of a and b; all zeros when they do not touch (the fork's IntersectBBox: boxes
// that only share an edge intersect in a box of size 0).
NormalizedBox IntersectBoxes(const NormalizedBox& a, const NormalizedBox& b);

// Intersection over union; with !normalized every side gets the +1 of pixel boxes (the
// intersection's and, through BoxSize, both areas'), as the fork computes it for boxes scaled to
// pixels. 0 when they do not intersect.
float JaccardOverlap(const NormalizedBox& a, const NormalizedBox& b, bool normalized = true);

// The box with each coordinate clamped to [0, 1] (or [0, width] and [0, height]).
NormalizedBox ClipBox(const NormalizedBox& box);
NormalizedBox ClipBox(const NormalizedBox& box, float height, float width);

// The box with x multiplied by width and y by height (normalised to pixels).
NormalizedBox ScaleBox(const NormalizedBox& box, float height, float width);

// Whether a coordinate lies outside [0, 1].
bool IsCrossBoundaryBox(const NormalizedBox& box);

// `box` in the coordinates of `source` (the part of the image `source` covers becomes [0, 1]),
// clipped to [0, 1], into *out; returns whether that box has a positive size. When box does not
// overlap source at all, returns false and leaves *out untouched. The fork's ProjectBBox.
bool ProjectBox(const NormalizedBox& source, const NormalizedBox& box, NormalizedBox* out);

}  // namespace dtrain::detection
