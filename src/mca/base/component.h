// What a component is, as the runtime sees it: one shared object mca_<fw>_<name>.so exporting one
// extern "C" function, prte_mca_component_descriptor(), that returns a ComponentDescriptor.
//
// The loader reads the descriptor's magic and ABI version before anything else, then the
// framework name, the framework interface version the component was built against and the
// fingerprint of the runtime types it was compiled with (runtime/types_fingerprint.h), and
// refuses a mismatch with a message naming the file (the LLVM pass-plugin and Ceph plugin models,
// STYLE.md). Components are never unloaded: objects they created may outlive any framework.
//
// Writing one: PRTE_MCA_COMPONENT, at the end of this header, defines the descriptor function from
// the descriptor's fields (docs/component-guide.md). A component that writes the function by hand
// sets every field itself, runtime_types included (examples/ras-component/envlist.cc does).
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "util/process_role.h"

namespace prte::mca {

class ParamRegistry;

// "PRTE" in ASCII; a shared object whose descriptor does not start with it is not ours.
inline constexpr uint32_t kDescriptorMagic = 0x50525445;
// The layout of ComponentDescriptor itself. Bumped only when the struct below changes.
// 2: runtime_types.
inline constexpr uint32_t kDescriptorAbiVersion = 2;
// The exported symbol's name.
inline constexpr const char* kDescriptorSymbol = "prte_mca_component_descriptor";

// Base of every framework's module interface (ras::Module, plm::Module, ...). A component's
// query hook creates one; the framework takes ownership.
class Module {
  public:
    virtual ~Module();
};

// Which program is selecting: a component may only make sense in some of them (plm/ssh launches
// daemons from the master only; prte_info selects only to show what would be chosen).
// (util/process_role.h: the runtime keys its start-up on the same role.)
using ProcessRole = util::ProcessRole;
using util::to_string;

struct QueryContext {
    ProcessRole role = ProcessRole::master;
};

struct QueryResult {
    // Higher wins; a negative priority means "not available here", with `reason` saying why.
    int priority = -1;
    std::unique_ptr<Module> module;
    std::string reason;
};

struct ComponentDescriptor {
    uint32_t magic = kDescriptorMagic;
    uint32_t abi_version = kDescriptorAbiVersion;
    const char* framework = nullptr;          // "ras"
    const char* name = nullptr;               // "hosts"
    uint32_t interface_version = 0;           // the framework's kInterfaceVersion at build time:
                                              // its Module's virtual functions
    const char* version = nullptr;            // the component's own version, "1.0.0"
    const char* description = nullptr;        // one line for prte_info

    // Every hook is optional (nullptr) except query. None may throw.
    void (*register_params)(ParamRegistry& registry) noexcept = nullptr;
    // Called once after parameters are registered; a false return drops the component, with
    // `why` shown to the user.
    bool (*open)(std::string& why) noexcept = nullptr;
    void (*query)(const QueryContext& context, QueryResult& result) noexcept = nullptr;
    void (*close)() noexcept = nullptr;

    // The fingerprint of the runtime types (runtime::Job, Node, Proc, ...) the component was
    // compiled against: runtime::kTypesFingerprint, which PRTE_MCA_COMPONENT fills in. The
    // repository compares it with the program's own and refuses a component built against other
    // definitions. Last, so that the macro can append it after the caller's fields. (This header
    // does not include runtime/types_fingerprint.h: the component system knows only a number;
    // every framework header brings the fingerprint in.)
    uint64_t runtime_types = 0;
};

// The query pattern of every component: `make()` builds the module, which is then offered at
// `priority`. A module that cannot be built (out of memory, or its own constructor's exception)
// leaves the component unavailable with the reason, and nothing escapes the noexcept hook.
template <typename Make>
void offer_module(QueryResult& result, int priority, Make&& make) noexcept
{
    try {
        result.module = make();
        result.priority = priority;
        return;
    } catch (const std::bad_alloc&) {
        result.reason = "out of memory creating the module";
    } catch (const std::exception& e) {
        result.reason = e.what();
    } catch (...) {
        result.reason = "creating the module failed";
    }
    result.module.reset();
    result.priority = -1;
}

// Parameter registration in the noexcept register_params hook: the registry can only throw for
// want of memory, and a parameter left unregistered (its pointer null) is read as its default.
template <typename Register>
void register_params_safely(Register&& registration) noexcept
{
    try {
        registration();
    } catch (...) {
    }
}

}  // namespace prte::mca

// The exported descriptor function every component defines once, from the descriptor's fields:
//   PRTE_MCA_COMPONENT(.framework = "ras", .name = "hosts", .interface_version = prte::ras::kInterfaceVersion,
//                      .version = "1.0.0", .description = "...", .register_params = register_params,
//                      .query = query)
// (designated initializers, in the order ComponentDescriptor declares them; omitted hooks are null;
// runtime_types is this compilation's runtime::kTypesFingerprint, from the framework header).
#define PRTE_MCA_COMPONENT(...)                                                                      \
    extern "C" const prte::mca::ComponentDescriptor* prte_mca_component_descriptor() noexcept        \
    {                                                                                                \
        static const prte::mca::ComponentDescriptor descriptor{                                      \
            __VA_ARGS__, .runtime_types = ::prte::runtime::kTypesFingerprint};                       \
        return &descriptor;                                                                          \
    }

extern "C" {
// Implemented by each component, never by libprte.
__attribute__((visibility("default"))) const prte::mca::ComponentDescriptor* prte_mca_component_descriptor() noexcept;
using prte_mca_component_descriptor_fn = const prte::mca::ComponentDescriptor* (*)() noexcept;
}
