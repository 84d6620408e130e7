// ras/envlist: an out-of-tree RAS component that takes the DVM's nodes from an environment
// variable, in the --host syntax: "nodeA:4,nodeB:2,nodeC" (name[:slots]).
//
// It is the worked example of docs/component-guide.md and builds against an installed prte with
// nothing but `pkg-config prte` (see the Makefile next to it). Everything it uses comes from the
// installed headers under <includedir>/prte.
//
// What it shows:
//   - the descriptor: the one extern "C" symbol the loader looks for;
//   - register_params: a parameter (ras_envlist_variable) with a default, help and a validator;
//   - query: available only when there is something to offer, otherwise a negative priority and
//     a reason the user sees in prte_info and in selection errors;
//   - the module: allocate() adds nodes to the pool; modify() is left to the default (not
//     handled); the optional shrink_complete() hook is shown with a verbose line;
//   - no hook lets an exception escape (they are noexcept: one would end the process).
#include <cctype>
#include <cstdlib>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "mca/base/component.h"
#include "mca/base/param.h"
#include "mca/ras/base/ras_base.h"
#include "mca/ras/ras.h"
#include "runtime/elastic.h"
#include "runtime/node.h"
#include "util/status.h"
#include "util/strings.h"

namespace {

constexpr const char* kComponentName = "envlist";
constexpr const char* kDefaultVariable = "PRTE_ENVLIST_NODES";
// Above ras/hosts (10): when the variable is set, its list is the allocation.
constexpr int kPriority = 20;

// The parameter registered by register_params(). The registry owns it for the life of the
// process, so keeping a pointer is safe. Its value is read at query time, not here.
const prte::mca::Param* variable_param = nullptr;

std::string variable_name()
{
    return variable_param ? variable_param->as_string() : std::string(kDefaultVariable);
}

// An environment variable name: letters, digits and '_', not starting with a digit.
std::optional<std::string> check_variable_name(const std::string& value)
{
    bool ok = !value.empty() && !std::isdigit(static_cast<unsigned char>(value.front()));
    for (char c : value) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (ok) return std::nullopt;
    return "must be an environment variable name (letters, digits and '_', not starting with a digit)";
}

// Parses "nodeA:4,nodeB:2,nodeC". Spaces around entries are ignored; anything else that is not
// name[:N] with N a positive integer is an error naming the variable and the entry.
prte::Status parse_node_list(const std::string& variable, std::string_view text,
                             std::vector<prte::runtime::Node>& nodes)
{
    for (const std::string& raw : prte::util::split(text, ',')) {
        std::string entry(prte::util::trim(raw));
        auto bad = [&](std::string_view why) {
            return prte::Status(prte::Errc::bad_param, fmt::format("{}: bad entry '{}': {}", variable, entry, why));
        };
        size_t colon = entry.find(':');
        prte::runtime::Node node;
        node.name = entry.substr(0, colon);
        if (node.name.empty()) return bad("the node name is empty");
        if (colon != std::string::npos) {
            std::optional<int64_t> slots = prte::util::parse_int(std::string_view(entry).substr(colon + 1));
            if (!slots || *slots <= 0 || *slots > std::numeric_limits<int>::max()) {
                return bad("slots must be a positive integer");
            }
            node.slots = static_cast<int>(*slots);
            node.slots_given = true;
        }
        node.ras_component = kComponentName;
        nodes.push_back(std::move(node));
    }
    return {};
}

class EnvlistModule final : public prte::ras::Module {
  public:
    // The list is captured when the component is queried, so the allocation is the one the
    // availability decision was made on.
    EnvlistModule(std::string variable, std::string value) : variable_(std::move(variable)), value_(std::move(value))
    {
    }

