#include "runtime/slot_policy.h"

#include <cstdint>
#include <limits>

#include "util/strings.h"

namespace prte::runtime {
namespace {

// The topology count each policy name reads; pus and sockets are PRRTE's other spellings.
const int* policy_count(const std::string& policy, const NodeTopology& t)
{
    if (policy == "cores") return t.cores > 0 ? &t.cores : &t.hwthreads;
    if (policy == "hwthreads" || policy == "pus") return &t.hwthreads;
    if (policy == "numas") return &t.numa_domains;
    if (policy == "packages" || policy == "sockets") return &t.packages;
    return nullptr;
}

std::optional<int64_t> slot_number(const std::string& value)
{
    auto n = util::parse_int(value);
    if (!n || *n < 1 || *n > std::numeric_limits<int32_t>::max()) return std::nullopt;
    return n;
}

}  // namespace

std::optional<std::string> check_slot_policy(const std::string& value)
{
    if (policy_count(value, NodeTopology{}) || slot_number(value)) return std::nullopt;
    return std::string("expected cores, hwthreads, pus, numas, packages, sockets, or a number of slots of at least 1");
}

int slots_for(const std::string& policy, const NodeTopology& t)
{
    int n = 0;
    if (const int* count = policy_count(policy, t)) n = *count;
    else if (auto number = slot_number(policy)) n = static_cast<int>(*number);
    // Not reached with a registered parameter (its validator refused anything else); a caller
    // passing another policy gets the default's meaning.
    else n = *policy_count(kDefaultSlotPolicy, t);
    return n > 0 ? n : 1;
}

}  // namespace prte::runtime
