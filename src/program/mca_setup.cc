#include "program/mca_setup.h"

#include "mca/base/param.h"
#include "mca/base/repository.h"
#include "mca/errmgr/base/errmgr_base.h"
#include "mca/grpcomm/base/grpcomm_base.h"
#include "mca/odls/base/odls_base.h"
#include "mca/pmi/base/pmi_base.h"
#include "mca/plm/base/plm_base.h"
#include "mca/ras/base/ras_base.h"
#include "mca/rmaps/base/rmaps_base.h"
#include "mca/state/base/state_base.h"
#include "pmix/server.h"
#include "program/core_params.h"
#include "runtime/types_fingerprint.h"

namespace prte::program {

const std::vector<mca::Framework*>& all_frameworks()
{
    static const std::vector<mca::Framework*> frameworks = {
        &state::base::framework(), &errmgr::base::framework(), &ras::base::framework(),
        &rmaps::base::framework(), &plm::base::framework(),    &grpcomm::base::framework(),
        &odls::base::framework(),  &pmi::base::framework(),
    };
    return frameworks;
}

mca::Framework* find_framework(const std::string& name)
{
    for (mca::Framework* f : all_frameworks()) {
        if (f->name() == name) return f;
    }
    return nullptr;
}

Status extract_mca_args(std::vector<std::string>& args, MCASettings& out)
{
    std::vector<std::string> kept;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--prtemca" || a == "-prtemca" || a == "--mca" || a == "-mca") {
            if (i + 2 >= args.size()) {
                return {Errc::bad_param, a + " needs a parameter name and a value (" + a + " <name> <value>)"};
            }
            out.emplace_back(args[i + 1], args[i + 2]);
            i += 2;
            continue;
        }
        kept.push_back(a);
    }
    args = std::move(kept);
    return {};
}

Status setup_mca(char** envp, const MCASettings& command_line)
{
    auto& registry = mca::ParamRegistry::instance();
    if (Status st = registry.load_standard_sources(envp); !st) return st;
    for (const auto& [name, value] : command_line) {
        registry.set(name, value, {mca::ParamSource::command_line, "--prtemca " + name});
    }
    mca::ComponentRepository::register_params(registry);
    register_core_params(registry);
    pmix::register_params(registry);
    if (!registry.errors().empty()) return {Errc::bad_param, registry.errors().front()};
    auto& repository = mca::ComponentRepository::instance();
    repository.scan(mca::ComponentRepository::component_path(registry), runtime::kTypesFingerprint);
    return {};
}

Status open_frameworks(const mca::QueryContext& context, bool select)
{
    auto& registry = mca::ParamRegistry::instance();
    auto& repository = mca::ComponentRepository::instance();
    for (mca::Framework* f : all_frameworks()) {
        if (Status st = f->open(registry, repository); !st) return st;
        if (!registry.errors().empty()) return {Errc::bad_param, registry.errors().front()};
        if (select) {
            if (Status st = f->select(context); !st) return st;
        }
    }
    return {};
}

}  // namespace prte::program
