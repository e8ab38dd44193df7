#include "data/box_annotations.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/file_bytes.h"
#include "core/logging.h"
#include "data/text_fields.h"

namespace dtrain {
namespace {

std::string Trimmed(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

// `text` as a number, or an error naming `what` at `where`.
StatusOr<double> ParseNumber(const std::string& text, const std::string& what,
                             const std::string& where) {
  const std::string value = Trimmed(text);
  char* end = nullptr;
  const double number = value.empty() ? 0 : std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0') {
    return InvalidArgument(where + ": " + what + " '" + value.substr(0, 40) + "' is not a number");
  }
  if (!std::isfinite(number)) return InvalidArgument(where + ": " + what + " is not finite");
  return number;
}

// A whole number of pixels (an image size) at most 2^30.
StatusOr<int> ParseSize(const std::string& text, const std::string& what,
                        const std::string& where) {
  DT_ASSIGN_OR_RETURN(double number, ParseNumber(text, what, where));
  if (number != std::floor(number) || number < 0 || number > (1 << 30)) {
    return InvalidArgument(where + ": " + what + " " + Trimmed(text) +
                           " is not a size in pixels (a whole number from 0 to 2^30)");
  }
  return static_cast<int>(number);
}

// ---- xml --------------------------------------------------------------------------------------

struct XmlDocFree {
  void operator()(xmlDoc* doc) const { xmlFreeDoc(doc); }
};

std::string NodeText(const xmlNode* node) {
  xmlChar* content = xmlNodeGetContent(node);
  std::string text = content ? reinterpret_cast<const char*>(content) : "";
  xmlFree(content);
  return text;
}

bool Named(const xmlNode* node, const char* name) {
  return node->type == XML_ELEMENT_NODE && xmlStrcmp(node->name, BAD_CAST name) == 0;
}

// The first element child of `parent` called `name`, or null.
const xmlNode* Child(const xmlNode* parent, const char* name) {
  for (const xmlNode* c = parent->children; c; c = c->next) {
    if (Named(c, name)) return c;
  }
  return nullptr;
}

std::string At(const std::string& path, const xmlNode* node) {
  return path + ":" + std::to_string(xmlGetLineNo(node));
}

StatusOr<BoxObject> ReadXmlObject(const xmlNode* object, const std::string& path,
                                  const std::map<std::string, int>& name_to_label) {
  BoxObject box;
  box.where = At(path, object);
  const xmlNode* name = Child(object, "name");
  const xmlNode* bndbox = Child(object, "bndbox");
  if (!name || !bndbox) {
    return InvalidArgument(box.where + ": <object> has no <" + (name ? "bndbox" : "name") + ">");
  }
  const std::string label_name = Trimmed(NodeText(name));
  auto label = name_to_label.find(label_name);
  if (label == name_to_label.end()) {
    return InvalidArgument(At(path, name) + ": object name '" + label_name.substr(0, 80) +
                           "' is not in the label map");
  }
  box.label = label->second;
  if (const xmlNode* difficult = Child(object, "difficult")) {
    box.difficult = Trimmed(NodeText(difficult)) == "1";
  }
  double* corners[] = {&box.xmin, &box.ymin, &box.xmax, &box.ymax};
  const char* corner_names[] = {"xmin", "ymin", "xmax", "ymax"};
  for (int i = 0; i < 4; ++i) {
    const xmlNode* corner = Child(bndbox, corner_names[i]);
    if (!corner)
      return InvalidArgument(At(path, bndbox) + ": <bndbox> has no <" + corner_names[i] + ">");
    DT_ASSIGN_OR_RETURN(*corners[i],
                        ParseNumber(NodeText(corner), corner_names[i], At(path, corner)));
  }
  return box;
}

StatusOr<ImageBoxes> ReadXml(const std::string& path, const std::string& bytes,
                             const std::map<std::string, int>& name_to_label) {
  // No network, no entity substitution, no DTD loading; libxml2 bounds entity expansion.
  std::unique_ptr<xmlDoc, XmlDocFree> doc(
      xmlReadMemory(bytes.data(), static_cast<int>(bytes.size()), path.c_str(), nullptr,
                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING));
  if (!doc) {
    const xmlError* error = xmlGetLastError();
    std::string message = error && error->message ? Trimmed(error->message) : "unreadable XML";
    return InvalidArgument(path + ":" + std::to_string(error ? error->line : 0) + ": " + message);
  }
  const xmlNode* root = xmlDocGetRootElement(doc.get());
  if (!root || !Named(root, "annotation")) {
    return InvalidArgument(path + ": the root element is not <annotation>");
  }
  ImageBoxes boxes;
  if (const xmlNode* size = Child(root, "size")) {
    const xmlNode* width = Child(size, "width");
    const xmlNode* height = Child(size, "height");
    if (width && height) {
      DT_ASSIGN_OR_RETURN(boxes.width, ParseSize(NodeText(width), "width", At(path, width)));
      DT_ASSIGN_OR_RETURN(boxes.height, ParseSize(NodeText(height), "height", At(path, height)));
    }
  }
  for (const xmlNode* c = root->children; c; c = c->next) {
    if (!Named(c, "object")) continue;
    DT_ASSIGN_OR_RETURN(BoxObject box, ReadXmlObject(c, path, name_to_label));
    boxes.objects.push_back(std::move(box));
  }
  return boxes;
}

// ---- json -------------------------------------------------------------------------------------

StatusOr<ImageBoxes> ReadJson(const std::string& path, const std::string& bytes,
                              const std::map<std::string, int>& name_to_label) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(bytes);
  } catch (const nlohmann::json::exception& e) {
    return InvalidArgument(path + ": " + e.what());
  }
  ImageBoxes boxes;
  const std::string where = path;
  if (!doc.is_object()) return InvalidArgument(path + ": not a JSON object");
  if (doc.contains("image") && doc["image"].is_object()) {
    const nlohmann::json& image = doc["image"];
    if (image.contains("width") && image.contains("height")) {
      DT_ASSIGN_OR_RETURN(boxes.width, ParseSize(image["width"].dump(), "image.width", where));
      DT_ASSIGN_OR_RETURN(boxes.height, ParseSize(image["height"].dump(), "image.height", where));
    }
  }
  if (!doc.contains("annotation")) return boxes;
  if (!doc["annotation"].is_array()) {
    return InvalidArgument(path + ": \"annotation\" is not a list");
  }
  const nlohmann::json& list = doc["annotation"];
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& object = list[i];
    BoxObject box;
    box.where = path + ": annotation " + std::to_string(i);
    if (!object.is_object() || !object.contains("category_id") || !object.contains("bbox")) {
      return InvalidArgument(box.where + " has no category_id or no bbox");
    }
    const nlohmann::json& id = object["category_id"];
    const std::string name = id.is_string() ? id.get<std::string>() : id.dump();
    auto label = name_to_label.find(name);
    if (label == name_to_label.end()) {
      return InvalidArgument(box.where + ": category_id '" + name.substr(0, 80) +
                             "' is not in the label map");
    }
    box.label = label->second;
    if (object.contains("iscrowd")) {
      DT_ASSIGN_OR_RETURN(double crowd,
                          ParseNumber(object["iscrowd"].dump(), "iscrowd", box.where));
      box.difficult = crowd != 0;
    }
    const nlohmann::json& bbox = object["bbox"];
    if (!bbox.is_array() || bbox.size() != 4) {
      return InvalidArgument(box.where + ": bbox is not [x, y, width, height]");
    }
    double v[4];
    for (int k = 0; k < 4; ++k) {
      DT_ASSIGN_OR_RETURN(v[k], ParseNumber(bbox[k].dump(), "bbox value", box.where));
    }
    box.xmin = v[0];
    box.ymin = v[1];
    box.xmax = v[0] + v[2];
    box.ymax = v[1] + v[3];
    boxes.objects.push_back(std::move(box));
  }
  return boxes;
}

