// Python: Caffe's PythonLayer. Runs the user's class `python_param.layer` of the module
// `python_param.module` (found on sys.path, so on PYTHONPATH, as Caffe finds it) with Caffe's
// protocol:
//
//   setup     the module is imported and the class called with one argument, the layer's
//             parameters (an object with name, type, bottom, top, phase and python_param; Caffe
//             passes an opaque LayerParameter there); `param_str` (str), `phase` (0 TRAIN, 1
//             TEST) and `blobs` (the learnable parameters: blobs.add_blob(*dims) in setup) are
//             set on the object; then setup(bottom, top) and reshape(bottom, top).
//   forward   reshape(bottom, top) then forward(bottom, top), every time, as Caffe's Forward.
//   backward  backward(top, propagate_down, bottom), propagate_down a list of bools; the diff of
//             every bottom that needs one is zeroed first, so a diff Python leaves alone is 0.
//
// bottom and top are lists of Blobs (pylayer/blob_view.h): NumPy views of the tensors, taken
// afresh on each access, so Python reads and writes the plain values whatever layout a kernel
// left them in. A loss top takes `loss_weight` as in Caffe (no default weight). An exception
// raised by the user's code is this layer's error: the Python traceback, after the layer's name,
// its type and its class; from backward it is kept until the net's caller collects it
// (Layer::TakeBackwardError). Every call takes the GIL, from whichever thread runs the net.
// `share_in_parallel` is read and has no effect: each dtrain rank is a process of its own, with an
// interpreter of its own.
#pragma once

#include <memory>

#include "layers/layer.h"

struct _object;  // Python's PyObject (Python.h), declared as Python declares it

namespace dtrain::pylayer {

class PythonLayer : public Layer {
 public:
  PythonLayer(const LayerParameter& param, const LayerContext& context);
  ~PythonLayer() override;  // drops the Python object under the GIL
  const char* type() const override { return "Python"; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;
  // The user's object (a borrowed reference), null before setup: what pycaffe's net.layers
  // gives for a Python layer, so that scripts call their own methods on it
  // (py-faster-rcnn's `solver.net.layers[0].set_roidb(roidb)`).
  _object* python_object() const;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override;

 private:
  struct Python;  // the object, its blob lists (python_layer.cc): Python's types stay there
  std::unique_ptr<Python> py_;
  bool reshaped_ = false;  // Reshape ran since the last forward
};

}  // namespace dtrain::pylayer
