// YOLO v2's region arithmetic, as Intel Caffe's RegionLoss and EvalDetection compute it: boxes
// given by their centre and size in normalised image coordinates, their overlap, and the box a
// grid cell's anchor predicts. Plain functions on float32 values; thread-safe.
//
// A prediction of anchor n in cell (i, j) of a side x side grid is four raw values
// (tx, ty, tw, th); its box is
//   ((i + sigmoid(tx)) / side, (j + sigmoid(ty)) / side,
//    exp(tw) anchor_w / side, exp(th) anchor_h / side),
// the anchor's width and height in cells (`biases` pairs of the layers' parameters).
#pragma once

namespace dtrain::detection {

// A box by centre (x, y) and size (w, h), normalised to the image.
struct CenterBox {
  float x = 0, y = 0, w = 0, h = 0;
};

// 1 / (1 + e^-x), computed in double and rounded to float as the ports do.
float RegionSigmoid(float x);

// Replaces values[0..count) by their softmax (the largest value subtracted first), in float.
void RegionSoftmax(float* values, int count);

// Intersection over union of two centre boxes as the ports compute it: the overlap along each
// axis is min(right) - max(left); either negative gives 0, otherwise intersection / union (a
// zero union gives what float division gives, and NaN inputs give NaN).
float RegionIou(const CenterBox& a, const CenterBox& b);

// The box that raw values p[0..3] (tx, ty, tw, th) predict for an anchor of anchor_w x anchor_h
// cells in cell (i, j) of a side x side grid.
CenterBox RegionPredictedBox(const float* p, float anchor_w, float anchor_h, int i, int j,
                             int side);

}  // namespace dtrain::detection