// ---- txt --------------------------------------------------------------------------------------

StatusOr<ImageBoxes> ReadText(const std::string& path, const std::string& bytes) {
  ImageBoxes boxes;
  const std::vector<std::string> lines = TextLines(bytes);
  for (size_t line = 1; line <= lines.size(); ++line) {
    const std::vector<std::string> fields = BlankSeparatedFields(lines[line - 1]);
    if (fields.empty()) continue;
    BoxObject box;
    box.where = path + ":" + std::to_string(line);
    if (fields.size() != 5) {
      return InvalidArgument(box.where + ": expected \"label xmin ymin xmax ymax\", got " +
                             std::to_string(fields.size()) + " fields");
    }
    DT_ASSIGN_OR_RETURN(double label, ParseNumber(fields[0], "label", box.where));
    if (label != std::floor(label) || label < 0 || label > (1 << 30)) {
      return InvalidArgument(box.where + ": label " + fields[0] + " is not a class id (>= 0)");
    }
    box.label = static_cast<int>(label);
    double* corners[] = {&box.xmin, &box.ymin, &box.xmax, &box.ymax};
    const char* names[] = {"xmin", "ymin", "xmax", "ymax"};
    for (int k = 0; k < 4; ++k) {
      DT_ASSIGN_OR_RETURN(*corners[k], ParseNumber(fields[k + 1], names[k], box.where));
    }
    boxes.objects.push_back(std::move(box));
  }
  return boxes;
}

}  // namespace

