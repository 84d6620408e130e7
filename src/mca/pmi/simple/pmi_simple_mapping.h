// PMI_process_mapping: where the ranks of a job are, in the form MPICH reads to find the peers
// on its own node (shared memory among them, the network to the others).
//
// "(vector,(N,K,P),...)": each triple says that the next K*P ranks, in rank order, fill nodes
// N..N+K-1 with P consecutive ranks each. Nodes are numbered in the order the ranks first reach
// them, so every daemon computes the same text from the job's map.
#pragma once

#include <string>
#include <vector>

namespace prte::pmi::simple {

// `node_of_rank[r]`: any name of rank r's node (equal names, one node).
std::string process_mapping(const std::vector<std::string>& node_of_rank);

}  // namespace prte::pmi::simple
