// A framework: a named slot in the runtime (ras, plm, ...) filled by components chosen at run time.
//
// open() loads the framework's components, applies the selection parameter `<fw>` (an include
// list "a,b" or an exclude list "^a,b"; an unknown name is an error that names it), registers the
// components' parameters and opens them. select() queries them and keeps the modules: every
// available one in priority order for a multi-select framework (ras, rmaps), only the highest
// for a single-select one (state, plm, errmgr, grpcomm, ...). DESIGN.md, "Shape of the code".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mca/base/component.h"
#include "util/output.h"
#include "util/status.h"

namespace prte::mca {

class ComponentRepository;
class ParamRegistry;

enum class SelectMode { single, multi };

// A parsed `<fw>` selection parameter.
struct SelectionList {
    bool exclude = false;
    std::vector<std::string> names;

    static SelectionList parse(const std::string& text, std::string* error);
    bool allows(const std::string& name) const;
};

class Framework {
  public:
    struct Candidate {
        const ComponentDescriptor* descriptor = nullptr;
        std::string path;
        bool opened = false;
        std::string status;  // why it is not in play ("excluded by ^hosts", "open failed: ...")
    };

    struct Selected {
        const ComponentDescriptor* descriptor = nullptr;
        int priority = 0;
        std::unique_ptr<Module> module;
    };

    Framework(std::string name, uint32_t interface_version, SelectMode mode, std::string description);
    virtual ~Framework();

    const std::string& name() const { return name_; }
    const std::string& description() const { return description_; }
    uint32_t interface_version() const { return interface_version_; }
    SelectMode mode() const { return mode_; }
    const output::VerboseStream& verbose() const { return verbose_; }

    // Registers `<fw>` and `<fw>_base_verbose`, plus what the framework's base adds.
    void register_params(ParamRegistry& registry);

    // Validates the selection parameter against the component files found, without loading
    // anything; prte_info uses it to report a bad list.
    Status check_selection(const ParamRegistry& registry, const ComponentRepository& repository) const;

    Status open(ParamRegistry& registry, ComponentRepository& repository);
    Status select(const QueryContext& context);
    void close();

    const std::vector<Candidate>& candidates() const { return candidates_; }
    const std::vector<Selected>& selected() const { return selected_; }

  protected:
    // A framework's base may add parameters of its own (rmaps_base_mapping_policy, ...).
    virtual void register_base_params(ParamRegistry&) {}
    // A framework's base may keep state while the framework is open (plm's table of daemons):
    // close() calls this once its modules are gone, to drop it.
    virtual void close_base() {}
    // Checks that a module is this framework's type (a dynamic_cast in each framework's base).
    virtual bool accepts(const Module& module) const = 0;

  private:
    std::string name_;
    uint32_t interface_version_;
    SelectMode mode_;
    std::string description_;
    output::VerboseStream verbose_;
    bool open_ = false;
    std::vector<Candidate> candidates_;
    std::vector<Selected> selected_;
};

// A framework whose modules are of one interface type; the type check is a dynamic_cast, which
// works across shared objects because every interface has its key function in libprte.
template <typename ModuleType>
class TypedFramework : public Framework {
  public:
    using Framework::Framework;

  protected:
    bool accepts(const Module& module) const override { return dynamic_cast<const ModuleType*>(&module) != nullptr; }
};

// Typed view of a framework's selected modules, for the framework bases.
template <typename ModuleType>
std::vector<ModuleType*> modules_of(const Framework& framework)
{
    std::vector<ModuleType*> out;
    for (const auto& s : framework.selected()) out.push_back(static_cast<ModuleType*>(s.module.get()));
    return out;
}

}  // namespace prte::mca
