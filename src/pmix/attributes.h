// PMIx attributes of our own, shared by the DVM and its tools. PMIx passes unknown keys through
// to the host, so an older DVM simply ignores them.
#pragma once

namespace prte::pmix {

// (bool) Spawn directive from a tool that will PMIx_IOF_pull the job's output as soon as the spawn
// answer names the job: the DVM holds the output until that pull arrives. Without it, output a
// process writes before the tool's pull reaches PMIx's own cache, which in PMIx 4.2 loses chunks
// and hands back the rest with a corrupted source rank.
inline constexpr const char kSpawnerPullsOutput[] = "prte.iof.pull";

}  // namespace prte::pmix

namespace prte::pmix {

// Output flow control between the DVM and a tool that spawned with kSpawnerPullsOutput: the tool
// acknowledges what it has received with a query of this key, qualified by PMIX_NSPACE and
// kOutputAckedBytes (uint64_t, the running total), and the DVM stops reading the job's pipes while
// more than a window of output is unacknowledged. PMIx itself queues without bound: without this,
// `prun yes | head` grew the DVM to 24 GB.
inline constexpr const char kOutputAck[] = "prte.iof.ack";
inline constexpr const char kOutputAckedBytes[] = "prte.iof.acked";

// Job-level spawn info from prun: its own pid and host. PMIx 4.2.2 never tells the host that a
// tool left, so the DVM watches that pid (when prun runs on the master's host) and ends the jobs
// prun started if it dies without ending them (a SIGKILL), instead of leaving them running.
inline constexpr const char kSpawnerPid[] = "prte.spawner.pid";
// Job-level spawn info (bool): binding reports (--report-bindings, --display bind/map) give the
// OS's ids of the objects and CPUs instead of hwloc's logical ones, as PRRTE's
// `--display bind:physical`. PMIx 4.2.2 has no PMIX_REPORT_PHYSICAL_CPUS; a PMIx that does is
// read too (pmix/spawn_translate.cc).
inline constexpr const char kReportPhysicalCpus[] = "prte.report.physical";
inline constexpr const char kSpawnerHost[] = "prte.spawner.host";
// Job-level spawn info (bool), prun --runtime-options error-nonzero-status=false: a process that
// exits with a non-zero status ends normally, the job running on (PRRTE's ERROR-NONZERO-STATUS;
// PMIx has no attribute for it). Its status is still the job's, the first such.
inline constexpr const char kErrorNonzeroStatus[] = "prte.job.error_nonzero_status";

// In the info of a PMIX_ERR_DVM_MOD event: the pmix_status_t that prevented the DVM change (spec:
// elastic-dvm-spec.txt, "Failure event"), beside PMIX_EVENT_TEXT_MESSAGE with the reason in words.
inline constexpr const char kAllocationCause[] = "prte.alloc.cause";
// A query key: why the DVM refused this tool's last allocation request. PMIx 4.2 hands a refused
// PMIx_Allocation_request only its status, not the info that says why, so palloc asks for it.
inline constexpr const char kAllocationRefusal[] = "prte.alloc.refusal";
// In the answer to PMIX_QUERY_JOB_STATUS: the job's state by name ("PRTE_JOB_STATE_WAITING_FOR_DAEMONS"
// for a job parked while the DVM changes size), which a pmix_status_t cannot say.
inline constexpr const char kJobStateName[] = "prte.job.state";
// Query keys: the DVM at a glance (nodes, jobs, campaigns; pstat), as a table or as JSON.
inline constexpr const char kDvmStatus[] = "prte.dvm.status";
inline constexpr const char kDvmStatusJson[] = "prte.dvm.status.json";

// (bool) On an output chunk the DVM delivers to a job's spawner: the chunk is the DVM's own report
// on the job (PMIX_DISPLAY_MAP, PMIX_DISPLAY_ALLOCATION), not a process's output, so the tool
// prints it as it is, untagged. Its source is the job with rank PMIX_RANK_UNDEF.
inline constexpr const char kDvmReport[] = "prte.iof.report";

// (char*) Spawn directive, prun --display cpus[=host;host]: the DVM shows each named node's available
// CPUs ("*" or none: every node). PMIx 5's PMIX_DISPLAY_PROCESSORS, which PMIx 4.2 does not define.
inline constexpr const char kDisplayProcessors[] = "pmix.dispcpus";

// (pmix_proc_t) On an output chunk of a job spawned by a process (MPI_Comm_spawn): the process
// that wrote it. Such output is delivered as if from the root of the job tree (the job a tool
// spawned), whose tool is the only one pulling it; this says whose it really is, for the tag.
inline constexpr const char kOutputSource[] = "prte.iof.source";

// (bool) PMIX_SPAWN_CHILD_SEP: PMIx 5's name for a spawn directive that PMIx 4.2 does not define.
// The spawned job is independent of its parent: it is not ended when the parent job ends.
inline constexpr const char kSpawnChildSeparate[] = "pmix.spchildsep";

// (string) Spawn directive: which process-management interface the job's processes are given,
// prun --mpi (Slurm's spelling): "pmix", "pmi1", "pmi2", "none"; absent means both PMIx and PMI
// (runtime::MpiInterface).
inline constexpr const char kMpiInterface[] = "prte.mpi";

// (bool) Spawn directive, prun --queue: the job waits in the DVM's queue while other jobs hold the
// slots it needs, instead of failing (runtime::Job::queue).
inline constexpr const char kQueue[] = "prte.queue";
// (int) Spawn directive, prun --queue-timeout: seconds the job may wait in the queue (0: no limit).
inline constexpr const char kQueueTimeout[] = "prte.queue.timeout";

// (byte object) App-level spawn directive, prun --preload-binary / --preload-files: one file prun
// read, with its name, mode and source (rml/preload_codec.h), which the daemons
// hosting the app's processes write before they fork them. One per file; a job's together at most
// runtime::kMaxPreloadBytes.
inline constexpr const char kPreloadFile[] = "prte.preload.file";

// (bool) Job-level spawn directive, prun --output xml: the DVM's reports on the job (--display map,
// allocation, topo, cpus) are XML elements for the tool's XML document (runtime::JobReports::xml).
inline constexpr const char kDisplayXml[] = "prte.display.xml";

}  // namespace prte::pmix
