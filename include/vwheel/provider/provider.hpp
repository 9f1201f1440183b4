#pragma once
/// \file
/// Providers answer, for one variant namespace, which features and values exist (all configs)
/// and which ones the target machine supports (supported configs, in preference order).
/// Native providers detect in C++; ahead-of-time namespaces take `static-properties`; other
/// namespaces need an explicitly allowed Python provider.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/variant/property.hpp"

namespace vwheel::provider {

/// The answer of one provider on this machine.
struct Detection {
  /// Supported features, most important first; each feature's values most preferred first.
  /// Empty when the machine supports nothing of this namespace.
  std::vector<variant::FeatureConfig> supported;
  /// Where the answer came from, one short line for `--explain` / `analyze-platform`
  /// (e.g. "/proc/cpuinfo: microarchitecture zen3", "NVML 550.54: driver CUDA 12.4, 1 GPU (sm 8.9)").
  std::string source;
  /// Further notes, one line each (e.g. "libnvidia-ml.so.1 not found: no NVIDIA driver").
  std::vector<std::string> notes;
};

/// One variant provider.
class Provider {
 public:
  virtual ~Provider() = default;
  /// The variant namespace (`x86_64`, `nvidia`, ...).
  [[nodiscard]] virtual std::string_view ns() const = 0;
  /// Version of the reference provider whose behaviour this reproduces (e.g. "0.0.3").
  [[nodiscard]] virtual std::string_view version() const = 0;
  /// True when the answer depends on the machine (install-time); false for ahead-of-time.
  [[nodiscard]] virtual bool install_time() const { return true; }
  /// Every feature and value this provider can ever report (for validating wheels' properties).
  [[nodiscard]] virtual std::vector<variant::FeatureConfig> all_configs() const = 0;
  /// Detects what this machine supports. Never throws: failures become an empty answer + notes.
  [[nodiscard]] virtual Detection detect() const = 0;
};

}  // namespace vwheel::provider
