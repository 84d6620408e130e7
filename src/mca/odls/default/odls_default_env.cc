#include "mca/odls/default/odls_default_env.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <string>

#include "runtime/env_edit.h"
#include "util/strings.h"

namespace prte::odls::default_component {
namespace {

using util::starts_with;

// Open MPI 4.1 (Debian's openmpi-bin 4.1.4, PMIx through its ext3x component) decides how it was
// started in its "schizo" framework, before it picks an "ess" component. With no resource manager
// of its own in the environment (Slurm, Flux, JSM), the only component that answers is
// schizo/orte (orte/mca/schizo/orte/schizo_orte.c, check_launch_environment()): when
// orte_process_info.my_daemon_uri is set -- the MCA parameter orte_local_daemon_uri, read from
// OMPI_MCA_orte_local_daemon_uri -- it declares the process NATIVE_LAUNCHED and pushes
// OMPI_MCA_ess=pmi; otherwise it declares UNMANAGED_SINGLETON and pushes OMPI_MCA_ess=singleton
// (overwriting any OMPI_MCA_ess we could set). PMIX_NAMESPACE/PMIX_SERVER_URI* alone are not
// enough: each rank then runs as a singleton of size 1.
//
// ess/pmi then parses the value with orte_rml_base_parse_uris() (orte/mca/ess/base/
// ess_base_std_app.c), so it must be an ORTE contact URI "<jobid>.<vpid>;<transports>": a bare
// string fails MPI_Init with "Bad parameter ... rml_base_contact.c". We give "0.<daemon rank>;"
// with no transport, so the name parses and there is no address an ORTE messaging layer could
// ever try to reach: everything else goes through PMIx. Verified against openmpi-bin 4.1.4-3 and
// libpmix 4.2.2 with a minimal PMIx server: without the variable `-n 2` gives two "rank 0 of 1",
// with it one job of two ranks whose MPI_Allreduce works.
//
// OMPI_COMM_WORLD_{SIZE,RANK,LOCAL_RANK,LOCAL_SIZE,NODE_RANK} are what mpirun sets for every
// child; Open MPI itself does not read them, but scripts and libraries that detect "launched by
// mpirun" do. OMPI_MCA_orte_bound_at_launch is not needed: launched this way, Open MPI 4.1 keeps
// the binding it starts with and adds none (checked: after MPI_Init, Cpus_allowed_list is the one
// hwthread we bound each rank to, and every CPU without --bind-to).
constexpr const char* kOmpiDaemonUri = "OMPI_MCA_orte_local_daemon_uri";

// Variables of the daemon's own environment that describe a launch (ours or one around us) and
// would mislead a child if they leaked: Open MPI's launch variables and the ones we set.
constexpr std::array kInheritedOmpiLaunchVariables{
    "OMPI_MCA_orte_local_daemon_uri", "OMPI_MCA_orte_hnp_uri",  "OMPI_MCA_ess",
    "OMPI_MCA_ess_base_jobid",        "OMPI_MCA_ess_base_vpid", "OMPI_MCA_orte_ess_num_procs",
    "OMPI_MCA_orte_precondition_transports", "OMPI_MCA_orte_bound_at_launch", "OMPI_MCA_pmix",
    "OMPI_UNIVERSE_SIZE",             "OMPI_FILE_LOCATION",     "OMPI_NUM_APP_CTX",
    "OMPI_FIRST_RANKS",               "OMPI_APP_CTX_NUM_PROCS", "ORTE_SCHIZO_DETECTION",
    // PMI's (MPICH), given afresh to a process that gets PMI (pmi/pmi.h): a daemon started by an
    // MPICH launcher (mpiexec, srun --mpi=pmi2) must not pass its own socket on.
    "PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE", "PMI_SPAWNED", "PMI_JOBID",
};

std::string_view name_of(std::string_view entry) { return entry.substr(0, entry.find('=')); }

constexpr const char* kOmpiShmDirVariable = "OMPI_MCA_btl_vader_backing_directory";

// Open MPI 4.1's MPI_Comm_spawn gives the new job its parent's OMPI_* environment as the app's
// environment (the child's own environment shows its parent's OMPI_MCA_orte_local_daemon_uri,
// OMPI_COMM_WORLD_* and backing directory). Applied last, those would replace the facts of the
// child's own launch: children on two other nodes that share the machine then both put their
// shared-memory segments in the parent node's directory under the same names (local ranks 0, 1
// on each node) and map each other's, which crashed them in MPI_Init (issue 44 item 5). So an
// app's plain NAME=value for a variable this launch set wins only where it is the user's own
// choice: a shared-memory directory that is no daemon's. Another daemon's directory is dropped
// even where this daemon sets none (its node has the machine's hostname: Open MPI's default
// /dev/shm names keep it apart). Edits (prun --prepend-env ...) are always the user's.
bool is_another_launchs_fact(std::string_view entry, const std::vector<std::string>& facts)
{
    if (runtime::decode_env_edit(entry)) return false;
    const std::string_view name = name_of(entry);
    if (name == kOmpiShmDirVariable) return is_daemon_shm_dir(entry.substr(std::min(entry.size(), name.size() + 1)));
    return std::find(facts.begin(), facts.end(), name) != facts.end();
}

}  // namespace

bool is_daemon_shm_dir(std::string_view dir)
{
    std::filesystem::path path(dir);
    if (path.filename().empty()) path = path.parent_path();  // a trailing '/'
    return path.filename() == kOmpiShmDirName && path.parent_path().filename().string().ends_with(".session");
}

Environment::Environment(char* const* entries)
{
    if (!entries) return;
    for (char* const* e = entries; *e; ++e) put(*e);
}

void Environment::set(std::string_view name, std::string_view value)
{
    std::string entry;
    entry.reserve(name.size() + 1 + value.size());
    entry.append(name).append("=").append(value);
    auto it = index_.find(std::string(name));
    if (it != index_.end()) {
        entries_[it->second] = std::move(entry);
        return;
    }
    index_.emplace(std::string(name), entries_.size());
    entries_.push_back(std::move(entry));
}

void Environment::put(std::string_view entry)
{
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) return;
    set(entry.substr(0, eq), entry.substr(eq + 1));
}

