#include "data/hdf5_file.h"

#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <numeric>

#include "core/atomic_file.h"
#include "core/fnv1a.h"
#include "core/machine_memory.h"
#include "core/tensor.h"

namespace dtrain {
namespace {

// Serial HDF5 keeps global state; every call goes through this lock.
std::mutex& Hdf5Mutex() {
  static std::mutex mutex;
  return mutex;
}

// HDF5 prints a stack of errors to stderr by default; dtrain reports its own.
void SilenceHdf5Errors() {
  static const bool silenced = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)silenced;
}

// Closes an HDF5 object when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

std::string Where(const std::string& path, const std::string& name) {
  return path + ": dataset '" + name + "'";
}

std::string DimsText(const std::vector<hsize_t>& dims) {
  std::string text;
  for (hsize_t d : dims) text += (text.empty() ? "" : " x ") + std::to_string(d);
  return text.empty() ? "(scalar)" : text;
}

// The number of chunks a chunked dataset of `dims` takes, chunks of `chunk`.
uint64_t ChunksOf(const std::vector<hsize_t>& dims, const std::vector<hsize_t>& chunk) {
  uint64_t chunks = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    const uint64_t along = chunk[i] == 0 ? 0 : (dims[i] + chunk[i] - 1) / chunk[i];
    if (__builtin_mul_overflow(chunks, along, &chunks)) return UINT64_MAX;
  }
  return chunks;
}

// Whether the file holds every value `dataset` claims (`values` of `value_bytes` each): a header
// damaged (or written) to claim more rows than were ever stored reads as a fill value, or past
// the data; compact datasets hold theirs in the header. Lock held by the caller.
Status CheckStoredValues(hid_t dataset, const std::string& where, const std::vector<hsize_t>& dims,
                         int64_t values, size_t value_bytes) {
  uint64_t need = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(values), value_bytes, &need)) need = UINT64_MAX;
  const std::string claim = ": shape " + DimsText(dims) + " (" + std::to_string(values) +
                            " values, " + ByteSize(static_cast<double>(need)) + ")";
  const char* why = " (a damaged or cut-short file, or a dataset that was never written)";
  Handle plist(H5Dget_create_plist(dataset), H5Pclose);
  if (!plist.ok()) return DataLoss(where + ": unreadable creation properties");
  const H5D_layout_t layout = H5Pget_layout(plist.get());
  if (layout == H5D_CONTIGUOUS) {
    const hsize_t stored = H5Dget_storage_size(dataset);
    if (stored < need) {
      return DataLoss(where + claim + " but the file stores " +
                      ByteSize(static_cast<double>(stored)) + " of them" + why);
    }
  } else if (layout == H5D_CHUNKED) {
    std::vector<hsize_t> chunk(dims.size());
    if (H5Pget_chunk(plist.get(), static_cast<int>(chunk.size()), chunk.data()) < 0) {
      return DataLoss(where + ": unreadable chunk layout");
    }
    const uint64_t expected = ChunksOf(dims, chunk);
    Handle space(H5Dget_space(dataset), H5Sclose);
    hsize_t stored = 0;
    if (H5Dget_num_chunks(dataset, space.get(), &stored) < 0) {
      return DataLoss(where + ": unreadable chunk index");
    }
    if (stored < expected) {
      return DataLoss(where + claim + " but the file stores " + std::to_string(stored) +
                      " of its " + std::to_string(expected) + " chunks" + why);
    }
  }
  return Status::Ok();
}

// The dimensions of `dataset` (of file type `type`) as a shape, refused, before anything is
// allocated, when a dimension exceeds an int, when its values as float would not fit in this
// machine's memory, or when the file does not hold them. Errors start with `where`. Lock held by
// the caller.
Status CheckedShape(hid_t dataset, hid_t type, const std::string& where, std::vector<int>* shape) {
  Handle space(H5Dget_space(dataset), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) return DataLoss(where + ": unreadable dataspace");
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  shape->clear();
  for (hsize_t d : dims) {
    if (d > static_cast<hsize_t>(INT32_MAX)) {
      return DataLoss(where + ": shape " + DimsText(dims) + ": a dimension of " +
                      std::to_string(d) + " is too large (more than 2147483647)");
    }
    shape->push_back(static_cast<int>(d));
  }
  const Status fits = CheckTensorShape(*shape);
  if (!fits.ok()) return DataLoss(where + ": " + fits.message());
  // A null dataspace holds no value, a scalar one.
  const int64_t values = H5Sget_simple_extent_npoints(space.get());
  return CheckStoredValues(dataset, where, dims, values, H5Tget_size(type));
}

