// prte_info: shows what this installation has — frameworks, components (and the files they came
// from), parameters with their values and where each value came from, and which components the
// DVM would select here.
//
// Exit status: 0 when everything loaded and checked out; 1 when a parameter value, a selection
// list or a component file is bad (each problem is one line on stderr), 2 for a usage error.

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "mca/base/framework.h"
#include "mca/base/param.h"
#include "program/mca_setup.h"
#include "tools/cli_parse.h"
#include "tools/prte_info/build_facts.h"
#include "tools/prte_info/info_report.h"
#include "mca/base/repository.h"
#include "util/output.h"
#include "util/strings.h"

extern char** environ;

namespace {

struct Request {
    prte::info::Options options;
    bool all = false;
    bool selected = false;
    bool version = false;
    std::vector<std::string> param;  // framework, component
    bool arch = false, config = false, hostname = false, show_failed = false, pretty = false, verbose = false;
    bool internal = false, include_pmix = false;
    std::vector<std::string> path, pmix_mca;
    std::string show_version, color;
};

int usage_error(const std::string& message)
{
    prte::output::error("{} (run 'prte_info --help' for usage)", message);
    return 2;
}

}  // namespace

int main(int argc, char** argv)
{
    prte::output::set_program_name("prte_info");
    std::vector<std::string> args(argv + 1, argv + argc);
    prte::program::MCASettings mca_settings;
    if (prte::Status st = prte::program::extract_mca_args(args, mca_settings); !st) return usage_error(st.message());

    Request request;
    CLI::App app{"prte_info: show the frameworks, components and parameters of this prte installation", "prte_info"};
    app.add_flag("--parsable,--parseable", request.options.parsable, "Print machine-readable colon-separated lines");
    app.add_flag("-a,--all", request.all, "Show every component and every parameter");
    app.add_flag("--selected", request.selected,
                 "Show which components the DVM master would select here, in priority order");
    app.add_flag("-V,--version", request.version, "Show the version");
    app.add_option("--param,--params", request.param,
                   "Show the parameters of <framework> <component|all> (or: all all; or <framework>:<component>)")
        ->expected(1, 2)
        ->type_name("<framework> <component>");
    app.add_flag("--arch", request.arch, "Show the architecture this installation was built for");
    app.add_flag("-c,--config", request.config, "Show how this installation was configured and built");
    app.add_flag("--hostname", request.hostname, "Show the host on which it was configured and built");
    app.add_option("--path", request.path,
                   "Show an installation path: prefix, bindir, libdir, incdir, mandir, pkglibdir, sysconfdir or all")
        ->type_name("TYPE");
    app.add_option("--show-version", request.show_version,
                   "Show a version: <prte|all|framework[:component]>[:full|major|minor|release|greek|git]")
        ->type_name("TYPE[:PART]");
    app.add_flag("--selected-only", request.selected, "The same as --selected: the components the DVM would select here");
    app.add_flag("--show-failed", request.show_failed, "Show the component files that could not be loaded, and why");
    app.add_option("-t,--types", request.options.type, "With --param or --all: only parameters of this type "
                                                       "(int, bool, string, enum)")
        ->type_name("TYPE");
    app.add_flag("--pretty-print", request.pretty, "Print for people (the default; the opposite of --parsable)");
    app.add_flag("--internal", request.internal, "Accepted: every parameter is shown, none is hidden as internal");
    app.add_flag("--include-pmix", request.include_pmix,
                 "Accepted: PMIx's own parameters are pmix_info's to show (prte's PMIx settings are shown)");
    app.add_option("--color", request.color, "Accepted: the output is plain text (never colored)")->type_name("WHEN");
    app.add_option("--pmixmca", request.pmix_mca, "Set PMIx parameter <name> to <value> (PMIX_MCA_<name>)")
        ->expected(2)
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->type_name("NAME VALUE");
    app.add_flag("-v,--verbose", request.verbose, "Also say where the component path and parameter files are");
    if (auto done = prte::tools::parse_command_line(app, args, usage_error)) return *done;

    if (request.pretty) request.options.parsable = false;
    for (size_t i = 0; i + 1 < request.pmix_mca.size(); i += 2) {
        setenv(("PMIX_MCA_" + request.pmix_mca[i]).c_str(), request.pmix_mca[i + 1].c_str(), 1);
    }
    if (request.param.size() == 1) {  // PRRTE master's <framework>:<component>
        std::string word = request.param[0];
        size_t colon = word.find(':');
        request.param = {word.substr(0, colon), colon == std::string::npos ? "all" : word.substr(colon + 1)};
    }
    if (prte::Status st = prte::program::setup_mca(environ, mca_settings); !st) {
        prte::output::error("{}", st.message());
        return 1;
    }
    if (prte::Status st = prte::program::open_frameworks({prte::mca::ProcessRole::info}, false); !st) {
        prte::output::error("{}", st.message());
        return 1;
    }

    int status = 0;
    bool facts = request.arch || request.config || request.hostname || !request.path.empty() ||
                 !request.show_version.empty() || request.show_failed;
    if (request.verbose) {
        prte::output::note("component path: {}", prte::util::join(prte::mca::ComponentRepository::component_path(
                                                                      prte::mca::ParamRegistry::instance()),
                                                                  ":"));
    }
    if (request.arch) prte::info::print_arch(request.options);
    if (request.hostname) prte::info::print_build_host(request.options);
    if (request.config) prte::info::print_config(request.options);
    for (const std::string& which : request.path) {
        if (prte::Status st = prte::info::print_path(request.options, which); !st) return usage_error(st.message());
    }
    if (!request.show_version.empty()) {
        if (prte::Status st = prte::info::print_show_version(request.options, request.show_version); !st) {
            return usage_error(st.message());
        }
    }
    if (request.show_failed) prte::info::print_failures(request.options);
    if (facts && request.param.empty() && !request.selected && !request.all) {
        // Only what was asked for.
    } else if (!request.param.empty()) {
        const std::string& fw = request.param[0];
        prte::mca::Framework* framework = fw == "all" ? nullptr : prte::program::find_framework(fw);
        // Core parameters are named after what they configure, not a framework (prte_*, mca_*,
        // rml_*, hwloc_use_topo_file): any such first word with parameters is shown too.
        const std::vector<const prte::mca::Param*> params = prte::mca::ParamRegistry::instance().all();
        bool core_prefix = std::any_of(params.begin(), params.end(),
                                       [&](const prte::mca::Param* p) { return p->name().framework == fw; });
        if (fw != "all" && !core_prefix && !framework) {
            return usage_error("--param: unknown framework '" + fw + "'");
        }
        const std::string& component = request.param[1];
        if (framework && component != "all" && component != "base") {
            std::vector<std::string> known;
            for (const auto& c : framework->candidates()) {
                if (c.descriptor) known.push_back(c.descriptor->name);
            }
            if (std::find(known.begin(), known.end(), component) == known.end()) {
                return usage_error("--param: framework '" + fw + "' has no component '" + component +
                                   "' (it has: " + (known.empty() ? std::string("none") : prte::util::join(known, ", ")) +
                                   "; or 'base', 'all')");
            }
        }
        prte::info::print_params(request.options, fw, request.param[1]);
    } else if (request.selected) {
        if (!prte::info::print_selection(request.options, {prte::mca::ProcessRole::master})) status = 1;
    } else if (request.version) {
        prte::info::print_version(request.options);
    } else {
        prte::info::print_version(request.options);
        prte::info::print_components(request.options);
        if (request.all) prte::info::print_params(request.options, "all", "all");
    }

    prte::info::warn_unmatched_settings();
    for (const auto& e : prte::mca::ParamRegistry::instance().errors()) {
        prte::output::error("{}", e);
        status = 1;
    }
    if (prte::info::report_load_failures() > 0) status = 1;
    return status;
}