void Environment::apply(std::string_view entry)
{
    std::optional<runtime::EnvEdit> edit = runtime::decode_env_edit(entry);
    if (!edit) {
        put(entry);
        return;
    }
    if (edit->kind != runtime::EnvEdit::unset) {
        set(edit->name, runtime::edited_value(*edit, value(edit->name)));
        return;
    }
    const std::string& name = edit->name;
    bool prefix = name.back() == '*';
    std::string_view stem = prefix ? std::string_view(name).substr(0, name.size() - 1) : std::string_view(name);
    erase_if([&](std::string_view n) { return prefix ? n.substr(0, stem.size()) == stem : n == stem; });
}

std::optional<std::string> Environment::value(std::string_view name) const
{
    auto it = index_.find(std::string(name));
    if (it == index_.end()) return std::nullopt;
    return entries_[it->second].substr(name.size() + 1);
}

void Environment::reindex()
{
    index_.clear();
    for (size_t i = 0; i < entries_.size(); ++i) index_.emplace(std::string(name_of(entries_[i])), i);
}

bool is_inherited_launch_variable(std::string_view name)
{
    if (starts_with(name, "PMIX_")) return !starts_with(name, "PMIX_MCA_");
    if (starts_with(name, "OMPI_COMM_WORLD_")) return true;
    for (const char* v : kInheritedOmpiLaunchVariables) {
        if (name == v) return true;
    }
    return false;
}

Environment build_child_environment(const ChildEnvironmentInput& in)
{
    Environment env(in.daemon_environ);
    env.erase_if(is_inherited_launch_variable);
    for (const auto& entry : in.pmix) env.put(entry);

    const auto& job = *in.job;
    const auto& proc = *in.proc;
    const auto& app = *in.app;
    // PRTE's own helpers, for scripts that want to know where they are without PMIx.
    env.set("PRTE_NSPACE", job.nspace);
    env.set("PRTE_RANK", std::to_string(proc.rank));
    env.set("PRTE_SIZE", std::to_string(job.num_procs()));
    env.set("PRTE_LOCAL_RANK", std::to_string(proc.local_rank));
    env.set("PRTE_LOCAL_SIZE", std::to_string(in.local_size));
    env.set("PRTE_NODE_RANK", std::to_string(proc.node_rank));
    env.set("PRTE_NODE_NAME", in.node_name);
    env.set("PRTE_APP_INDEX", std::to_string(proc.app_index));

    std::vector<std::string> launch_facts;  // the names set below for this process alone
    auto set_fact = [&](const char* name, const std::string& value) {
        env.set(name, value);
        launch_facts.emplace_back(name);
    };
    if (in.ompi_compat) {
        set_fact(kOmpiDaemonUri, "0." + std::to_string(in.daemon_rank) + ";");
        set_fact("OMPI_COMM_WORLD_SIZE", std::to_string(job.num_procs()));
        set_fact("OMPI_COMM_WORLD_RANK", std::to_string(proc.rank));
        set_fact("OMPI_COMM_WORLD_LOCAL_RANK", std::to_string(proc.local_rank));
        set_fact("OMPI_COMM_WORLD_LOCAL_SIZE", std::to_string(in.local_size));
        set_fact("OMPI_COMM_WORLD_NODE_RANK", std::to_string(proc.node_rank));
        // Open MPI 4.1 names its shared-memory segments /dev/shm/vader_segment.<hostname>.<job>.<local
        // rank>: two nodes with one hostname (the local-node test-bed) would map each other's, and
        // crash. A directory of this daemon's own keeps them apart.
        if (!in.ompi_shm_dir.empty()) set_fact(kOmpiShmDirVariable, in.ompi_shm_dir);
        // An oversubscribed node: what mpirun 4.1 sets (mpi_oversubscribe, after which Open MPI
        // yields when idle) and the yield itself, so that ranks sharing a core do not busy-poll
        // each other out. Unless the user chose the yield (prun -x or --mca, or the DVM's own
        // environment): Open MPI forces it on when told the node is oversubscribed, so then
        // neither is set and the user's choice stands.
        const std::string yield = "OMPI_MCA_mpi_yield_when_idle";
        bool user_chose = env.value(yield).has_value();
        for (const auto& entry : app.env) user_chose = user_chose || name_of(entry) == yield;
        if (in.oversubscribed && !user_chose) {
            env.set("OMPI_MCA_mpi_oversubscribe", "1");
            env.set(yield, "1");
        }
    }
    if (!app.working_dir.empty()) env.set("PWD", app.working_dir);
    for (const auto& entry : app.env) {  // prun -x, --set-env ...: the user has the last word
        if (!is_another_launchs_fact(entry, launch_facts)) env.apply(entry);
    }
    return env;
}

std::vector<std::string> executable_candidates(const std::string& executable, const Environment& env)
{
    if (executable.find('/') != std::string::npos) return {executable};
    // No PATH at all: the system default search path, as execvp uses.
    std::string path = env.value("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
    std::vector<std::string> out;
    for (const auto& dir : util::split(path, ':')) {
        out.push_back(dir.empty() ? executable : dir + "/" + executable);
    }
    return out;
}

}  // namespace prte::odls::default_component
