// The text of `prun --display allocation` and `--display map`, as PRRTE lays them out: the nodes a
// job may use (before it is mapped) and where each of its ranks went (after). Pure formatting, so
// the layout is tested without a DVM; plm/base sends the text to the job's spawner.
#pragma once

#include <string>

#include "runtime/job.h"
#include "runtime/node.h"

namespace prte::rmaps::base {

// One line per node of the DVM that is up: its slots, hard limit and slots in use.
std::string allocation_report(const runtime::NodePool& pool);

// The job's policies, then per node the ranks placed there, in rank order.
std::string map_report(const runtime::Job& job, const runtime::NodePool& pool);

}  // namespace prte::rmaps::base
