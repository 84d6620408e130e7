#include "mca/plm/base/plm_base.h"

#include <limits>

#include "mca/base/param.h"
#include "mca/plm/base/plm_base_state.h"
#include "util/strings.h"

namespace prte::plm {

Module::~Module() = default;

namespace base {
namespace {

// What every launcher's daemons share, registered with the framework so prte_info lists them.
class PlmFramework final : public mca::TypedFramework<Module> {
  public:
    using TypedFramework::TypedFramework;

    BaseState& state() { return state_; }

  protected:
    // An armed teardown timer goes here, before the event loop it is armed on.
    void close_base() override { state_ = BaseState{}; }

    void register_base_params(mca::ParamRegistry& registry) override
    {
        registry.register_string({"plm", "base", "prted"}, PRTE_BINDIR "/prted",
                                 "The prted program the launchers start on each node");
        registry.register_string({"prte", "", "set_slots"}, "cores",
                                 "Slots of a node whose count was not given: cores, hwthreads, numas, packages, or a "
                                 "number",
                                 check_set_slots);
    }

  private:
    BaseState state_;
};

// The topology count each policy name reads; pus and sockets are PRRTE's other spellings.
const int* policy_count(const std::string& policy, const runtime::NodeTopology& t)
{
    if (policy == "cores") return &t.cores;
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

std::optional<std::string> check_set_slots(const std::string& value)
{
    if (policy_count(value, runtime::NodeTopology{}) || slot_number(value)) return std::nullopt;
    return std::string("expected cores, hwthreads, pus, numas, packages, sockets, or a number of slots of at least 1");
}

int slots_for(const std::string& policy, const runtime::NodeTopology& t)
{
    int n = 0;
    if (const int* count = policy_count(policy, t)) n = *count;
    else if (auto number = slot_number(policy)) n = static_cast<int>(*number);
    // Not reached with a registered parameter (its validator refused anything else); a caller
    // passing another policy gets the default's meaning.
    else n = t.cores;
    return n > 0 ? n : 1;
}

namespace {

PlmFramework& plm_framework()
{
    static PlmFramework instance("plm", kInterfaceVersion, mca::SelectMode::single,
                                 "Process lifecycle management: launches and terminates daemons");
    return instance;
}

}  // namespace

mca::Framework& framework() { return plm_framework(); }

BaseState& state() { return plm_framework().state(); }

DaemonTable& daemons() { return state().daemons; }

Module* module()
{
    const auto& selected = framework().selected();
    return selected.empty() ? nullptr : static_cast<Module*>(selected.front().module.get());
}

}  // namespace base
}  // namespace prte::plm
