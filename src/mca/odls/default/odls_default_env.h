// The environment of a launched process: the daemon's own, cleaned of what describes the daemon's
// own launch, plus the PMIx variables, PRTE's helpers, Open MPI 4.x's launch variables, and
// finally the app's own settings (prun -x), which win over everything but the launch facts this
// launcher sets for each process (an app's copy of those is another process's: see
// build_child_environment).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/job.h"

namespace prte::odls::default_component {

// An ordered set of NAME=value entries; setting an existing name replaces its value in place.
class Environment {
  public:
    Environment() = default;
    // Copies a nullptr-terminated environ-style array.
    explicit Environment(char* const* entries);

    void set(std::string_view name, std::string_view value);
    // "NAME=value"; an entry without '=' is ignored (it cannot be a variable).
    void put(std::string_view entry);
    // An app's environment entry: "NAME=value" as put(), or an edit of what is there
    // (runtime/env_edit.h: prun --unset-env, --prepend-env, --append-env).
    void apply(std::string_view entry);
    template <typename Predicate>
    void erase_if(Predicate drop);

    std::optional<std::string> value(std::string_view name) const;
    const std::vector<std::string>& entries() const { return entries_; }

  private:
    void reindex();

    std::vector<std::string> entries_;
    std::unordered_map<std::string, size_t> index_;  // name -> position in entries_
};

// True for variables of the daemon's environment that must not reach a child: PMIx client
// variables left over from however the daemon itself was started (every PMIX_* except the
// PMIX_MCA_* settings meant for PMIx), the Open MPI launch variables this launcher sets, and PMI's.
bool is_inherited_launch_variable(std::string_view name);

// The directory each daemon whose node shares its hostname gives Open MPI for its shared-memory
// segments: "<the daemon's session directory>/ompi-shm".
inline constexpr const char* kOmpiShmDirName = "ompi-shm";
// True when DIR is such a directory (of this daemon or of another), not one a user chose.
bool is_daemon_shm_dir(std::string_view dir);

struct ChildEnvironmentInput {
    char* const* daemon_environ = nullptr;     // this process's environment
    std::vector<std::string> pmix;             // what PMIx_server_setup_fork gave for the child
    const runtime::Job* job = nullptr;
    const runtime::Proc* proc = nullptr;
    const runtime::AppContext* app = nullptr;
    int local_size = 0;                        // this job's processes on this node
    std::string node_name;
    runtime::Rank daemon_rank = 0;
    bool ompi_compat = true;                   // odls_default_ompi_compat
    std::string ompi_shm_dir;                  // Services::ompi_shm_dir
    bool oversubscribed = false;               // Services::oversubscribed
};

Environment build_child_environment(const ChildEnvironmentInput& input);

// Where to look for the executable, in order. A name with a '/' is used as given (relative to
// the working directory); a bare name is looked up in the PATH of the child's environment, as
// execvp would, with an empty PATH entry meaning the working directory.
std::vector<std::string> executable_candidates(const std::string& executable, const Environment& env);

template <typename Predicate>
void Environment::erase_if(Predicate drop)
{
    std::vector<std::string> kept;
    kept.reserve(entries_.size());
    for (auto& entry : entries_) {
        std::string_view name(entry.data(), entry.find('='));
        if (!drop(name)) kept.push_back(std::move(entry));
    }
    entries_ = std::move(kept);
    reindex();
}

}  // namespace prte::odls::default_component
