#pragma once
/// \file
/// The user's configuration: variant priorities in the reference's `variants.toml` format
/// (`namespace_priorities`, `feature_priorities`, `property_priorities`), plus vwheel's
/// `allow_python_providers` list (namespaces whose Python providers may run).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/variant/ordering.hpp"

namespace vwheel::config {

/// A parsed configuration file.
struct UserConfig {
  variant::UserPriorities priorities;
  /// Namespaces whose third-party Python providers the user allows to run.
  std::vector<std::string> allow_python_providers;
  /// Where it was read from (empty when no file was found).
  std::filesystem::path source;
};

/// Parses the TOML text of a configuration file. Errors name the key and the value.
[[nodiscard]] Result<UserConfig> parse_user_config(std::string_view toml_text);

/// The places searched for a configuration file, first match wins: `$VWHEEL_CONFIG`,
/// `./variants.toml`, `$VIRTUAL_ENV/variants.toml`, `$XDG_CONFIG_HOME/vwheel/variants.toml`
/// (default `~/.config`), `/etc/xdg/vwheel/variants.toml`, then variantlib's user and global
/// paths (`~/.config/variantlib/variants.toml`, `/etc/xdg/variantlib/variants.toml`).
[[nodiscard]] std::vector<std::filesystem::path> config_search_path();

/// Loads `explicit_path` when given (it must exist), else the first file of
/// `config_search_path()`, else an empty configuration. Errors are prefixed with the file name.
[[nodiscard]] Result<UserConfig> load_user_config(const std::optional<std::filesystem::path>& explicit_path);

}  // namespace vwheel::config
