#pragma once
// Private to the plan component: the resolver's provider over package indexes (for installs, and
// for locks with forking resolution). index_provider.cpp holds the definitions.

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "choose.hpp"
#include "vwheel/plan/plan.hpp"
#include "vwheel/resolve/resolver.hpp"
#include "vwheel/simple/core_metadata.hpp"

namespace vwheel::plan::detail {

/// The name under which the target's Python takes part in resolution.
constexpr std::string_view kPython = "python";

struct Key {
  std::string name;
  std::string version;
  auto operator<=>(const Key&) const = default;
};

/// Answers the resolver from the finder, choosing each version's wheel for the target (or, for
/// a universal lock, following the dependencies of every variant).
class IndexProvider final : public resolve::Provider {
 public:
  IndexProvider(finder::Finder& finder, const selection::Selection& target,
                const std::set<Key>& pinned, bool universal)
      : finder_(finder), target_(target), pinned_(pinned), universal_(universal),
        load_(finder_loader(finder)) {}

  /// Source distributions as candidates (plan::Settings::sdist_metadata): a version without a
  /// wheel the target can use (a universal lock: without any usable wheel), or any version of a
  /// project whose wheels `formats` refuses, is offered through its usable sdist (not yanked unless pinned,
  /// Requires-Python admitting the target, allowed by `formats`), whose dependencies `read` gives.
  /// With `prefer_binary`, the versions with a wheel come before those with only an sdist.
  /// `prefetch` (when set) is told of the sdist of a project's most preferred version when
  /// `versions` offers it through one.
  void set_sdists(const FormatControl* formats, const SdistMetadataReader* read, const SdistPrefetch* prefetch) {
    formats_ = formats;
    read_sdist_ = read;
    prefetch_sdist_ = prefetch != nullptr && *prefetch ? prefetch : nullptr;
  }

  /// Versions to try first (canonical name -> versions), newest of them first: an existing lock's,
  /// so that re-locking keeps them while they still resolve.
  void set_preferred(const std::map<std::string, std::set<std::string>>* preferred) { preferred_ = preferred; }

  Result<std::vector<pep440::Version>> versions(std::string_view name) override;

  Result<resolve::Dependencies> dependencies(std::string_view name, const pep440::Version& version) override;

  /// The newest three versions `versions` left out (wheels and sdists alike), each with
  /// why_unusable's reason, else the variant choice's.
  std::vector<resolve::Unusable> unusable(std::string_view name) override;

  /// The metadata the resolver most likely reads next, read together (one round trip, not one
  /// each): for each of `requirements` that holds in `environment` (without extras), the wheel
  /// chosen for the target of the newest version that satisfies it. Torch's wheels pin a version
  /// of each of fifteen CUDA runtimes, mostly not their newest; read one by one, their metadata
  /// took 20 round trips of bench/find_links_latency.sh's install. A guess that misses costs a
  /// request, not a result: the resolver still asks for what it needs. Not for universal locks
  /// (universal_dependencies reads each version's kinds together).
  void prefetch_metadata(const std::vector<markers::Requirement>& requirements, markers::Environment environment);

  /// The choice made for a version (after dependencies() asked for it).
  const Choice* choice_of(const std::string& name, const std::string& version) const {
    auto it = choices_.find({name, version});
    if (it == choices_.end() || !it->second) return nullptr;
    return &*it->second;
  }
  const std::vector<std::string>& requires_dist_of(const std::string& name, const std::string& version) {
    return requires_dist_[{name, version}];
  }
  /// Requires-Python of the version's wheel whose metadata was read (nullopt: none given).
  std::optional<std::string> requires_python_of(const std::string& name, const std::string& version) const {
    auto it = requires_python_.find({name, version});
    return it == requires_python_.end() ? std::nullopt : it->second;
  }
  /// The core metadata read for a wheel while resolving, if any.
  const simple::CoreMetadata* metadata_read(const finder::File& wheel) const {
    auto it = metadata_.find(wheel.location());
    return it == metadata_.end() ? nullptr : &it->second;
  }
  const std::vector<const finder::File*>& files_of(const std::string& name, const pep440::Version& version) {
    return files_[name][version];
  }
  /// The sdist a version without usable wheels is offered through (see set_sdists), or nullptr.
  const finder::File* sdist_of(std::string_view name, const pep440::Version& version) const {
    return usable_sdist(name, version);
  }

 private:
  Result<std::optional<Choice>*> choose(std::string_view name, const pep440::Version& version,
                                        const std::vector<const finder::File*>& list);

  using Versions = std::pair<const pep440::Version, std::vector<const finder::File*>>;

  /// The files of the newest version of `r`'s project that `r` allows (an existing lock's
  /// preferred version first), or nullptr. Looks the project up (prefetched just before).
  const Versions* newest_satisfying(const markers::Requirement& r);

  /// Requires-Python as a requirement on the `python` pseudo-package (nullopt when absent or
  /// unparsable: pip ignores an invalid one too).
  static std::optional<markers::Requirement> python_requirement(const simple::CoreMetadata& md);

  Result<simple::CoreMetadata> metadata_of(const finder::File& wheel);

  bool wheels_allowed(std::string_view name) const { return !formats_ || formats_->allows_wheel(name); }
  /// The sdist a version is offered through when it has no usable wheel (see set_sdists), or
  /// nullptr (always without a reader).
  const finder::File* usable_sdist(std::string_view name, const pep440::Version& version) const;
  /// The choice of a version installed from its sdist.
  Choice sdist_choice(const finder::File& sdist) const;