// Opens `path` read-only and dataset `name` in it, checking that it is numeric with rank >= 1.
// Lock held by the caller.
Status OpenDataset(const std::string& path, const std::string& name, std::unique_ptr<Handle>* file,
                   std::unique_ptr<Handle>* dataset, std::vector<int>* shape) {
  SilenceHdf5Errors();
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return NotFound(path + ": no such file");
  if (H5Fis_hdf5(path.c_str()) <= 0) return IoError(path + ": cannot open as an HDF5 file");
  *file = std::make_unique<Handle>(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!(*file)->ok()) return IoError(path + ": cannot open as an HDF5 file");
  if (H5Lexists((*file)->get(), name.c_str(), H5P_DEFAULT) <= 0) {
    return NotFound(path + ": no dataset '" + name + "'");
  }
  *dataset =
      std::make_unique<Handle>(H5Dopen2((*file)->get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!(*dataset)->ok()) return InvalidArgument(Where(path, name) + ": not a dataset");
  Handle type(H5Dget_type((*dataset)->get()), H5Tclose);
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_FLOAT && type_class != H5T_INTEGER) {
    return InvalidArgument(Where(path, name) +
                           ": holds neither integers nor floating-point values");
  }
  Handle space(H5Dget_space((*dataset)->get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank == 0) return InvalidArgument(Where(path, name) + ": a scalar; rows need rank >= 1");
  return CheckedShape((*dataset)->get(), type.get(), Where(path, name), shape);
}

int64_t Count(const std::vector<int>& shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1},
                         [](int64_t a, int b) { return a * b; });
}

}  // namespace

StatusOr<std::vector<int>> ReadHdf5Shape(const std::string& path, const std::string& name) {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  std::unique_ptr<Handle> file, dataset;
  std::vector<int> shape;
  DT_RETURN_IF_ERROR(OpenDataset(path, name, &file, &dataset, &shape));
  return shape;
}

StatusOr<Hdf5Array> ReadHdf5Array(const std::string& path, const std::string& name) {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  std::unique_ptr<Handle> file, dataset;
  Hdf5Array array;
  DT_RETURN_IF_ERROR(OpenDataset(path, name, &file, &dataset, &array.shape));
  array.values.resize(static_cast<size_t>(Count(array.shape)));
  // HDF5 converts integers and doubles to float as it reads.
  if (!array.values.empty() && H5Dread(dataset->get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL,
                                       H5P_DEFAULT, array.values.data()) < 0) {
    return IoError(Where(path, name) + ": read failed");
  }
  return array;
}

StatusOr<Hdf5RowWriter> Hdf5RowWriter::Create(const std::string& path,
                                              const std::vector<std::string>& names,
                                              const std::vector<std::vector<int>>& row_shapes) {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  SilenceHdf5Errors();
  Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) return IoError(path + ": cannot create an HDF5 file");
  Hdf5RowWriter writer;
  writer.path_ = path;
  for (size_t i = 0; i < names.size(); ++i) {
    std::vector<hsize_t> dims{0}, max_dims{H5S_UNLIMITED}, chunk{1};
    for (int d : row_shapes[i]) {
      dims.push_back(static_cast<hsize_t>(d));
      max_dims.push_back(static_cast<hsize_t>(d));
      chunk.push_back(static_cast<hsize_t>(d > 0 ? d : 1));
    }
    // Chunks of about 64 Ki values: whole rows, several when rows are small.
    const int64_t row_values = std::max<int64_t>(1, Count(row_shapes[i]));
    chunk[0] = static_cast<hsize_t>(std::max<int64_t>(1, 65536 / row_values));
    Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), max_dims.data()),
                 H5Sclose);
    Handle properties(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_chunk(properties.get(), static_cast<int>(chunk.size()), chunk.data());
    Handle dataset(H5Dcreate2(file.get(), names[i].c_str(), H5T_NATIVE_FLOAT, space.get(),
                              H5P_DEFAULT, properties.get(), H5P_DEFAULT),
                   H5Dclose);
    if (!dataset.ok()) return IoError(Where(path, names[i]) + ": cannot create");
    writer.names_.push_back(names[i]);
    writer.row_shapes_.push_back(row_shapes[i]);
    writer.rows_.push_back(0);
  }
  return writer;
}

