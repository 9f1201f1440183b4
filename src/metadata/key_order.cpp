// The order of keys as written in a JSON text, for the one place the format gives it meaning:
// v0.2.0's `providers.NS.static-properties`, whose features are listed in priority order. The
// parsed tree (nlohmann::json) keeps objects sorted, so the text is scanned again with a SAX
// handler that records only those keys.

#include <map>
#include <string>
#include <vector>

#include "metadata/internal.hpp"

namespace vwheel::metadata::detail {
namespace {

class StaticOrderHandler : public nlohmann::json_sax<Json> {
 public:
  explicit StaticOrderHandler(std::map<std::string, std::vector<std::string>>& out) : out_(out) {}

  bool null() override { return true; }
  bool boolean(bool /*value*/) override { return true; }
  bool number_integer(number_integer_t /*value*/) override { return true; }
  bool number_unsigned(number_unsigned_t /*value*/) override { return true; }
  bool number_float(number_float_t /*value*/, const string_t& /*text*/) override { return true; }
  bool string(string_t& /*value*/) override { return true; }
  bool binary(binary_t& /*value*/) override { return true; }
  bool start_object(std::size_t /*size*/) override { return open(); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t /*size*/) override { return open(); }
  bool end_array() override { return close(); }
  bool key(string_t& name) override {
    // The path is (root, "providers", NS, "static-properties"): record the key under NS.
    if (path_.size() == 4 && path_[1] == "providers" && path_[3] == "static-properties") {
      auto& list = out_[path_[2]];
      if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
    }
    pending_ = name;
    return true;
  }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& /*error*/) override {
    return false;
  }

 private:
  bool open() {
    path_.push_back(std::move(pending_));
    pending_ = "[]";  // array elements have no key
    return true;
  }
  bool close() {
    if (!path_.empty()) path_.pop_back();
    pending_.clear();
    return true;
  }

  std::map<std::string, std::vector<std::string>>& out_;
  std::vector<std::string> path_;  // keys of the open containers, the root's being ""
  std::string pending_;
};

}  // namespace

std::map<std::string, std::vector<std::string>> static_feature_order(std::string_view json_text) {
  std::map<std::string, std::vector<std::string>> out;
  if (json_text.empty()) return out;
  StaticOrderHandler handler(out);
  try {
    if (!Json::sax_parse(json_text.begin(), json_text.end(), &handler)) out.clear();
  } catch (const Json::exception&) {
    out.clear();
  }
  return out;
}

}  // namespace vwheel::metadata::detail
