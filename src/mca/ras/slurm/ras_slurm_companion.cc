#include "mca/ras/slurm/ras_slurm_companion.h"

#include <signal.h>
#include <stdlib.h>

#include <climits>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "util/output.h"
#include "util/strings.h"

namespace prte::ras::slurm {
namespace {

// The job's first words on its stdout once Slurm has granted it.
constexpr const char* kReport = "prte-slurm-companion";
// Prints the report, then holds the job until its stdin ends.
constexpr const char* kHolderScript =
    "echo \"prte-slurm-companion $SLURM_JOB_ID $SLURM_JOB_NODELIST ${SLURM_JOB_CPUS_PER_NODE%%(*}\"; exec cat >/dev/null";

}  // namespace

Status CompanionJob::start(event_base* base, const CompanionOptions& options, const std::string& node, Granted granted,
                           Ended ended)
{
    on_granted_ = std::move(granted);
    on_ended_ = std::move(ended);
    runtime::ChildProcess::Spec spec;
    spec.argv = {options.salloc, fmt::format("--immediate={}", options.immediate_seconds), "--nodes=1"};
    if (!node.empty()) spec.argv.push_back("--nodelist=" + node);
    if (!options.job_name.empty()) spec.argv.push_back("--job-name=" + options.job_name);
    spec.argv.insert(spec.argv.end(), options.extra_args.begin(), options.extra_args.end());
    spec.argv.insert(spec.argv.end(), {"/bin/sh", "-c", kHolderScript});
    // prte runs inside the DVM's own job: its SLURM_* variables describe that job and must not
    // leak into a request for another. Only the configuration's location is kept.
    spec.env_unset = {"SLURM_*", "SALLOC_*"};
    if (const char* conf = getenv("SLURM_CONF")) spec.env_set.emplace_back("SLURM_CONF", conf);
    spec.keep_stdin_open = true;
    node_ = node;
    return salloc_.start(
        base, spec, [this](const std::string& line) { on_line(line); },
        [this](int status) {
            ended_ = true;
            std::string why = granted_ ? fmt::format("salloc {}", runtime::ChildProcess::describe(status))
                                       : slurm_reason();
            Ended handler = on_ended_;  // the handler may replace or destroy it
            if (handler) handler(*this, why);
        });
}

void CompanionJob::on_line(const std::string& line)
{
    std::istringstream words(line);
    std::string first, job, nodes, cpus;
    words >> first >> job >> nodes >> cpus;
    if (first != kReport) {
        salloc_lines_.push_back(line);
        return;
    }
    if (granted_) return;
    granted_ = true;
    job_id_ = job;
    node_ = nodes;
    // Slurm's own report, but read as any input is: a count that is not one leaves the slots unstated.
    std::optional<int64_t> count = cpus.empty() ? std::nullopt : util::parse_int(cpus);
    if (!cpus.empty() && (!count || *count < 0 || *count > INT_MAX)) {
        output::warning("Slurm job {} on {} reports '{}' CPUs, not a count: its slots are left unstated", job_id_,
                        node_, cpus);
        count.reset();
    }
    cpus_ = count ? static_cast<int>(*count) : 0;
    if (on_granted_) on_granted_(*this);
}

std::string CompanionJob::slurm_reason() const
{
    std::vector<std::string> said;
    for (const auto& line : salloc_lines_) {
        std::string text = line.rfind("salloc: ", 0) == 0 ? line.substr(8) : line;
        if (!text.empty()) said.push_back(text);
    }
    if (said.empty()) return "salloc said nothing";
    return util::join(said, "; ");
}

void CompanionJob::release()
{
    released_ = true;
    salloc_.close_stdin();
    // salloc relinquishes (or withdraws a pending request) on SIGTERM; never SIGKILL, which would
    // leave the job allocated.
    if (!granted_) salloc_.signal(SIGTERM);
}

void CompanionJob::release_and_wait(int seconds)
{
    release();
    if (!salloc_.wait_for_exit(seconds)) {
        // salloc relinquishes the job on SIGTERM too; never SIGKILL, which would leave it allocated.
        salloc_.signal(SIGTERM);
        salloc_.wait_for_exit(seconds);
    }
}

}  // namespace prte::ras::slurm
