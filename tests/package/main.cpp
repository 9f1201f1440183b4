// Ranks the variants of a `*-variants.json` (argv[1]) for a fixed set of supported properties,
// through vwheel's public headers only: one label per line, most preferred first, then the
// labels the target does not support, prefixed with "unsupported ".
#include <fstream>
#include <iostream>
#include <sstream>

#include "vwheel/metadata/document.hpp"
#include "vwheel/variant/ordering.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: rank FILE-variants.json\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    std::cerr << "rank: cannot read " << argv[1] << "\n";
    return 1;
  }
  auto doc = vwheel::metadata::parse_json_document(text.str(), vwheel::metadata::DocumentKind::VariantsJson);
  if (!doc) {
    std::cerr << "rank: " << doc.error().message << "\n";
    return 1;
  }
  // The example is PEP 825-conforming; a problem reported here means the parser changed.
  for (const auto& problem : doc->conformance_problems) std::cerr << "rank: conformance: " << problem << "\n";
  if (!doc->conformance_problems.empty()) return 1;
  // A CPU with x86-64-v3 (not v4) and OpenBLAS installed (MKL not).
  const vwheel::variant::SupportedProperties supported{
      {"x86_64", {{"level", {"v3", "v2", "v1"}, false}}},
      {"blas_lapack", {{"library", {"openblas"}, false}}},
  };
  const vwheel::variant::TableOracle oracle(supported);
  auto ranking = vwheel::variant::rank_variants(doc->metadata, oracle, {}, {});
  if (!ranking) {
    std::cerr << "rank: " << ranking.error().message << "\n";
    return 1;
  }
  for (const auto& label : ranking->order) std::cout << label << "\n";
  for (const auto& [label, properties] : doc->metadata.variants) {
    bool ranked = false;
    for (const auto& l : ranking->order) ranked = ranked || l == label;
    if (!ranked) std::cout << "unsupported " << label << "\n";
  }
  return 0;
}
