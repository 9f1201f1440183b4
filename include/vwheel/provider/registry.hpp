#pragma once
/// \file
/// All native providers together: detect what this machine supports (with a persistent cache),
/// and answer the variant engine's questions about namespaces, including the opt-in Python
/// providers for namespaces vwheel cannot detect natively.

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "vwheel/provider/provider.hpp"
#include "vwheel/variant/ordering.hpp"

namespace vwheel::provider {

/// Every native provider, in the order they are reported: x86_64, aarch64, nvidia, amd, intel.
[[nodiscard]] std::vector<std::unique_ptr<Provider>> native_providers();

/// One provider's answer on this machine.
struct ProviderAnswer {
  std::string ns;
  std::string version;
  Detection detection;
};

/// What detection found.
struct MachineReport {
  std::vector<ProviderAnswer> answers;
  /// True when the answers came from the persistent cache.
  bool from_cache = false;
  /// The cache file used or written (empty with `use_cache = false`).
  std::filesystem::path cache_file;

  /// The supported properties of every namespace with a non-empty answer.
  [[nodiscard]] variant::SupportedProperties supported() const;
};

struct DetectOptions {
  /// Read and write the persistent cache.
  bool use_cache = true;
  /// Where the cache lives; default `default_cache_dir() / "detect"`.
  std::optional<std::filesystem::path> cache_dir;
};


/// A fingerprint of everything detection depends on: vwheel's version, the cpuinfo contents,
/// the NVIDIA and AMD kernel driver versions, the boot id, and the override variables. The cache
/// entry is named after it, so a change of hardware or driver misses the cache.
[[nodiscard]] std::string detection_fingerprint();

/// Runs every native provider, or reads their answers from the cache.
[[nodiscard]] MachineReport detect_machine(const DetectOptions& options = {});

/// How variant metadata declares the reference Python provider that a native provider stands in
/// for (`requires = ["{package}>={version}"]` and its `plugin-api`), so that wheels made without
/// a `pyproject.toml` also work with installers that run the Python providers. nullopt for a
/// namespace without a native provider.
[[nodiscard]] std::optional<variant::ProviderInfo> reference_declaration(std::string_view ns);

/// PEP 508 marker variables that do not need a Python interpreter, from `uname`:
/// `os_name`, `sys_platform`, `platform_system`, `platform_release`, `platform_version`,
/// `platform_machine`.
[[nodiscard]] std::map<std::string, std::string, std::less<>> host_marker_environment();

/// Options for namespaces without a native provider.
struct PythonProviderPolicy {
  /// Namespaces whose Python providers the user allowed (`--allow-python-provider`, config).
  std::set<std::string, std::less<>> allowed;
  /// Extra `pip install` arguments for the providers' virtual environments.
  std::vector<std::string> pip_args;
};

/// Answers the engine from a machine report: native namespaces from detection; other namespaces
/// through their Python provider only when allowed, else unsupported with a note naming the
/// option that enables it.
class DetectionOracle final : public variant::SupportOracle {
 public:
  DetectionOracle(const MachineReport& report, PythonProviderPolicy policy);
  [[nodiscard]] Result<std::optional<std::vector<variant::FeatureConfig>>> supported(
      const std::string& ns, const variant::ProviderInfo* declared, std::string& note) const override;

 private:
  std::map<std::string, const ProviderAnswer*, std::less<>> native_;
  PythonProviderPolicy policy_;
};

}  // namespace vwheel::provider
