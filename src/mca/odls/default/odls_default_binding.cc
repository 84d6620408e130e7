#include "mca/odls/default/odls_default_binding.h"

#include <hwloc.h>

#include <fmt/format.h>

namespace prte::odls::default_component {
namespace {

// The CPU ids in `set`, as "0-3,8".
std::string list_of(const cpu_set_t& set)
{
    hwloc_bitmap_t bitmap = hwloc_bitmap_alloc();
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
        if (CPU_ISSET(cpu, &set)) hwloc_bitmap_set(bitmap, static_cast<unsigned>(cpu));
    }
    char* text = nullptr;
    hwloc_bitmap_list_asprintf(&text, bitmap);
    std::string out = text ? text : "?";
    free(text);
    hwloc_bitmap_free(bitmap);
    return out;
}

}  // namespace

Status binding_for(const runtime::Proc& proc, std::optional<Binding>& binding)
{
    binding.reset();
    if (proc.cpuset.empty()) return {};
    hwloc_bitmap_t wanted = hwloc_bitmap_alloc();
    int parsed = hwloc_bitmap_list_sscanf(wanted, proc.cpuset.c_str());
    if (parsed == 0 && hwloc_bitmap_weight(wanted) < 0) parsed = -1;  // "0-": hwloc's endless range
    Binding b{};
    CPU_ZERO(&b.cpus);
    if (parsed == 0) {
        // Ids beyond what a cpu_set_t holds cannot be CPUs of this machine: they drop out below.
        int cpu = -1;
        while ((cpu = hwloc_bitmap_next(wanted, cpu)) != -1 && cpu < CPU_SETSIZE) CPU_SET(cpu, &b.cpus);
    }
    const bool empty_list = parsed == 0 && hwloc_bitmap_iszero(wanted);
    hwloc_bitmap_free(wanted);
    if (parsed != 0 || empty_list) {
        return {Errc::bad_param, fmt::format("rank {}: cannot read its CPU list '{}'", proc.rank, proc.cpuset)};
    }
    // What this daemon may use: its own affinity, which its processes inherit.
    cpu_set_t here;
    CPU_ZERO(&here);
    if (sched_getaffinity(0, sizeof(here), &here) != 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) CPU_SET(cpu, &here);
    }
    cpu_set_t applied;
    CPU_AND(&applied, &b.cpus, &here);
    b.description = proc.binding.empty() ? fmt::format("cpus {}", proc.cpuset) : proc.binding;
    if (CPU_COUNT(&applied) == 0) {
        b.description += " (not applied: this machine has none of these CPUs)";
        binding = std::move(b);
        CPU_ZERO(&binding->cpus);
        return {};
    }
    if (!CPU_EQUAL(&applied, &b.cpus)) {
        b.description += fmt::format(" (applied to cpus {}: this machine has no others of them)", list_of(applied));
        b.cpus = applied;
    }
    binding = std::move(b);
    return {};
}

}  // namespace prte::odls::default_component
