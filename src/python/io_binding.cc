#include "python/io_binding.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/proto_io.h"
#include "core/tensor.h"
#include "data/datum.h"
#include "data/lmdb_db.h"
#include "python/path_args.h"
#include "python/python_errors.h"

namespace py = pybind11;

namespace dtrain::python {

namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

py::array_t<float> TensorToArray(const Tensor& t) {
  py::array_t<float> out(std::vector<py::ssize_t>(t.shape().begin(), t.shape().end()));
  if (t.count() > 0) std::memcpy(out.mutable_data(), t.data(), t.count() * sizeof(float));
  return out;
}

std::vector<int> ArrayShape(const py::array& a, const char* what) {
  std::vector<int> shape;
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    if (a.shape(i) > 0x7fffffff) {
      throw py::value_error(std::string(what) + ": dimension " + std::to_string(a.shape(i)) +
                            " is larger than 2^31 - 1");
    }
    shape.push_back(static_cast<int>(a.shape(i)));
  }
  return shape;
}

py::array_t<float> ReadBlobProto(const py::object& file) {
  const std::string path = PathArg(file, "read_blobproto: path");
  BlobProto proto;
  ThrowIfError(ReadBinaryProto(path, &proto));
  Tensor t;
  ThrowIfError(t.FromProto(proto, /*reshape=*/true).WithContext(path));
  return TensorToArray(t);
}

void WriteBlobProto(const py::object& file, const FloatArray& array) {
  const std::string path = PathArg(file, "write_blobproto: path");
  Tensor t;
  try {
    t.Reshape(ArrayShape(array, "write_blobproto"));
  } catch (const TensorShapeError& e) {
    throw py::value_error(std::string("write_blobproto: ") + e.what());
  }
  if (t.count() > 0) std::memcpy(t.mutable_data(), array.data(), t.count() * sizeof(float));
  BlobProto proto;
  t.ToProto(&proto, /*write_diff=*/false);
  ThrowIfError(WriteBinaryProtoAtomically(path, proto));
}

// A Datum's values as a C x H x W array: uint8 for byte data, float32 for float_data.
py::tuple DatumToArray(const py::bytes& record) {
  Datum datum;
  ThrowIfError(ParseDatum(std::string_view(record), "the record", &datum));
  const std::vector<py::ssize_t> shape{datum.channels(), datum.height(), datum.width()};
  if (!datum.data().empty()) {
    py::array_t<uint8_t> out(shape);
    std::memcpy(out.mutable_data(), datum.data().data(), datum.data().size());
    return py::make_tuple(out, datum.label());
  }
  py::array_t<float> out(shape);
  std::memcpy(out.mutable_data(), datum.float_data().data(),
              datum.float_data_size() * sizeof(float));
  return py::make_tuple(out, datum.label());
}

// A C x H x W (or H x W: one channel) array as a serialized Datum: uint8 arrays as bytes, any
// other as float_data.
py::bytes ArrayToDatum(const py::array& array, int label) {
  if (array.ndim() != 2 && array.ndim() != 3) {
    throw py::value_error("array_to_datum: the array must be C x H x W or H x W, not " +
                          std::to_string(array.ndim()) + "-d");
  }
  const std::vector<int> shape = ArrayShape(array, "array_to_datum");
  const int c = array.ndim() == 3 ? shape[0] : 1;
  const int h = shape[array.ndim() - 2];
  const int w = shape[array.ndim() - 1];
  Datum datum;
  if (py::isinstance<py::array_t<uint8_t>>(array)) {
    auto bytes = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>::ensure(array);
    datum = MakeDatum(c, h, w, bytes.data(), label);
  } else {
    FloatArray values = FloatArray::ensure(array);
    if (!values) throw py::value_error("array_to_datum: the array is not numeric");
    datum.set_channels(c);
    datum.set_height(h);
    datum.set_width(w);
    datum.set_label(label);
    datum.mutable_float_data()->Add(values.data(), values.data() + values.size());
  }
  std::string out;
  datum.SerializeToString(&out);
  return py::bytes(out);
}

// An image file's bytes as a C x H x W uint8 array, BGR (or 1 channel: gray), as Caffe reads it.
py::array_t<uint8_t> DecodeImageBytes(const py::bytes& bytes, bool color) {
  ChwImage image = ValueOrThrow(
      DecodeImage(std::string_view(bytes), color ? ImageColor::kColor : ImageColor::kGray));
  py::array_t<uint8_t> out(std::vector<py::ssize_t>{image.channels, image.height, image.width});
  std::memcpy(out.mutable_data(), image.pixels.data(), image.pixels.size());
  return out;
}

// The first `limit` (key, value) records of an LMDB (all with limit < 0), in key order.
std::vector<std::pair<py::bytes, py::bytes>> LmdbRecords(const py::object& file, long long limit) {
  const std::string path = PathArg(file, "lmdb_records: path");
  std::unique_ptr<LmdbReader> reader = ValueOrThrow(LmdbReader::Open(path));
  std::vector<std::pair<py::bytes, py::bytes>> records;
  if (reader->Count() == 0) return records;
  ThrowIfError(reader->SeekToFirst());
  const long long n = limit < 0 ? reader->Count() : std::min<long long>(limit, reader->Count());
  for (long long i = 0; i < n; ++i) {
    if (i > 0) ThrowIfError(reader->Next());
    records.emplace_back(py::bytes(reader->key().data(), reader->key().size()),
                         py::bytes(reader->value().data(), reader->value().size()));
  }
  return records;
}

// Creates the LMDB `path` holding `records`, (key, value) byte pairs.
long long WriteLmdb(const py::object& file, const py::iterable& records) {
  const std::string path = PathArg(file, "write_lmdb: path");
  std::unique_ptr<LmdbWriter> writer = ValueOrThrow(LmdbWriter::Create(path));
  for (const py::handle& record : records) {
    std::pair<py::bytes, py::bytes> pair;
    try {
      pair = record.cast<std::pair<py::bytes, py::bytes>>();
    } catch (const py::cast_error&) {
      throw py::type_error("write_lmdb: each record must be a (key, value) pair of bytes, not " +
                           TypeName(record));
    }
    ThrowIfError(writer->Put(std::string(pair.first), std::string(pair.second)));
  }
  ThrowIfError(writer->Close());
  return writer->committed();
}

}  // namespace

void BindIo(py::module_& m) {
  m.def("read_blobproto", &ReadBlobProto, py::arg("path"),
        "a BlobProto file (a mean.binaryproto) as a float32 array of its shape");
  m.def("write_blobproto", &WriteBlobProto, py::arg("path"), py::arg("array"),
        "writes an array as a BlobProto file (Caffe's mean file format)");
  m.def("datum_to_array", &DatumToArray, py::arg("record"),
        "a serialized Datum as (C x H x W array, label); encoded images are decoded (BGR)");
  m.def("array_to_datum", &ArrayToDatum, py::arg("array"), py::arg("label") = 0,
        "a C x H x W array as a serialized Datum (uint8 arrays as bytes, others as floats)");
  m.def("decode_image", &DecodeImageBytes, py::arg("bytes"), py::arg("color") = true,
        "JPEG or PNG bytes as a C x H x W uint8 array (BGR, or 1 gray channel)");
  m.def("lmdb_records", &LmdbRecords, py::arg("path"), py::arg("limit") = -1,
        "the first `limit` (key, value) records of an LMDB (all: -1), in key order");
  m.def("write_lmdb", &WriteLmdb, py::arg("path"), py::arg("records"),
        "creates an LMDB of (key, value) byte pairs (never over an existing path); returns the "
        "count");
}

}  // namespace dtrain::python