    // The AllocateContext (--host, --hostfile) is ras/hosts' business; this list replaces it.
    prte::Status allocate(const prte::ras::AllocateContext& /*context*/, prte::runtime::NodePool& pool) override
    {
        std::vector<prte::runtime::Node> nodes;
        if (prte::Status st = parse_node_list(variable_, value_, nodes); !st) return st;
        for (const auto& node : nodes) pool.add(node);
        verbose()(5, "{}: {} node(s) from {}", kComponentName, nodes.size(), variable_);
        return {};
    }

    // modify() is not overridden: the default answers take_next_option, so dynamic allocation
    // requests go on to the next component (a static list has nothing to grant).

    void shrink_complete(const prte::runtime::ShrinkCampaign& campaign,
                         const prte::runtime::NodePool& pool) noexcept override
    {
        try {
            std::vector<std::string> ours;
            for (const auto& name : campaign.target_nodes) {
                const prte::runtime::Node* node = pool.find(name);
                if (node && node->ras_component == kComponentName) ours.push_back(name);
            }
            // A scheduler's component would hand its share back to the scheduler here.
            verbose()(5, "{}: shrink campaign {} completed; {} of its nodes left ({}): nothing to release, "
                         "the list is static", kComponentName, campaign.id, ours.size(),
                      ours.empty() ? std::string("none") : prte::util::join(ours, ", "));
        } catch (...) {
            // Only an allocation failure can get here; a verbose line is not worth ending the DVM.
        }
    }

  private:
    static const prte::output::VerboseStream& verbose() { return prte::ras::base::framework().verbose(); }

    std::string variable_;
    std::string value_;
};

void register_params(prte::mca::ParamRegistry& registry) noexcept
{
    try {
        variable_param = &registry.register_string(
            {"ras", kComponentName, "variable"}, kDefaultVariable,
            "Environment variable holding the node list, in the --host syntax: name[:slots],... "
            "(for example \"nodeA:4,nodeB:2,nodeC\")",
            check_variable_name);
    } catch (...) {
        variable_param = nullptr;  // fall back to the default name
    }
}

// Not available, for a reason that came as an exception. Even building the reason may fail (out
// of memory); nothing may escape a noexcept hook.
void decline(prte::mca::QueryResult& result, const char* why) noexcept
{
    result.module.reset();
    result.priority = -1;
    try {
        result.reason = fmt::format("cannot be queried: {}", why);
    } catch (...) {
        result.reason.clear();
    }
}

// context.role says which program is selecting (master, daemon, tool, info); a RAS list is
// harmless anywhere, since only the master asks for an allocation, so it is not consulted here.
void query(const prte::mca::QueryContext& /*context*/, prte::mca::QueryResult& result) noexcept
{
    try {
        std::string variable = variable_name();
        const char* value = std::getenv(variable.c_str());
        if (!value) {
            result.priority = -1;
            result.reason = variable + " is not set";
            return;
        }
        if (prte::util::trim(value).empty()) {
            result.priority = -1;
            result.reason = variable + " is not set (it is empty)";
            return;
        }
        result.module = std::make_unique<EnvlistModule>(variable, value);
        result.priority = kPriority;
    } catch (const std::exception& e) {
        decline(result, e.what());
    } catch (...) {
        decline(result, "unknown exception");
    }
}

}  // namespace

extern "C" const prte::mca::ComponentDescriptor* prte_mca_component_descriptor() noexcept
{
    static const prte::mca::ComponentDescriptor descriptor{
        .framework = "ras",
        .name = kComponentName,
        .interface_version = prte::ras::kInterfaceVersion,
        .version = "1.0.0",
        .description = "nodes from an environment variable (ras_envlist_variable, default PRTE_ENVLIST_NODES)",
        .register_params = register_params,
        .open = nullptr,
        .query = query,
        .close = nullptr,
        // The runtime types (runtime::Node, Job, ...) this file is compiled against; prte refuses
        // the component when its own differ. PRTE_MCA_COMPONENT(...) fills this in by itself.
        .runtime_types = prte::runtime::kTypesFingerprint,
    };
    return &descriptor;
}