Status Hdf5RowWriter::Append(int index, const float* values, int64_t rows) {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  const size_t i = static_cast<size_t>(index);
  const std::string where = Where(path_, names_[i]);
  Handle file(H5Fopen(path_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) return IoError(path_ + ": cannot reopen to append");
  Handle dataset(H5Dopen2(file.get(), names_[i].c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.ok()) return IoError(where + ": missing from the file it was created in");
  std::vector<hsize_t> size{static_cast<hsize_t>(rows_[i] + rows)};
  std::vector<hsize_t> start{static_cast<hsize_t>(rows_[i])};
  std::vector<hsize_t> count{static_cast<hsize_t>(rows)};
  for (int d : row_shapes_[i]) {
    size.push_back(static_cast<hsize_t>(d));
    start.push_back(0);
    count.push_back(static_cast<hsize_t>(d));
  }
  if (H5Dset_extent(dataset.get(), size.data()) < 0) return IoError(where + ": cannot grow");
  Handle file_space(H5Dget_space(dataset.get()), H5Sclose);
  H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                      nullptr);
  Handle memory_space(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr),
                      H5Sclose);
  if (rows > 0 && H5Dwrite(dataset.get(), H5T_NATIVE_FLOAT, memory_space.get(), file_space.get(),
                           H5P_DEFAULT, values) < 0) {
    return IoError(where + ": write failed");
  }
  rows_[i] += rows;
  return Status::Ok();
}

// --- whole files: snapshots ---------------------------------------------------------------------

namespace {

// Whether every link along `name` ("a/b/c") exists. Lock held by the caller.
bool LinkExists(hid_t file, const std::string& name) {
  for (size_t slash = name.find('/');; slash = name.find('/', slash + 1)) {
    const std::string prefix = name.substr(0, slash);
    if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) return true;
  }
}

// A new link-creation property list that makes missing intermediate groups (the caller closes).
hid_t IntermediateGroups() {
  const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(lcpl, 1);
  return lcpl;
}

