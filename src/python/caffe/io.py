"""caffe.io: pycaffe's io names over dtrain.io (docs/python.md).

Images load and resize as pycaffe's do (load_image: H x W x C float32 in [0, 1], RGB), and
Transformer is pycaffe's. Datums and BlobProtos are caffe.proto.caffe_pb2 messages here, as in
pycaffe."""

import numpy as np

from dtrain.io import Transformer, load_image, load_mean, write_blobproto  # noqa: F401
from dtrain.io import resize_image as _resize_image
from dtrain.io import array_to_datum as _array_to_datum
from dtrain.io import datum_to_array as _datum_to_array


def _caffe_pb2():
    from .proto import caffe_pb2
    return caffe_pb2


def resize_image(im, new_dims, interp_order=1):
    """Bilinear resize to new_dims (h, w); pycaffe's other interpolation orders are not offered."""
    if interp_order != 1:
        raise NotImplementedError("caffe.io.resize_image: dtrain resizes bilinearly only "
                                  "(interp_order=1), not with order %r" % (interp_order,))
    return _resize_image(im, tuple(new_dims))


def blobproto_to_array(blob, return_diff=False):
    """A BlobProto's data (diff with return_diff) as a float32 array of its shape."""
    values = np.array(blob.diff if return_diff else blob.data, dtype=np.float32)
    if blob.HasField("shape"):
        return values.reshape(tuple(blob.shape.dim))
    return values.reshape(blob.num, blob.channels, blob.height, blob.width)


def array_to_blobproto(arr, diff=None):
    """An array (and its diff) as a BlobProto with a shape."""
    blob = _caffe_pb2().BlobProto()
    blob.shape.dim.extend(arr.shape)
    blob.data.extend(np.asarray(arr, dtype=np.float32).flat)
    if diff is not None:
        blob.diff.extend(np.asarray(diff, dtype=np.float32).flat)
    return blob


def array_to_datum(arr, label=None):
    """A C x H x W array (uint8 for byte data, else float) as a Datum message."""
    datum = _caffe_pb2().Datum()
    datum.ParseFromString(_array_to_datum(arr, 0 if label is None else label))
    return datum


def datum_to_array(datum):
    """A Datum message (or its bytes) as its C x H x W array (the label is datum.label)."""
    data = datum if isinstance(datum, (bytes, bytearray)) else datum.SerializeToString()
    return _datum_to_array(bytes(data))[0]


def oversample(images, crop_dims):
    """pycaffe's ten crops per image: the four corners and the centre, then their mirrors."""
    images = [np.asarray(im) for im in images]
    im_shape = np.array(images[0].shape[:2])
    crop_dims = np.array(crop_dims)
    starts = [(0, 0), (0, im_shape[1] - crop_dims[1]), (im_shape[0] - crop_dims[0], 0),
              tuple(im_shape - crop_dims), tuple((im_shape - crop_dims) // 2)]
    crops = np.empty((10 * len(images), crop_dims[0], crop_dims[1], images[0].shape[-1]),
                     dtype=np.float32)
    ix = 0
    for im in images:
        for y, x in starts:
            crops[ix] = im[y:y + crop_dims[0], x:x + crop_dims[1], :]
            ix += 1
        crops[ix:ix + 5] = crops[ix - 5:ix, :, ::-1, :]
        ix += 5
    return crops
