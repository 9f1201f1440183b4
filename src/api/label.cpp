#include "vwheel/api/label.hpp"

#include <fmt/format.h>

#include "vwheel/variant/label.hpp"

namespace vwheel::api {

Result<LabelReport> make_label(const LabelRequest& request) {
  std::vector<variant::Property> props;
  for (const auto& text : request.properties) {
    auto p = variant::parse_property(text);
    if (!p) return fail(p.error().with_context("--property"));
    props.push_back(std::move(*p));
  }
  auto set = variant::make_property_set(std::move(props));
  if (!set) return fail(set.error());
  auto label = variant::make_label(*set, request.custom);
  if (!label) return fail(label.error().with_context("--label"));
  LabelReport report{std::move(*label), {}};
  if (report.label.size() > variant::kMaxPortableLabelLength) {
    report.warnings.push_back(fmt::format("label `{}` is longer than {} characters; today's variant-enabled installers "
                                          "reject such wheels",
                                          report.label, variant::kMaxPortableLabelLength));
  }
  return report;
}

}  // namespace vwheel::api
