#include "mca/pmi/simple/pmi_simple_mapping.h"

#include <map>

#include <fmt/format.h>

namespace prte::pmi::simple {
namespace {

struct Block {
    size_t first_node;
    size_t nodes;
    size_t ranks_per_node;
};

}  // namespace

std::string process_mapping(const std::vector<std::string>& node_of_rank)
{
    std::map<std::string, size_t> numbers;
    std::vector<Block> blocks;
    size_t r = 0;
    while (r < node_of_rank.size()) {
        size_t node = numbers.emplace(node_of_rank[r], numbers.size()).first->second;
        size_t run = 1;  // consecutive ranks on that node
        while (r + run < node_of_rank.size() && node_of_rank[r + run] == node_of_rank[r]) ++run;
        r += run;
        // One more node of the previous block: the next node, with as many ranks.
        if (!blocks.empty()) {
            Block& last = blocks.back();
            if (last.ranks_per_node == run && last.first_node + last.nodes == node) {
                ++last.nodes;
                continue;
            }
        }
        blocks.push_back({node, 1, run});
    }
    std::string out = "(vector";
    for (const Block& b : blocks) out += fmt::format(",({},{},{})", b.first_node, b.nodes, b.ranks_per_node);
    return out + ")";
}

}  // namespace prte::pmi::simple