  const FormatControl* formats_ = nullptr;
  const SdistMetadataReader* read_sdist_ = nullptr;
  const SdistPrefetch* prefetch_sdist_ = nullptr;

 public:
  /// A universal lock resolves in forks: each fork fixes, for the versions met so far whose
  /// wheels' requirements differ (variant labels, or plain and variant wheels), which of those
  /// requirement sets holds, and the environments (of `fork_environments`) it stands for. A version
  /// met in a fork that has not fixed its requirement set, or whose requirements differ between
  /// the fork's environments, splits the fork: `dependencies` fails and `take_split` gives the
  /// children, to be resolved from the start.
  struct Fork {
    std::vector<std::size_t> environments;  ///< indexes into the environments given to `set_fork`
    std::map<Key, std::string> kinds;       ///< version -> the wheel kind whose requirements hold
    std::vector<std::string> description;   ///< what the fork fixed, for errors
  };

  void set_fork(const Fork* fork, const std::vector<markers::Environment>* environments) {
    fork_ = fork;
    environments_ = environments;
    split_.clear();
  }
  std::vector<Fork> take_split() { return std::exchange(split_, {}); }
  /// Requires-Dist of each wheel whose metadata was read (universal), by file name.
  const std::map<std::string, std::vector<std::string>>& wheel_requires_dist_of(const std::string& name,
                                                                                const std::string& version) {
    return wheel_requires_dist_[{name, version}];
  }

 private:
  /// One kind of wheel of a version: the non-variant wheels (`label` empty), or one variant label.
  struct WheelKind {
    std::string label;
    const finder::File* wheel = nullptr;
    variant::PropertySet properties;
    std::vector<markers::Requirement> requires_dist;
  };

  markers::Environment kind_environment(const WheelKind& kind, std::size_t environment) const {
    const auto& base = (*environments_)[environment];
    return kind.wheel->wheel->is_variant() ? label_environment(base, kind.label, kind.properties) : base;
  }

  /// The requirements of `kind` that hold in one environment, for each extra: a comparable text.
  Result<std::string> signature(const WheelKind& kind, std::size_t environment,
                                const std::vector<std::string>& extras) const;

  /// A version's files as a universal lock reads them: its `*-variants.json` (of the first
  /// source), its first usable non-variant wheel, and its usable variant wheels.
  struct UniversalFiles {
    const finder::File* variants_json = nullptr;
    const finder::File* plain = nullptr;
    std::vector<const finder::File*> variant_wheels;
    /// The wheels whose metadata is read: the plain one, and the first of each label (of the
    /// first variant wheel's source).
    [[nodiscard]] std::vector<const finder::File*> kind_wheels() const {
      std::vector<const finder::File*> out;
      if (plain) out.push_back(plain);
      std::set<std::string> labels;
      for (const auto* f : variant_wheels) {
        if (f->source == variant_wheels.front()->source && labels.insert(*f->wheel->label).second) out.push_back(f);
      }
      return out;
    }
  };

  UniversalFiles universal_files(const std::vector<const finder::File*>& list) const;

  /// Universal: what the forks read next, whichever kind they follow, fetched together: the
  /// pages of the projects the kinds require, then for the newest version each requirement allows
  /// (markers aside: some fork may need it), its `*-variants.json` and its kinds' metadata. Read
  /// as the resolver came to them, a torch-shaped universal lock took 470 requests one after
  /// another (bench/find_links_latency.sh's graph).
  void prefetch_universal(const std::vector<std::vector<markers::Requirement>>& requirements);

  /// Universal: the version's wheel kinds with differing requirements fork, and so do the
  /// environments of the fork in which the requirements of the kind differ.
  Result<resolve::Dependencies> universal_dependencies(std::string_view name, const pep440::Version& version,
                                                       const std::vector<const finder::File*>& list);

  const Fork* fork_ = nullptr;
  const std::vector<markers::Environment>* environments_ = nullptr;
  std::vector<Fork> split_;
  std::map<Key, std::map<std::string, std::vector<std::string>>> wheel_requires_dist_;
  finder::Finder& finder_;
  const selection::Selection& target_;
  const std::set<Key>& pinned_;
  bool universal_;
  MetadataLoader load_;
  std::map<std::string, std::map<pep440::Version, std::vector<const finder::File*>, std::greater<>>> files_;
  std::map<Key, std::optional<Choice>> choices_;
  /// The versions `versions` returned, by project.
  std::map<std::string, std::set<pep440::Version>> offered_;
  /// Each project's files by version, newest first, for prefetch_metadata.
  std::map<std::string, std::map<pep440::Version, std::vector<const finder::File*>, std::greater<>>> likely_;
  std::map<Key, std::string> reasons_;
  std::map<Key, std::vector<std::string>> requires_dist_;
  std::map<Key, std::optional<std::string>> requires_python_;
  const std::map<std::string, std::set<std::string>>* preferred_ = nullptr;
  std::map<std::string, simple::CoreMetadata> metadata_;
};

/// The `(name, version)` of every root requirement pinned with `==` (not a wildcard): their
/// yanked files may be chosen (PEP 592).
[[nodiscard]] std::set<Key> pinned_versions(const Requirements& requirements);

}  // namespace vwheel::plan::detail
