// The runtime types that components share with libprte, fingerprinted at compile time
// (util/layout_fingerprint.h). A component's descriptor carries the value it was compiled with
// (PRTE_MCA_COMPONENT fills it in) and the component repository refuses one whose value is not
// this build's: a component built before a runtime type changed would read and write it with the
// old layout. Framework interface versions (kInterfaceVersion in src/mca/<fw>/<fw>.h) therefore
// change only with their framework's own Module, never for a change here.
//
// Listed: every type a framework header (src/mca/<fw>/<fw>.h) brings in that a component may
// create, read or write. A type with public members lists all of them, in declaration order: the
// static_asserts below fail to compile when a member is added to a type and not here. Adding a
// type a framework header newly exposes is the one thing to remember by hand.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/elastic.h"
#include "runtime/job.h"
#include "runtime/job_table.h"
#include "runtime/node.h"
#include "runtime/process_name.h"
#include "util/layout_fingerprint.h"

namespace prte::runtime::layout {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"

inline constexpr auto node_topology = util::layout_of<NodeTopology>(
    PRTE_LAYOUT_FIELD(NodeTopology, packages), PRTE_LAYOUT_FIELD(NodeTopology, numa_domains),
    PRTE_LAYOUT_FIELD(NodeTopology, cores), PRTE_LAYOUT_FIELD(NodeTopology, hwthreads));

inline constexpr auto node = util::layout_of<Node>(
    PRTE_LAYOUT_FIELD(Node, name), PRTE_LAYOUT_FIELD(Node, aliases), PRTE_LAYOUT_FIELD(Node, slots),
    PRTE_LAYOUT_FIELD(Node, slots_given), PRTE_LAYOUT_FIELD(Node, slots_max), PRTE_LAYOUT_FIELD(Node, slots_inuse),
    PRTE_LAYOUT_FIELD(Node, num_procs), PRTE_LAYOUT_FIELD(Node, state), PRTE_LAYOUT_FIELD(Node, topology),
    PRTE_LAYOUT_FIELD(Node, hw), PRTE_LAYOUT_FIELD(Node, simulated), PRTE_LAYOUT_FIELD(Node, pu_load),
    PRTE_LAYOUT_FIELD(Node, machine),
    PRTE_LAYOUT_FIELD(Node, daemon), PRTE_LAYOUT_FIELD(Node, daemon_launched), PRTE_LAYOUT_FIELD(Node, ras_component),
    PRTE_LAYOUT_FIELD(Node, alloc_id), PRTE_LAYOUT_FIELD(Node, scheduler_job));

inline constexpr auto app_context = util::layout_of<AppContext>(
    PRTE_LAYOUT_FIELD(AppContext, index), PRTE_LAYOUT_FIELD(AppContext, executable), PRTE_LAYOUT_FIELD(AppContext, argv),
    PRTE_LAYOUT_FIELD(AppContext, env), PRTE_LAYOUT_FIELD(AppContext, working_dir),
    PRTE_LAYOUT_FIELD(AppContext, num_procs), PRTE_LAYOUT_FIELD(AppContext, hosts),
    PRTE_LAYOUT_FIELD(AppContext, hostfile), PRTE_LAYOUT_FIELD(AppContext, add_hosts),
    PRTE_LAYOUT_FIELD(AppContext, add_hostfile), PRTE_LAYOUT_FIELD(AppContext, map_by),
    PRTE_LAYOUT_FIELD(AppContext, preload));

inline constexpr auto preload_file = util::layout_of<PreloadFile>(
    PRTE_LAYOUT_FIELD(PreloadFile, binary), PRTE_LAYOUT_FIELD(PreloadFile, name), PRTE_LAYOUT_FIELD(PreloadFile, mode),
    PRTE_LAYOUT_FIELD(PreloadFile, machine), PRTE_LAYOUT_FIELD(PreloadFile, device),
    PRTE_LAYOUT_FIELD(PreloadFile, inode), PRTE_LAYOUT_FIELD(PreloadFile, content));

inline constexpr auto proc = util::layout_of<Proc>(
    PRTE_LAYOUT_FIELD(Proc, rank), PRTE_LAYOUT_FIELD(Proc, app_index), PRTE_LAYOUT_FIELD(Proc, node),
    PRTE_LAYOUT_FIELD(Proc, local_rank), PRTE_LAYOUT_FIELD(Proc, node_rank), PRTE_LAYOUT_FIELD(Proc, state),
    PRTE_LAYOUT_FIELD(Proc, pid), PRTE_LAYOUT_FIELD(Proc, exit_code), PRTE_LAYOUT_FIELD(Proc, term_signal),
    PRTE_LAYOUT_FIELD(Proc, iof_complete), PRTE_LAYOUT_FIELD(Proc, waitpid_fired),
    PRTE_LAYOUT_FIELD(Proc, counted_terminated), PRTE_LAYOUT_FIELD(Proc, counted_running),
    PRTE_LAYOUT_FIELD(Proc, counted_registered), PRTE_LAYOUT_FIELD(Proc, counted_error), PRTE_LAYOUT_FIELD(Proc, restarts),
    PRTE_LAYOUT_FIELD(Proc, last_logged), PRTE_LAYOUT_FIELD(Proc, cpuset), PRTE_LAYOUT_FIELD(Proc, binding),
    PRTE_LAYOUT_FIELD(Proc, cpus_counted));

inline constexpr auto mapping_policy = util::layout_of<MappingPolicy>(
    PRTE_LAYOUT_FIELD(MappingPolicy, by), PRTE_LAYOUT_FIELD(MappingPolicy, rank_by),
    PRTE_LAYOUT_FIELD(MappingPolicy, bind_to), PRTE_LAYOUT_FIELD(MappingPolicy, oversubscribe),
    PRTE_LAYOUT_FIELD(MappingPolicy, ppr_count), PRTE_LAYOUT_FIELD(MappingPolicy, ppr_object),
    PRTE_LAYOUT_FIELD(MappingPolicy, span), PRTE_LAYOUT_FIELD(MappingPolicy, bind_overload_allowed),
    PRTE_LAYOUT_FIELD(MappingPolicy, bind_if_supported), PRTE_LAYOUT_FIELD(MappingPolicy, inherit),
    PRTE_LAYOUT_FIELD(MappingPolicy, pes_per_proc), PRTE_LAYOUT_FIELD(MappingPolicy, rank_span),
    PRTE_LAYOUT_FIELD(MappingPolicy, hwtcpus), PRTE_LAYOUT_FIELD(MappingPolicy, nolocal),
    PRTE_LAYOUT_FIELD(MappingPolicy, donotlaunch), PRTE_LAYOUT_FIELD(MappingPolicy, file),
    PRTE_LAYOUT_FIELD(MappingPolicy, pe_list), PRTE_LAYOUT_FIELD(MappingPolicy, pe_list_ordered));

inline constexpr auto output_options = util::layout_of<OutputOptions>(
    PRTE_LAYOUT_FIELD(OutputOptions, tag), PRTE_LAYOUT_FIELD(OutputOptions, timestamp),
    PRTE_LAYOUT_FIELD(OutputOptions, merge_stderr), PRTE_LAYOUT_FIELD(OutputOptions, held_for_pull),
    PRTE_LAYOUT_FIELD(OutputOptions, tag_detailed));

inline constexpr auto job_reports = util::layout_of<JobReports>(
    PRTE_LAYOUT_FIELD(JobReports, map), PRTE_LAYOUT_FIELD(JobReports, allocation),
    PRTE_LAYOUT_FIELD(JobReports, bindings), PRTE_LAYOUT_FIELD(JobReports, topology),
    PRTE_LAYOUT_FIELD(JobReports, topology_hosts), PRTE_LAYOUT_FIELD(JobReports, cpus),
    PRTE_LAYOUT_FIELD(JobReports, cpus_hosts), PRTE_LAYOUT_FIELD(JobReports, physical),
    PRTE_LAYOUT_FIELD(JobReports, xml));

inline constexpr auto stdin_target = util::layout_of<StdinTarget>(PRTE_LAYOUT_FIELD(StdinTarget, kind),
                                                                  PRTE_LAYOUT_FIELD(StdinTarget, rank));

inline constexpr auto job = util::layout_of<Job>(
    PRTE_LAYOUT_FIELD(Job, nspace), PRTE_LAYOUT_FIELD(Job, state), PRTE_LAYOUT_FIELD(Job, apps),
    PRTE_LAYOUT_FIELD(Job, procs), PRTE_LAYOUT_FIELD(Job, mapping), PRTE_LAYOUT_FIELD(Job, output),
    PRTE_LAYOUT_FIELD(Job, reports), PRTE_LAYOUT_FIELD(Job, stdin_target), PRTE_LAYOUT_FIELD(Job, mpi),
    PRTE_LAYOUT_FIELD(Job, timeout_seconds), PRTE_LAYOUT_FIELD(Job, timeout_report_state),
    PRTE_LAYOUT_FIELD(Job, timeout_stack_traces), PRTE_LAYOUT_FIELD(Job, spawn_timeout_seconds),
    PRTE_LAYOUT_FIELD(Job, queue), PRTE_LAYOUT_FIELD(Job, queue_timeout_seconds), PRTE_LAYOUT_FIELD(Job, recoverable),
    PRTE_LAYOUT_FIELD(Job, error_nonzero_status), PRTE_LAYOUT_FIELD(Job, max_restarts), PRTE_LAYOUT_FIELD(Job, continuous),
    PRTE_LAYOUT_FIELD(Job, is_daemon_job),
    PRTE_LAYOUT_FIELD(Job, originator), PRTE_LAYOUT_FIELD(Job, spawner_pid), PRTE_LAYOUT_FIELD(Job, spawner_host),
    PRTE_LAYOUT_FIELD(Job, outlives_parent), PRTE_LAYOUT_FIELD(Job, awaiting_children),
    PRTE_LAYOUT_FIELD(Job, report_children_separately), PRTE_LAYOUT_FIELD(Job, children_exit_code),
    PRTE_LAYOUT_FIELD(Job, children_failure),
    PRTE_LAYOUT_FIELD(Job, on_spawned), PRTE_LAYOUT_FIELD(Job, num_launched), PRTE_LAYOUT_FIELD(Job, num_reported),
    PRTE_LAYOUT_FIELD(Job, num_terminated), PRTE_LAYOUT_FIELD(Job, exit_code), PRTE_LAYOUT_FIELD(Job, abort_message),
    PRTE_LAYOUT_FIELD(Job, aborting), PRTE_LAYOUT_FIELD(Job, waiting), PRTE_LAYOUT_FIELD(Job, abort_state),
    PRTE_LAYOUT_FIELD(Job, timeout_timer), PRTE_LAYOUT_FIELD(Job, spawn_timer), PRTE_LAYOUT_FIELD(Job, timed_out));

inline constexpr auto process_name = util::layout_of<ProcessName>(PRTE_LAYOUT_FIELD(ProcessName, nspace),
                                                                  PRTE_LAYOUT_FIELD(ProcessName, rank));

inline constexpr auto allocation_request = util::layout_of<AllocationRequest>(
    PRTE_LAYOUT_FIELD(AllocationRequest, directive), PRTE_LAYOUT_FIELD(AllocationRequest, requester),
    PRTE_LAYOUT_FIELD(AllocationRequest, alloc_id), PRTE_LAYOUT_FIELD(AllocationRequest, req_id),
    PRTE_LAYOUT_FIELD(AllocationRequest, node_list), PRTE_LAYOUT_FIELD(AllocationRequest, hostfile),
    PRTE_LAYOUT_FIELD(AllocationRequest, num_nodes), PRTE_LAYOUT_FIELD(AllocationRequest, info),
    PRTE_LAYOUT_FIELD(AllocationRequest, requester_daemon), PRTE_LAYOUT_FIELD(AllocationRequest, serial));

inline constexpr auto campaign = util::layout_of<Campaign>(
    PRTE_LAYOUT_FIELD(Campaign, id), PRTE_LAYOUT_FIELD(Campaign, targets), PRTE_LAYOUT_FIELD(Campaign, target_nodes),
    PRTE_LAYOUT_FIELD(Campaign, requester), PRTE_LAYOUT_FIELD(Campaign, alloc_id), PRTE_LAYOUT_FIELD(Campaign, req_id),
    PRTE_LAYOUT_FIELD(Campaign, requester_daemon), PRTE_LAYOUT_FIELD(Campaign, started));

// The derived campaigns: their Campaign base is the first "member", at offset 0.
inline constexpr auto shrink_campaign = util::layout_of<ShrinkCampaign>(util::field_layout<Campaign>(0));
inline constexpr auto grow_campaign = util::layout_of<GrowCampaign>(
    util::field_layout<Campaign>(0), PRTE_LAYOUT_FIELD(GrowCampaign, reported), PRTE_LAYOUT_FIELD(GrowCampaign, wiring));

inline constexpr auto parked_job = util::layout_of<ParkedJob>(PRTE_LAYOUT_FIELD(ParkedJob, job),
                                                              PRTE_LAYOUT_FIELD(ParkedJob, waiting_on));
inline constexpr auto allocation_record = util::layout_of<AllocationRecord>(
    PRTE_LAYOUT_FIELD(AllocationRecord, phase), PRTE_LAYOUT_FIELD(AllocationRecord, cause));

#pragma GCC diagnostic pop

// Private members: their inline accessors are compiled into components, so size and alignment
// still count, and a change of a private member's type shows there.
inline constexpr auto node_pool = util::opaque_layout_of<NodePool>();
inline constexpr auto job_table = util::opaque_layout_of<JobTable>();
inline constexpr auto elastic_state = util::opaque_layout_of<ElasticState>();

#define PRTE_LAYOUT_COVERS(layout, type)                                                             \
    static_assert(util::covers(layout), "runtime::" #type " has a member that runtime/types_fingerprint.h does not " \
                                        "list: add it there, in declaration order")
PRTE_LAYOUT_COVERS(node_topology, NodeTopology);
PRTE_LAYOUT_COVERS(node, Node);
PRTE_LAYOUT_COVERS(app_context, AppContext);
PRTE_LAYOUT_COVERS(preload_file, PreloadFile);
PRTE_LAYOUT_COVERS(proc, Proc);
PRTE_LAYOUT_COVERS(mapping_policy, MappingPolicy);
PRTE_LAYOUT_COVERS(output_options, OutputOptions);
PRTE_LAYOUT_COVERS(job_reports, JobReports);
PRTE_LAYOUT_COVERS(stdin_target, StdinTarget);
PRTE_LAYOUT_COVERS(job, Job);
PRTE_LAYOUT_COVERS(process_name, ProcessName);
PRTE_LAYOUT_COVERS(allocation_request, AllocationRequest);
PRTE_LAYOUT_COVERS(campaign, Campaign);
PRTE_LAYOUT_COVERS(shrink_campaign, ShrinkCampaign);
PRTE_LAYOUT_COVERS(grow_campaign, GrowCampaign);
PRTE_LAYOUT_COVERS(parked_job, ParkedJob);
PRTE_LAYOUT_COVERS(allocation_record, AllocationRecord);
#undef PRTE_LAYOUT_COVERS

}  // namespace prte::runtime::layout

namespace prte::runtime {

// What a component's descriptor carries as runtime_types, and what the repository compares it with.
inline constexpr uint64_t kTypesFingerprint = util::layout_fingerprint(
    layout::node_topology, layout::node, layout::app_context, layout::preload_file, layout::proc, layout::mapping_policy,
    layout::output_options, layout::job_reports, layout::stdin_target, layout::job, layout::process_name,
    layout::allocation_request, layout::campaign, layout::shrink_campaign, layout::grow_campaign,
    layout::parked_job, layout::allocation_record, layout::node_pool, layout::job_table, layout::elastic_state);

}  // namespace prte::runtime