Status PutDataset(hid_t file, const std::string& name, hid_t type, hid_t space,
                  const void* values) {
  Handle lcpl(IntermediateGroups(), H5Pclose);
  Handle dataset(H5Dcreate2(file, name.c_str(), type, space, lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                 H5Dclose);
  if (!dataset.ok()) return IoError("HDF5: cannot create dataset '" + name + "'");
  if (H5Dwrite(dataset.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0) {
    return IoError("HDF5: cannot write dataset '" + name + "'");
  }
  return Status::Ok();
}

}  // namespace

namespace {

herr_t CollectHardLink(hid_t, const char* name, const H5L_info_t* info, void* names) {
  if (info->type == H5L_TYPE_HARD) static_cast<std::vector<std::string>*>(names)->push_back(name);
  return 0;
}

// FNV-1a over every dataset of `file`, in name order: its name, type class and value size,
// dimensions and values as stored (the file's byte order, so any machine computes the same).
// Attributes are not covered: the checksums live there. `path` names the file in errors. Lock
// held by the caller.
StatusOr<uint64_t> ContentChecksumOf(hid_t file, const std::string& path) {
  std::vector<std::string> names;
  if (H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, CollectHardLink, &names) < 0) {
    return DataLoss(path + ": cannot list its contents");
  }
  std::sort(names.begin(), names.end());
  Fnv1a64 hash;
  for (const std::string& name : names) {
    Handle object(H5Oopen(file, name.c_str(), H5P_DEFAULT), H5Oclose);
    if (!object.ok()) return DataLoss(path + ": cannot open '" + name + "'");
    if (H5Iget_type(object.get()) != H5I_DATASET) continue;
    Handle type(H5Dget_type(object.get()), H5Tclose);
    std::vector<int> shape;
    DT_RETURN_IF_ERROR(CheckedShape(object.get(), type.get(), Where(path, name), &shape));
    const H5T_class_t type_class = H5Tget_class(type.get());
    const size_t value_bytes = H5Tget_size(type.get());
    hash.Add(name.c_str(), name.size() + 1);
    hash.AddU64(static_cast<uint64_t>(type_class));
    hash.AddU64(value_bytes);
    hash.AddU64(shape.size());
    for (int d : shape) hash.AddU64(static_cast<uint64_t>(d));
    const bool fixed = type_class == H5T_INTEGER || type_class == H5T_FLOAT ||
                       (type_class == H5T_STRING && H5Tis_variable_str(type.get()) <= 0);
    if (!fixed) continue;  // variable-length values: their shape only
    Handle space(H5Dget_space(object.get()), H5Sclose);
    const hssize_t values = H5Sget_simple_extent_npoints(space.get());
    std::string bytes(static_cast<size_t>(std::max<hssize_t>(values, 0)) * value_bytes, '\0');
    // Read in the file's own type: the bytes as stored, unconverted.
    if (!bytes.empty() &&
        H5Dread(object.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()) < 0) {
      return DataLoss(Where(path, name) + ": read failed");
    }
    hash.Add(bytes);
  }
  return hash.value();
}

Status PutRootAttributeOf(hid_t file, const std::string& name, uint64_t value) {
  Handle root(H5Oopen(file, "/", H5P_DEFAULT), H5Oclose);
  if (!root.ok()) return IoError("HDF5: cannot open the root group");
  if (H5Aexists(root.get(), name.c_str()) > 0) H5Adelete(root.get(), name.c_str());
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle attribute(
      H5Acreate2(root.get(), name.c_str(), H5T_STD_U64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
      H5Aclose);
  if (!attribute.ok() || H5Awrite(attribute.get(), H5T_NATIVE_UINT64, &value) < 0) {
    return IoError("HDF5: cannot write attribute '" + name + "'");
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<Hdf5ImageWriter>> Hdf5ImageWriter::Create() {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  SilenceHdf5Errors();
  Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  // In memory only (no backing store): the bytes are taken out whole by WriteAtomically.
  H5Pset_fapl_core(fapl.get(), 1 << 20, 0);
  const hid_t file = H5Fcreate("dtrain-image.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
  if (file < 0) return IoError("HDF5: cannot create an in-memory file");
  return std::unique_ptr<Hdf5ImageWriter>(new Hdf5ImageWriter(file));
}

Hdf5ImageWriter::~Hdf5ImageWriter() {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  H5Fclose(file_);
}

Status Hdf5ImageWriter::PutGroup(const std::string& name) {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  if (LinkExists(file_, name)) return Status::Ok();  // made already, e.g. as a parent
  Handle lcpl(IntermediateGroups(), H5Pclose);
  Handle group(H5Gcreate2(file_, name.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  if (!group.ok()) return IoError("HDF5: cannot create group '" + name + "'");
  return Status::Ok();
}

Status Hdf5ImageWriter::PutFloats(const std::string& name, const std::vector<int>& shape,
                                  const float* values) {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  std::vector<hsize_t> dims(shape.begin(), shape.end());
  Handle space(dims.empty() ? H5Screate(H5S_SCALAR)
                            : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
               H5Sclose);
  return PutDataset(file_, name, H5T_NATIVE_FLOAT, space.get(), values);
}

Status Hdf5ImageWriter::PutInt(const std::string& name, int value) {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  const hsize_t one = 1;
  Handle space(H5Screate_simple(1, &one, nullptr), H5Sclose);
  return PutDataset(file_, name, H5T_NATIVE_INT, space.get(), &value);
}

Status Hdf5ImageWriter::PutString(const std::string& name, const std::string& value) {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), value.size() + 1);
  H5Tset_strpad(type.get(), H5T_STR_NULLTERM);
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  return PutDataset(file_, name, type.get(), space.get(), value.c_str());
}

Status Hdf5ImageWriter::PutBytes(const std::string& name, const std::string& bytes) {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  const hsize_t size = bytes.size();
  Handle space(size == 0 ? H5Screate(H5S_NULL) : H5Screate_simple(1, &size, nullptr), H5Sclose);
  return PutDataset(file_, name, H5T_NATIVE_UINT8, space.get(), bytes.data());
}

StatusOr<uint64_t> Hdf5ImageWriter::ContentChecksum() {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  return ContentChecksumOf(file_, "HDF5 image");
}

Status Hdf5ImageWriter::PutRootAttribute(const std::string& name, uint64_t value) {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  return PutRootAttributeOf(file_, name, value);
}

Status Hdf5ImageWriter::WriteAtomically(const std::string& path) {
  std::string image;
  {
    std::lock_guard<std::mutex> lock(Hdf5Mutex());
    if (H5Fflush(file_, H5F_SCOPE_GLOBAL) < 0) return IoError(path + ": HDF5 flush failed");
    const ssize_t size = H5Fget_file_image(file_, nullptr, 0);
    if (size < 0) return IoError(path + ": cannot take the HDF5 file image");
    image.resize(static_cast<size_t>(size));
    if (H5Fget_file_image(file_, image.data(), image.size()) != size) {
      return IoError(path + ": cannot take the HDF5 file image");
    }
  }
  return WriteFileAtomically(path, image);
}

StatusOr<std::unique_ptr<Hdf5FileReader>> Hdf5FileReader::Open(const std::string& path) {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  SilenceHdf5Errors();
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return NotFound(path + ": no such file");
  if (H5Fis_hdf5(path.c_str()) <= 0) return DataLoss(path + ": not an HDF5 file");
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return IoError(path + ": cannot open as an HDF5 file");
  return std::unique_ptr<Hdf5FileReader>(new Hdf5FileReader(path, file));
}

Hdf5FileReader::~Hdf5FileReader() {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  H5Fclose(file_);
}

namespace {

herr_t CollectName(hid_t, const char* name, const H5L_info_t*, void* names) {
  static_cast<std::vector<std::string>*>(names)->push_back(name);
  return 0;
}

}  // namespace

bool Hdf5FileReader::Has(const std::string& name) const {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  return LinkExists(file_, name);
}

StatusOr<std::vector<std::string>> Hdf5FileReader::Members(const std::string& group) const {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  if (!LinkExists(file_, group)) return DataLoss(path_ + ": no group '" + group + "'");
  Handle g(H5Gopen2(file_, group.c_str(), H5P_DEFAULT), H5Gclose);
  if (!g.ok()) return DataLoss(path_ + ": '" + group + "' is not a group");
  std::vector<std::string> names;
  hsize_t index = 0;
  if (H5Literate(g.get(), H5_INDEX_NAME, H5_ITER_INC, &index, CollectName, &names) < 0) {
    return DataLoss(path_ + ": cannot list group '" + group + "'");
  }
  return names;
}

StatusOr<Hdf5Array> Hdf5FileReader::Floats(const std::string& name) const {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  if (!LinkExists(file_, name)) return DataLoss(path_ + ": no dataset '" + name + "'");
  Handle dataset(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.ok()) return DataLoss(Where(path_, name) + ": not a dataset");
  Handle type(H5Dget_type(dataset.get()), H5Tclose);
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_FLOAT && type_class != H5T_INTEGER) {
    return DataLoss(Where(path_, name) + ": holds neither integers nor floating-point values");
  }
  Hdf5Array array;
  DT_RETURN_IF_ERROR(CheckedShape(dataset.get(), type.get(), Where(path_, name), &array.shape));
  array.values.resize(static_cast<size_t>(Count(array.shape)));
  if (!array.values.empty() && H5Dread(dataset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL,
                                       H5P_DEFAULT, array.values.data()) < 0) {
    return DataLoss(Where(path_, name) + ": read failed");
  }
  return array;
}

StatusOr<uint64_t> Hdf5FileReader::ContentChecksum() const {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  return ContentChecksumOf(file_, path_);
}

StatusOr<std::optional<uint64_t>> Hdf5FileReader::RootAttribute(const std::string& name) const {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  if (H5Aexists_by_name(file_, "/", name.c_str(), H5P_DEFAULT) <= 0) {
    return std::optional<uint64_t>();
  }
  const std::string where = path_ + ": attribute '" + name + "'";
  Handle attribute(H5Aopen_by_name(file_, "/", name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attribute.ok()) return DataLoss(where + ": cannot open");
  Handle type(H5Aget_type(attribute.get()), H5Tclose);
  Handle space(H5Aget_space(attribute.get()), H5Sclose);
  if (H5Tget_class(type.get()) != H5T_INTEGER || H5Sget_simple_extent_npoints(space.get()) != 1) {
    return DataLoss(where + ": not one integer");
  }
  uint64_t value = 0;
  if (H5Aread(attribute.get(), H5T_NATIVE_UINT64, &value) < 0) {
    return DataLoss(where + ": read failed");
  }
  return std::optional<uint64_t>(value);
}

StatusOr<int> Hdf5FileReader::Int(const std::string& name) const {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  const std::string where = Where(path_, name);
  if (!LinkExists(file_, name)) return DataLoss(path_ + ": no dataset '" + name + "'");
  Handle dataset(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.ok()) return DataLoss(where + ": not a dataset");
  Handle type(H5Dget_type(dataset.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_INTEGER) {
    return DataLoss(where + ": holds no integer (Caffe writes an int here)");
  }
  Handle space(H5Dget_space(dataset.get()), H5Sclose);
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  if (count != 1) {
    return DataLoss(where + ": expected one number, found " + std::to_string(count));
  }
  // Read as a 64-bit integer, exactly (through float, an iteration past 2^24 would round).
  long long value = 0;
  if (H5Dread(dataset.get(), H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value) < 0) {
    return DataLoss(where + ": read failed");
  }
  if (value < INT32_MIN || value > INT32_MAX) {
    return DataLoss(where + ": " + std::to_string(value) +
                    " is beyond what the field holds (a 32-bit int)");
  }
  return static_cast<int>(value);
}

StatusOr<std::string> Hdf5FileReader::String(const std::string& name) const {
  std::lock_guard<std::mutex> lock(Hdf5Mutex());
  if (!LinkExists(file_, name)) return DataLoss(path_ + ": no dataset '" + name + "'");
  Handle dataset(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.ok()) return DataLoss(Where(path_, name) + ": not a dataset");
  Handle type(H5Dget_type(dataset.get()), H5Tclose);
  Handle space(H5Dget_space(dataset.get()), H5Sclose);
  std::string text;
  if (H5Tget_class(type.get()) == H5T_STRING) {
    if (H5Tis_variable_str(type.get()) > 0) {
      return DataLoss(Where(path_, name) + ": variable-length strings are not read");
    }
    const hssize_t strings = H5Sget_simple_extent_npoints(space.get());
    if (strings != 1) {
      return DataLoss(Where(path_, name) + ": expected one string, found " +
                      std::to_string(strings));
    }
    const size_t size = H5Tget_size(type.get());
    if (size > static_cast<size_t>(MachineMemoryBytes())) {
      return DataLoss(Where(path_, name) + ": a string of " + ByteSize(static_cast<double>(size)) +
                      " is larger than this machine's memory (" +
                      ByteSize(static_cast<double>(MachineMemoryBytes())) + ")");
    }
    text.resize(size);
    if (!text.empty() &&
        H5Dread(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()) < 0) {
      return DataLoss(Where(path_, name) + ": read failed");
    }
    text.resize(std::strlen(text.c_str()));
    return text;
  }
  if (H5Tget_class(type.get()) != H5T_INTEGER || H5Tget_size(type.get()) != 1) {
    return DataLoss(Where(path_, name) + ": holds neither a string nor bytes");
  }
  std::vector<int> shape;
  DT_RETURN_IF_ERROR(CheckedShape(dataset.get(), type.get(), Where(path_, name), &shape));
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  text.resize(static_cast<size_t>(std::max<hssize_t>(count, 0)));
  if (!text.empty() &&
      H5Dread(dataset.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()) < 0) {
    return DataLoss(Where(path_, name) + ": read failed");
  }
  return text;
}

}  // namespace dtrain
