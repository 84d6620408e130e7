#include "prte_config.h"

#include "tools/prte_info/info_report.h"

#include <pmix.h>

#include <cstdio>

#include <limits>

#include <fmt/format.h>

#include "mca/base/param.h"
#include "mca/base/repository.h"
#include "pmix/pmix422/repairs.h"
#include "program/mca_setup.h"
#include "runtime/types_fingerprint.h"
#include "util/output.h"
#include "util/strings.h"

namespace prte::info {
namespace {

void line(const std::string& text) { std::fputs((text + "\n").c_str(), stdout); }

// Parsable values are the rest of the line after the last fixed field, so colons inside a value
// (paths, help text) need no escaping; newlines are flattened.
std::string one_line(std::string text)
{
    for (char& c : text) {
        if (c == '\n') c = ' ';
    }
    return text;
}

}  // namespace

void print_version(const Options& options)
{
#ifdef PRTE_HAVE_PMIX_DVM_EVENTS
    const char* dvm_events = "yes";
#else
    const char* dvm_events = "no";
#endif
#ifdef PRTE_HAVE_SLURM
    const char* slurm = "yes";
#else
    const char* slurm = "no";
#endif
    // What the running libpmix makes of the 4.2.2 repairs (a DVM may still switch them off with
    // pmix_server_repairs 0).
    const char* repairs_off = prte_pmix422_repairs_state();
    std::string repairs = repairs_off ? fmt::format("off ({})", repairs_off) : std::string("on");
    if (options.parsable) {
        line(fmt::format("package:{}", PACKAGE_STRING));
        line(fmt::format("version:prte:{}", PACKAGE_VERSION));
        line(fmt::format("version:pmix:{}", PMIx_Get_version()));
        line(fmt::format("config:dvm_completion_events:{}", dvm_events));
        line(fmt::format("config:slurm:{}", slurm));
        line(fmt::format("config:pmix422_repairs:{}", repairs));
        line(fmt::format("config:runtime_types:{:016x}", runtime::kTypesFingerprint));
        return;
    }
    line(fmt::format("prte {} — an elastic PMIx runtime environment", PACKAGE_VERSION));
    line(fmt::format("PMIx: {}", PMIx_Get_version()));
    // spec: elastic-dvm-spec.txt, "Backward compatibility": without the codes in pmix.h a requester
    // gets no PMIX_DVM_IS_READY / PMIX_ERR_DVM_MOD event; say so where a user will look.
    line(fmt::format("DVM completion events (PMIX_DVM_IS_READY, PMIX_ERR_DVM_MOD): {}",
                     std::string(dvm_events) == "yes" ? "yes" : "no (this PMIx does not define them)"));
    // A DVM inside a Slurm job without these falls back to ras/hosts and plm/ssh: say why here.
    line(fmt::format("Slurm components (ras/slurm, plm/slurm): {}",
                     std::string(slurm) == "yes" ? "yes" : "no (built without libslurm-dev)"));
    line(fmt::format("PMIx 4.2.2 repairs (docs/architecture.md): {}{}", repairs,
                     repairs_off ? "" : fmt::format(", libpmix build id {}", prte_pmix422_checked_build_id())));
    // A component is refused unless it was compiled against these (docs/component-guide.md).
    line(fmt::format("Runtime types fingerprint (components must match it): {:016x}", runtime::kTypesFingerprint));
}

void print_components(const Options& options)
{
    auto& repository = mca::ComponentRepository::instance();
    if (!options.parsable) {
        line(fmt::format("Component path: {}",
                         util::join(mca::ComponentRepository::component_path(mca::ParamRegistry::instance()), ":")));
    }
    for (mca::Framework* f : program::all_frameworks()) {
        if (!options.parsable) {
            line(fmt::format("MCA {} ({}, {}-select, interface {}):", f->name(), f->description(),
                             f->mode() == mca::SelectMode::multi ? "multi" : "single", f->interface_version()));
        }
        size_t shown = 0;
        for (const auto& c : f->candidates()) {
            const auto* d = c.descriptor;
            ++shown;
            if (options.parsable) {
                line(fmt::format("mca:{}:{}:version:{}", f->name(), d->name, d->version ? d->version : ""));
                line(fmt::format("mca:{}:{}:interface:{}", f->name(), d->name, d->interface_version));
                line(fmt::format("mca:{}:{}:path:{}", f->name(), d->name, c.path));
                if (!c.status.empty()) line(fmt::format("mca:{}:{}:status:{}", f->name(), d->name, c.status));
                continue;
            }
            line(fmt::format("    {:<14} v{:<8} {}{}", d->name, d->version ? d->version : "?", c.path,
                             c.status.empty() ? "" : " (" + c.status + ")"));
            if (d->description) line(fmt::format("    {:<14} {}", "", d->description));
        }
        for (const auto& failure : repository.failures()) {
            if (failure.file.framework != f->name()) continue;
            ++shown;
            if (options.parsable) {
                line(fmt::format("failed:{}:{}:{}:{}", f->name(), failure.file.name, failure.file.path,
                                 one_line(failure.reason)));
            } else {
                line(fmt::format("    {:<14} REFUSED  {}: {}", failure.file.name, failure.file.path, failure.reason));
            }
        }
        if (shown == 0 && !options.parsable) line("    (no components installed)");
    }
}

void print_params(const Options& options, const std::string& framework, const std::string& component)
{
    for (const mca::Param* p : mca::ParamRegistry::instance().all()) {
        const auto& n = p->name();
        if (framework != "all" && n.framework != framework) continue;
        if (component != "all" && n.component != component && !(component == "base" && n.component.empty()))
            continue;
        if (!options.type.empty() && mca::to_string(p->type()) != options.type) continue;
        if (options.parsable) {
            line(fmt::format("param:{}:value:{}", p->full_name(), one_line(p->value_text())));
            line(fmt::format("param:{}:source:{}", p->full_name(), p->origin().describe()));
            line(fmt::format("param:{}:type:{}", p->full_name(), mca::to_string(p->type())));
            line(fmt::format("param:{}:default:{}", p->full_name(), one_line(p->default_text())));
            if (!p->allowed_values().empty()) {
                line(fmt::format("param:{}:allowed:{}", p->full_name(), util::join(p->allowed_values(), ",")));
            }
            if (p->range().min != std::numeric_limits<int64_t>::min())
                line(fmt::format("param:{}:min:{}", p->full_name(), p->range().min));
            if (p->range().max != std::numeric_limits<int64_t>::max())
                line(fmt::format("param:{}:max:{}", p->full_name(), p->range().max));
            line(fmt::format("param:{}:help:{}", p->full_name(), one_line(p->help())));
            continue;
        }
        line(fmt::format("  parameter \"{}\" (current value: \"{}\", data source: {}, type: {}, default: \"{}\")",
                         p->full_name(), p->value_text(), p->origin().describe(), mca::to_string(p->type()),
                         p->default_text()));
        if (!p->allowed_values().empty()) {
            line(fmt::format("      allowed values: {}", util::join(p->allowed_values(), ", ")));
        }
        if (p->range().bounded()) line(fmt::format("      valid range: {}", p->range().describe()));
        line(fmt::format("      {}", p->help()));
    }
}

bool print_selection(const Options& options, const mca::QueryContext& context)
{
    auto& registry = mca::ParamRegistry::instance();
    bool ok = true;
    for (mca::Framework* f : program::all_frameworks()) {
        const mca::Param* list = registry.find(f->name());
        bool user_chose = list && !list->as_string().empty();
        if (f->candidates().empty() && !user_chose) {
            if (!options.parsable) line(fmt::format("{}: (no components installed)", f->name()));
            continue;
        }
        if (Status st = f->select(context); !st) {
            output::error("{}", st.message());
            ok = false;
            continue;
        }
        std::vector<std::string> names;
        for (size_t i = 0; i < f->selected().size(); ++i) {
            const auto& s = f->selected()[i];
            if (options.parsable) {
                line(fmt::format("selected:{}:{}:{}", f->name(), s.descriptor->name, s.priority));
            } else {
                names.push_back(fmt::format("{} (priority {})", s.descriptor->name, s.priority));
            }
        }
        if (!options.parsable) line(fmt::format("{}: {}", f->name(), util::join(names, ", ")));
        // What is there but not in play, and why: refused files, and components left out.
        for (const auto& failure : mca::ComponentRepository::instance().failures()) {
            if (failure.file.framework != f->name()) continue;
            line(options.parsable ? fmt::format("unavailable:{}:{}:{}", f->name(), failure.file.name, failure.reason)
                                  : fmt::format("  unavailable: {} ({})", failure.file.name, failure.reason));
        }
        for (const auto& c : f->candidates()) {
            if (c.status.empty() || !c.descriptor) continue;
            line(options.parsable ? fmt::format("unavailable:{}:{}:{}", f->name(), c.descriptor->name, c.status)
                                  : fmt::format("  unavailable: {} ({})", c.descriptor->name, c.status));
        }
    }
    return ok;
}

void print_failures(const Options& options)
{
    const auto& failures = mca::ComponentRepository::instance().failures();
    for (const auto& failure : failures) {
        line(options.parsable ? fmt::format("failed:{}:{}:{}:{}", failure.file.framework, failure.file.name,
                                            failure.file.path, one_line(failure.reason))
                              : fmt::format("failed: {}", failure.describe()));
    }
    if (failures.empty() && !options.parsable) line("failed: none (every component file loaded)");
}

size_t report_load_failures()
{
    const auto& failures = mca::ComponentRepository::instance().failures();
    for (const auto& failure : failures) output::error("{}", failure.describe());
    return failures.size();
}

void warn_unmatched_settings()
{
    for (const auto& warning : mca::ParamRegistry::instance().unmatched_warnings()) output::warning("{}", warning);
}

}  // namespace prte::info
