// The component repository: finds mca_<fw>_<name>.so files on the component path, loads them with
// libltdl, checks their descriptors, and keeps them loaded for the life of the process.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mca/base/component.h"

namespace prte::mca {

class ParamRegistry;

struct ComponentFile {
    std::string framework;
    std::string name;
    std::string path;
};

struct LoadedComponent {
    ComponentFile file;
    const ComponentDescriptor* descriptor = nullptr;
};

// A file that looked like a component but was refused; `reason` names what was wrong.
struct LoadFailure {
    ComponentFile file;
    std::string reason;

    std::string describe() const;
};

class ComponentRepository {
  public:
    static ComponentRepository& instance();

    // Registers mca_base_component_path and mca_base_component_show_load_errors.
    static void register_params(ParamRegistry& registry);

    // The directories named by mca_base_component_path (colon-separated, '~' expanded); the
    // default is the installed component directory.
    static std::vector<std::string> component_path(const ParamRegistry& registry);

    // Scans the directories for component files. Where two directories hold the same
    // framework/name, the first in the path wins (so a user's directory can override an
    // installed component); the later file is recorded as shadowed. `runtime_types` is the
    // program's runtime::kTypesFingerprint: a component whose descriptor carries another (it was
    // compiled against other runtime types) is refused when loaded. Passed here, by the program,
    // because the component system itself knows no runtime type.
    void scan(const std::vector<std::string>& directories, uint64_t runtime_types);

    // Names of every component file found for a framework, whether or not it loads.
    std::vector<std::string> names(const std::string& framework) const;

    // Loads (once) every component file of a framework; refused files are kept in failures().
    std::vector<const LoadedComponent*> load(const std::string& framework, uint32_t interface_version);

    const std::vector<LoadFailure>& failures() const { return failures_; }
    const LoadFailure* failure_for(const std::string& framework, const std::string& name) const;
    const std::vector<ComponentFile>& shadowed() const { return shadowed_; }

  private:
    bool load_one(const ComponentFile& file, uint32_t interface_version);

    std::map<std::string, std::map<std::string, ComponentFile>> files_;  // framework -> name -> file
    std::map<std::string, std::map<std::string, LoadedComponent>> loaded_;
    std::map<std::string, bool> framework_loaded_;
    std::vector<LoadFailure> failures_;
    std::vector<ComponentFile> shadowed_;
    uint64_t runtime_types_ = 0;
};

}  // namespace prte::mca
