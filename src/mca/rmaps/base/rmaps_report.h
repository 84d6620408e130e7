// The text of `prun --display allocation`, `--display topo`, `--display cpus` and `--display map`, as PRRTE lays them
// out: the nodes a job may use and their hardware (before it is mapped), and where each of its
// ranks went (after). Pure formatting, so
// the layout is tested without a DVM; plm/base sends the text to the job's spawner.
#pragma once

#include <string>

#include "runtime/job.h"
#include "runtime/node.h"

namespace prte::rmaps::base {

// One line per node of the DVM that is up: its slots, hard limit and slots in use.
// With `xml` (and each report below with job.reports.xml, prun --output xml): the report as XML
// elements, in PRRTE's shapes (<allocation>, <map>, <host>, <process>, <processors>, <topology>).
std::string allocation_report(const runtime::NodePool& pool, bool xml = false);

// Each node's hardware as the master holds it (what placement reads), an indented tree of
// hwloc's objects, for the nodes `job.reports.topology_hosts` names (every node of the DVM when it
// names none). A name the DVM does not know, or a node whose topology has not arrived, gets a
// line saying so.
std::string topology_report(const runtime::Job& job, const runtime::NodePool& pool);

// PRRTE's --display cpus[=host;host]: per node (those `job.reports.cpus_hosts` names, or every
// usable node), the CPUs of each package a process may be bound to, as "PKG[n]: 0-3" under an
// "AVAILABLE PROCESSORS [node: <name>]" banner: cores (hwthreads with HWTCPUS) by logical index
// (the OS's with :physical), within hwloc's allowed set.
std::string cpus_report(const runtime::Job& job, const runtime::NodePool& pool);

// The job's policies, then per node the ranks placed there, in rank order.
std::string map_report(const runtime::Job& job, const runtime::NodePool& pool);

}  // namespace prte::rmaps::base