StatusOr<ImageBoxes> ReadBoxAnnotations(const std::string& path, const std::string& format,
                                        const std::map<std::string, int>& name_to_label) {
  std::string bytes;
  DT_RETURN_IF_ERROR(ReadFileInto(path, &bytes).WithContext("annotation file '" + path + "'"));
  if (format == "xml") return ReadXml(path, bytes, name_to_label);
  if (format == "json") return ReadJson(path, bytes, name_to_label);
  if (format == "txt") return ReadText(path, bytes);
  return InvalidArgument("annotation format '" + format + "' is not xml, json or txt");
}

Status AddBoxes(const ImageBoxes& boxes, int image_height, int image_width, const std::string& path,
                AnnotatedDatum* datum) {
  int width = boxes.width > 0 ? boxes.width : image_width;
  int height = boxes.height > 0 ? boxes.height : image_height;
  if ((boxes.width > 0 && boxes.width != image_width) ||
      (boxes.height > 0 && boxes.height != image_height)) {
    DT_LOG(WARNING) << path << " gives the image size " << boxes.width << "x" << boxes.height
                    << ", the image is " << image_width << "x" << image_height
                    << "; boxes are normalised by the file's size, as the SSD fork does";
  }
  if (width <= 0 || height <= 0) {
    return InvalidArgument(path + ": no valid image width and height (" + std::to_string(width) +
                           "x" + std::to_string(height) + ")");
  }
  datum->set_type(AnnotatedDatum::BBOX);
  for (const BoxObject& box : boxes.objects) {
    const std::string corners = "(" + std::to_string(box.xmin) + ", " + std::to_string(box.ymin) +
                                ", " + std::to_string(box.xmax) + ", " + std::to_string(box.ymax) +
                                ")";
    if (box.label < 0) {
      return InvalidArgument(box.where + ": label " + std::to_string(box.label) + " is negative");
    }
    if (box.xmin > box.xmax || box.ymin > box.ymax) {
      return InvalidArgument(box.where + ": box " + corners + " is irregular (" +
                             (box.xmin > box.xmax ? "xmin > xmax" : "ymin > ymax") + ")");
    }
    if (box.xmax < 0 || box.ymax < 0 || box.xmin > width || box.ymin > height) {
      return InvalidArgument(box.where + ": box " + corners + " lies outside the " +
                             std::to_string(width) + "x" + std::to_string(height) + " image");
    }
    if (box.xmin < 0 || box.ymin < 0 || box.xmax > width || box.ymax > height) {
      DT_LOG(WARNING) << box.where << ": box " << corners << " exceeds the " << width << "x"
                      << height << " image; kept as the SSD fork keeps it";
    }
    AnnotationGroup* group = nullptr;
    for (AnnotationGroup& g : *datum->mutable_annotation_group()) {
      if (g.group_label() == box.label) group = &g;
    }
    if (!group) {
      group = datum->add_annotation_group();
      group->set_group_label(box.label);
    }
    const int instance = group->annotation_size() == 0
                             ? 0
                             : group->annotation(group->annotation_size() - 1).instance_id() + 1;
    Annotation* annotation = group->add_annotation();
    annotation->set_instance_id(instance);
    NormalizedBBox* bbox = annotation->mutable_bbox();
    bbox->set_xmin(static_cast<float>(box.xmin) / width);
    bbox->set_ymin(static_cast<float>(box.ymin) / height);
    bbox->set_xmax(static_cast<float>(box.xmax) / width);
    bbox->set_ymax(static_cast<float>(box.ymax) / height);
    bbox->set_difficult(box.difficult);
  }
  return Status::Ok();
}

}  // namespace dtrain
