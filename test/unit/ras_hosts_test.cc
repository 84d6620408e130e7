// The ras/hosts module: where allocate() finds the DVM's nodes, what modify() does with requests
// that name hosts (and passes on when they do not), and the built component's descriptor.
#include "mca/ras/hosts/ras_hosts_module.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include "component_files.h"
#include "temp_dir.h"
#include <hwloc.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "mca/base/component.h"
#include "mca/base/param.h"
#include "mca/ras/base/ras_base.h"

namespace {

using prte::Errc;
using prte::ras::AllocateContext;
using prte::ras::ModifyResult;
using prte::ras::RequestCompletion;
using prte::ras::hosts::HostsModule;
using prte::runtime::AllocDirective;
using prte::runtime::AllocationRequest;
using prte::runtime::Node;
using prte::runtime::NodePool;
using prte::runtime::NodeState;

using prte::test::TempDir;

std::vector<std::string> names_in(const NodePool& pool)
{
    std::vector<std::string> out;
    for (const Node* node : pool.nodes()) out.push_back(node->name);
    return out;
}

std::vector<std::string> names_of(const std::vector<Node>& nodes)
{
    std::vector<std::string> out;
    for (const auto& node : nodes) out.push_back(node.name);
    return out;
}

std::string this_hostname()
{
    char name[HOST_NAME_MAX + 1] = {};
    gethostname(name, sizeof name - 1);
    return name;
}

int hwloc_cores()
{
    hwloc_topology_t topology;
    hwloc_topology_init(&topology);
    hwloc_topology_load(topology);
    int cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
    if (cores <= 0) cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU);
    hwloc_topology_destroy(topology);
    return cores > 0 ? cores : 1;
}

// ---- allocate() ----------------------------------------------------------------------------

class HostsAllocate : public ::testing::Test {
  protected:
    TempDir dir;
    NodePool pool;
};

TEST_F(HostsAllocate, FromHostfile)
{
    HostsModule module;
    AllocateContext context;
    context.hostfile = dir.write("hosts", "node[1-2] slots=4\nlogin\n");
    ASSERT_TRUE(module.allocate(context, pool).ok());
    EXPECT_EQ(names_in(pool), (std::vector<std::string>{"node1", "node2", "login"}));
    for (const Node* node : pool.nodes()) {
        EXPECT_EQ(node->ras_component, "hosts");
        EXPECT_EQ(node->state, NodeState::unknown) << "up only once a daemon reports";
        EXPECT_TRUE(node->alloc_id.empty());
    }
    EXPECT_EQ(pool.find("node1")->slots, 4);
    EXPECT_TRUE(pool.find("node1")->slots_given);
    EXPECT_EQ(pool.find("login")->slots, 1);
    EXPECT_FALSE(pool.find("login")->slots_given);
}

TEST_F(HostsAllocate, FromHostList)
{
    HostsModule module;
    AllocateContext context;
    context.hosts = {"a:2,b", "c[1-2]:3"};
    ASSERT_TRUE(module.allocate(context, pool).ok());
    EXPECT_EQ(names_in(pool), (std::vector<std::string>{"a", "b", "c1", "c2"}));
    EXPECT_EQ(pool.find("a")->slots, 2);
    EXPECT_EQ(pool.find("c2")->slots, 3);
    EXPECT_FALSE(pool.find("b")->slots_given);
}

// "localhost" is the node prte runs on, under the name the master adopts (issue 14, item 8: it
// was a node of its own, reached over ssh).
TEST_F(HostsAllocate, LocalhostIsThisNode)
{
    HostsModule module;
    AllocateContext context;
    context.hosts = {"localhost:2,b"};
    ASSERT_TRUE(module.allocate(context, pool).ok());
    EXPECT_EQ(names_in(pool), (std::vector<std::string>{this_hostname(), "b"}));
    EXPECT_EQ(pool.find(this_hostname())->slots, 2);
    EXPECT_TRUE(pool.find(this_hostname())->slots_given);

    NodePool from_file;
    context = {};
    context.hostfile = dir.write("hosts", "localhost slots=3\n");
    ASSERT_TRUE(module.allocate(context, from_file).ok());
    ASSERT_EQ(from_file.size(), 1u);
    EXPECT_EQ(from_file.at(0).name, this_hostname());
    EXPECT_EQ(from_file.at(0).slots, 3);
}

TEST_F(HostsAllocate, HostfileThenHostListMerged)
{
    HostsModule module;
    AllocateContext context;
    context.hostfile = dir.write("hosts", "a slots=2\nb\n");
    context.hosts = {"b:6,c"};
    ASSERT_TRUE(module.allocate(context, pool).ok());
    EXPECT_EQ(names_in(pool), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(pool.find("b")->slots, 6) << "an explicit --host count refines a bare hostfile line";
    EXPECT_TRUE(pool.find("b")->slots_given);
}

TEST_F(HostsAllocate, DefaultHostfileWhenNothingGiven)
{
    HostsModule module(dir.write("default", "d1 slots=3\nd2\n"));
    ASSERT_TRUE(module.allocate({}, pool).ok());
    EXPECT_EQ(names_in(pool), (std::vector<std::string>{"d1", "d2"}));
    EXPECT_EQ(pool.find("d1")->slots, 3);
    EXPECT_EQ(pool.find("d1")->ras_component, "hosts");
}

TEST_F(HostsAllocate, DefaultHostfileIgnoredWhenHostsGiven)
{
    HostsModule module(dir.write("default", "d1\n"));
    AllocateContext with_hosts;
    with_hosts.hosts = {"x"};
    ASSERT_TRUE(module.allocate(with_hosts, pool).ok());
    EXPECT_EQ(names_in(pool), std::vector<std::string>{"x"});

    NodePool other;
    AllocateContext with_hostfile;
    with_hostfile.hostfile = dir.write("given", "y\n");
    ASSERT_TRUE(module.allocate(with_hostfile, other).ok());
    EXPECT_EQ(names_in(other), std::vector<std::string>{"y"});
}

TEST_F(HostsAllocate, LocalNodeWhenNothingAtAll)
{
    HostsModule module;
    ASSERT_TRUE(module.allocate({}, pool).ok());
    ASSERT_EQ(pool.size(), 1u);
    const Node& node = pool.at(0);
    EXPECT_EQ(node.name, this_hostname());
    EXPECT_GT(node.slots, 0);
    EXPECT_EQ(node.slots, hwloc_cores());
    EXPECT_FALSE(node.slots_given);
    EXPECT_EQ(node.ras_component, "hosts");
    EXPECT_EQ(node.state, NodeState::unknown);
}

TEST_F(HostsAllocate, LocalNodeHelper)
{
    Node node = prte::ras::hosts::local_node();
    EXPECT_EQ(node.name, this_hostname());
    EXPECT_GT(node.slots, 0);
    EXPECT_FALSE(node.slots_given);
}

TEST_F(HostsAllocate, BadHostfileStopsWithFileAndLine)
{
    HostsModule module;
    AllocateContext context;
    context.hostfile = dir.write("bad", "a\nb slots=abc\n");
    prte::Status st = module.allocate(context, pool);
    EXPECT_EQ(st.code(), Errc::bad_file);
    EXPECT_EQ(st.message(), context.hostfile + ":2: 'slots=abc': 'abc' is not a whole number");
    EXPECT_EQ(pool.size(), 0u) << "nothing is added from a hostfile with an error";
}

TEST_F(HostsAllocate, MissingHostfile)
{
    HostsModule module;
    AllocateContext context;
    context.hostfile = dir.path("absent");
    context.hosts = {"a"};
    prte::Status st = module.allocate(context, pool);
    EXPECT_EQ(st.code(), Errc::not_found);
    EXPECT_EQ(st.message(), "cannot read hostfile '" + context.hostfile + "': No such file or directory");
    EXPECT_EQ(pool.size(), 0u);
}

TEST_F(HostsAllocate, EmptyHostfileIsAnError)
{
    HostsModule module;
    AllocateContext context;
    context.hostfile = dir.write("empty", "# nobody here\n");
    prte::Status st = module.allocate(context, pool);
    EXPECT_EQ(st.code(), Errc::bad_file);
    EXPECT_EQ(st.message(), "hostfile '" + context.hostfile + "' lists no hosts");
}

TEST_F(HostsAllocate, BadHostList)
{
    HostsModule module;
    AllocateContext context;
    context.hostfile = dir.write("good", "a\n");
    context.hosts = {"b:0"};
    prte::Status st = module.allocate(context, pool);
    EXPECT_EQ(st.code(), Errc::bad_param);
    EXPECT_EQ(st.message(), "bad host entry 'b:0': the count must be at least 1");
    EXPECT_EQ(pool.size(), 0u);
}

TEST_F(HostsAllocate, BadDefaultHostfile)
{
    std::string file = dir.write("default", "n[2-1]\n");
    HostsModule module(file);
    prte::Status st = module.allocate({}, pool);
    EXPECT_EQ(st.code(), Errc::bad_file);
    EXPECT_EQ(st.message(), file + ":1: bad host name 'n[2-1]': range 2-1 runs backwards");
}

// ---- modify() ------------------------------------------------------------------------------

// A completion whose sink records what it was given.
struct RecordedCompletion {
    std::optional<ModifyResult> result;
    int calls = 0;

    RequestCompletion make()
    {
        return RequestCompletion("hosts", [this](ModifyResult r) {
            ++calls;
            result = std::move(r);
        });
    }
};

AllocationRequest request_for(AllocDirective directive, std::vector<std::string> node_list = {},
                              std::string hostfile = {}, std::string alloc_id = {})
{
    AllocationRequest request;
    request.directive = directive;
    request.node_list = std::move(node_list);
    request.hostfile = std::move(hostfile);
    request.alloc_id = std::move(alloc_id);
    return request;
}

TEST(HostsModify, ExtendWithLocalhostAddsThisNode)
{
    HostsModule module;
    RecordedCompletion recorded;
    ASSERT_TRUE(module.modify(request_for(AllocDirective::extend, {"localhost:4"}, {}, "alloc-1"), recorded.make()).ok());
    ASSERT_EQ(recorded.calls, 1);
    ASSERT_TRUE(recorded.result->status.ok()) << recorded.result->status.message();
    EXPECT_EQ(names_of(recorded.result->nodes_added), (std::vector<std::string>{this_hostname()}));
}

TEST(HostsModify, ExtendWithNodeList)
{
    HostsModule module;
    RecordedCompletion recorded;
    auto request = request_for(AllocDirective::extend, {"n[1-2]:2", "m"}, {}, "alloc-7");
    ASSERT_TRUE(module.modify(request, recorded.make()).ok());
    ASSERT_EQ(recorded.calls, 1);
    const ModifyResult& result = *recorded.result;
    ASSERT_TRUE(result.status.ok()) << result.status.message();
    EXPECT_EQ(result.alloc_id, "alloc-7");
    EXPECT_EQ(names_of(result.nodes_added), (std::vector<std::string>{"n1", "n2", "m"}));
    EXPECT_TRUE(result.nodes_to_release.empty());
    EXPECT_EQ(result.nodes_added[0].slots, 2);
    EXPECT_TRUE(result.nodes_added[0].slots_given);
    EXPECT_FALSE(result.nodes_added[2].slots_given);
    for (const auto& node : result.nodes_added) {
        EXPECT_EQ(node.ras_component, "hosts");
        EXPECT_EQ(node.alloc_id, "alloc-7");
        EXPECT_EQ(node.state, NodeState::unknown);
    }
}

TEST(HostsModify, ExtendWithHostfileAndNodeListMergesNames)
{
    TempDir dir;
    HostsModule module;
    RecordedCompletion recorded;
    auto request = request_for(AllocDirective::extend, {"b:5", "c"}, dir.write("add", "a\nb\n"));
    ASSERT_TRUE(module.modify(request, recorded.make()).ok());
    ASSERT_TRUE(recorded.result && recorded.result->status.ok());
    const auto& added = recorded.result->nodes_added;
    EXPECT_EQ(names_of(added), (std::vector<std::string>{"a", "b", "c"})) << "b is one node, not two";
    EXPECT_EQ(added[1].slots, 5);
}

TEST(HostsModify, NewAllocationGetsAnIdWhenItHasNone)
{
    HostsModule module;
    RecordedCompletion first, second, named;
    ASSERT_TRUE(module.modify(request_for(AllocDirective::new_allocation, {"a"}), first.make()).ok());
    ASSERT_TRUE(module.modify(request_for(AllocDirective::new_allocation, {"b"}), second.make()).ok());
    ASSERT_TRUE(module.modify(request_for(AllocDirective::new_allocation, {"c"}, {}, "mine"), named.make()).ok());
    EXPECT_EQ(first.result->alloc_id, "hosts-1");
    EXPECT_EQ(first.result->nodes_added.at(0).alloc_id, "hosts-1");
    EXPECT_EQ(second.result->alloc_id, "hosts-2");
    EXPECT_EQ(named.result->alloc_id, "mine");
}

TEST(HostsModify, ExtendWithoutIdKeepsItEmpty)
{
    HostsModule module;
    RecordedCompletion recorded;
    ASSERT_TRUE(module.modify(request_for(AllocDirective::extend, {"a"}), recorded.make()).ok());
    EXPECT_TRUE(recorded.result->alloc_id.empty()) << "an extension of the DVM's own allocation";
}

TEST(HostsModify, ParseErrorCompletesWithTheError)
{
    HostsModule module;
    RecordedCompletion recorded;
    prte::Status st = module.modify(request_for(AllocDirective::extend, {"ok", "n[3-1]"}), recorded.make());
    EXPECT_TRUE(st.ok()) << "the request was taken; its error travels through the completion";
    ASSERT_EQ(recorded.calls, 1);
    EXPECT_EQ(recorded.result->status.code(), Errc::bad_param);
    EXPECT_EQ(recorded.result->status.message(), "bad host name 'n[3-1]': range 3-1 runs backwards");
    EXPECT_TRUE(recorded.result->nodes_added.empty());
}

TEST(HostsModify, HostfileErrorCompletesWithFileAndLine)
{
    TempDir dir;
    HostsModule module;
    RecordedCompletion recorded;
    std::string file = dir.write("add", "a\nb max_slots=1 slots=2\n");
    ASSERT_TRUE(module.modify(request_for(AllocDirective::extend, {}, file), recorded.make()).ok());
    ASSERT_EQ(recorded.calls, 1);
    EXPECT_EQ(recorded.result->status.code(), Errc::bad_file);
    EXPECT_EQ(recorded.result->status.message(), file + ":2: max_slots=1 is less than slots=2");

    RecordedCompletion missing;
    std::string absent = dir.path("absent");
    ASSERT_TRUE(module.modify(request_for(AllocDirective::extend, {}, absent), missing.make()).ok());
    EXPECT_EQ(missing.result->status.code(), Errc::not_found);
    EXPECT_EQ(missing.result->status.message(), "cannot read hostfile '" + absent + "': No such file or directory");
}

TEST(HostsModify, ReleaseNamesExpandedHosts)
{
    HostsModule module;
    RecordedCompletion recorded;
    auto request = request_for(AllocDirective::release, {"n[1-3]", "n4,m"}, {}, "alloc-2");
    ASSERT_TRUE(module.modify(request, recorded.make()).ok());
    ASSERT_EQ(recorded.calls, 1);
    ASSERT_TRUE(recorded.result->status.ok());
    EXPECT_EQ(recorded.result->nodes_to_release, (std::vector<std::string>{"n1", "n2", "n3", "n4", "m"}));
    EXPECT_TRUE(recorded.result->nodes_added.empty());
    EXPECT_EQ(recorded.result->alloc_id, "alloc-2");
}

// A node named twice is refused whole (most likely a typo for another node), nothing released.
TEST(HostsModify, ReleaseRefusesANodeNamedTwice)
{
    HostsModule module;
    RecordedCompletion recorded;
    ASSERT_TRUE(module.modify(request_for(AllocDirective::release, {"n[1-3]", "n2,m"}), recorded.make()).ok());
    ASSERT_EQ(recorded.calls, 1);
    EXPECT_EQ(recorded.result->status.code(), Errc::bad_param);
    EXPECT_EQ(recorded.result->status.message(), "cannot release node n2: it is named twice in the node list");
    EXPECT_TRUE(recorded.result->nodes_to_release.empty());
}

TEST(HostsModify, ReleaseErrors)
{
    HostsModule module;
    RecordedCompletion counted, ranged;
    ASSERT_TRUE(module.modify(request_for(AllocDirective::release, {"a:2"}), counted.make()).ok());
    EXPECT_EQ(counted.result->status.code(), Errc::bad_param);
    EXPECT_EQ(counted.result->status.message(), "cannot release 'a:2': a release names hosts, without slot counts");
    ASSERT_TRUE(module.modify(request_for(AllocDirective::release, {"n[]"}), ranged.make()).ok());
    EXPECT_EQ(ranged.result->status.message(), "bad host name 'n[]': empty brackets '[]'");
}

// A request that names no hosts is a scheduler's: the module answers take_next_option and leaves
// the completion alone, so it is still the caller's to hand to the next module, and nothing answered.
void expect_passed_on(HostsModule& module, const AllocationRequest& request)
{
    RecordedCompletion recorded;
    RequestCompletion completion = recorded.make();
    prte::Status st = module.modify(request, std::move(completion));
    EXPECT_EQ(st.code(), Errc::take_next_option) << prte::runtime::to_string(request.directive);
    EXPECT_NE(st.message().find("names none"), std::string::npos) << st.message();
    EXPECT_TRUE(completion.pending()) << "a module that passes must not take the completion";
    EXPECT_FALSE(recorded.result.has_value());
}

TEST(HostsModify, RequestsWithoutHostsArePassedOn)
{
    HostsModule module;
    auto by_count = request_for(AllocDirective::extend);
    by_count.num_nodes = 4;
    expect_passed_on(module, by_count);
    expect_passed_on(module, request_for(AllocDirective::new_allocation));
    expect_passed_on(module, request_for(AllocDirective::release));
    expect_passed_on(module, request_for(AllocDirective::release, {}, "some-hostfile"));
    expect_passed_on(module, request_for(AllocDirective::reacquire, {"a"}));
    expect_passed_on(module, request_for(AllocDirective::cancel, {"a"}));
}

// ---- through ras::base::complete_request() -------------------------------------------------

class HostsCompleteRequest : public ::testing::Test {
  protected:
    void SetUp() override
    {
        prte::ras::base::set_completion_handler([this](prte::ras::base::CompletedRequest& done) {
            ++handled;
            status = done.result.status;
            added = done.added.size();
            releasing = done.releasing.size();
        });
    }
    void TearDown() override { prte::ras::base::set_completion_handler({}); }

    RequestCompletion completion_into_pool(const AllocationRequest& request)
    {
        return RequestCompletion("hosts", [this, request](ModifyResult result) {
            prte::ras::base::complete_request("hosts", request, std::move(result), pool);
        });
    }

    HostsModule module;
    NodePool pool;
    int handled = 0;
    prte::Status status;
    size_t added = 0;
    size_t releasing = 0;
};

TEST_F(HostsCompleteRequest, ExtendAddsTaggedNodesToThePool)
{
    Node existing;
    existing.name = "head";
    pool.add(existing);
    auto request = request_for(AllocDirective::extend, {"n[1-2]:3"}, {}, "alloc-9");
    ASSERT_TRUE(module.modify(request, completion_into_pool(request)).ok());
    ASSERT_EQ(handled, 1);
    EXPECT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(added, 2u);
    EXPECT_EQ(names_in(pool), (std::vector<std::string>{"head", "n1", "n2"}));
    for (const char* name : {"n1", "n2"}) {
        const Node* node = pool.find(name);
        ASSERT_NE(node, nullptr);
        EXPECT_EQ(node->ras_component, "hosts");
        EXPECT_EQ(node->alloc_id, "alloc-9");
        EXPECT_EQ(node->slots, 3);
        EXPECT_EQ(node->state, NodeState::unknown);
    }
}

TEST_F(HostsCompleteRequest, ReleaseFindsThePoolNodes)
{
    for (const char* name : {"n1", "n2", "n3"}) {
        Node node;
        node.name = name;
        pool.add(node);
    }
    auto request = request_for(AllocDirective::release, {"n[2-3]"});
    ASSERT_TRUE(module.modify(request, completion_into_pool(request)).ok());
    ASSERT_EQ(handled, 1);
    EXPECT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(releasing, 2u);
}

TEST_F(HostsCompleteRequest, ReleaseOfUnknownNodeFailsInTheBase)
{
    auto request = request_for(AllocDirective::release, {"ghost"});
    ASSERT_TRUE(module.modify(request, completion_into_pool(request)).ok());
    ASSERT_EQ(handled, 1);
    EXPECT_EQ(status.code(), Errc::not_found);
    EXPECT_EQ(status.message(), "cannot release ghost: not in the DVM");
}

TEST_F(HostsCompleteRequest, ErrorAddsNothing)
{
    auto request = request_for(AllocDirective::extend, {"a:x"});
    ASSERT_TRUE(module.modify(request, completion_into_pool(request)).ok());
    ASSERT_EQ(handled, 1);
    EXPECT_EQ(status.message(), "bad host entry 'a:x': 'x' is not a whole number");
    EXPECT_EQ(pool.size(), 0u);
}

// ---- the built component -------------------------------------------------------------------

// The component as the runtime loads it: mca_ras_hosts.so from the build tree, which CTest names
// in PRTE_MCA_mca_base_component_path (component_files.h).
class HostsComponent : public ::testing::Test {
  protected:
    void SetUp() override
    {
        PRTE_REQUIRE_COMPONENT_FILES("mca_ras_hosts.so");
        std::string path;
        for (const auto& dir : prte::test::component_dirs()) {
            if (path.empty() && std::filesystem::exists(dir + "/mca_ras_hosts.so")) path = dir + "/mca_ras_hosts.so";
        }
        handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        ASSERT_NE(handle, nullptr) << dlerror();
        auto fn = reinterpret_cast<prte_mca_component_descriptor_fn>(dlsym(handle, prte::mca::kDescriptorSymbol));
        ASSERT_NE(fn, nullptr) << dlerror();
        descriptor = fn();
        ASSERT_NE(descriptor, nullptr);
    }
    // Never dlclose: a module the component created may outlive the test's view of it.

    void* handle = nullptr;
    const prte::mca::ComponentDescriptor* descriptor = nullptr;
};

TEST_F(HostsComponent, Descriptor)
{
    EXPECT_EQ(descriptor->magic, prte::mca::kDescriptorMagic);
    EXPECT_EQ(descriptor->abi_version, prte::mca::kDescriptorAbiVersion);
    EXPECT_STREQ(descriptor->framework, "ras");
    EXPECT_STREQ(descriptor->name, "hosts");
    EXPECT_EQ(descriptor->interface_version, prte::ras::kInterfaceVersion);
    EXPECT_STREQ(descriptor->version, "1.0.0");
    EXPECT_NE(descriptor->query, nullptr);
    EXPECT_NE(descriptor->register_params, nullptr);
}

TEST_F(HostsComponent, AvailableInEveryRoleAtLowPriority)
{
    prte::mca::ParamRegistry registry;
    descriptor->register_params(registry);
    using prte::mca::ProcessRole;
    for (ProcessRole role : {ProcessRole::master, ProcessRole::daemon, ProcessRole::tool, ProcessRole::info}) {
        prte::mca::QueryResult result;
        descriptor->query({role}, result);
        EXPECT_EQ(result.priority, 10) << prte::mca::to_string(role);
        ASSERT_NE(result.module, nullptr);
        EXPECT_NE(dynamic_cast<prte::ras::Module*>(result.module.get()), nullptr);
    }
}

TEST_F(HostsComponent, DefaultHostfileParameter)
{
    prte::mca::ParamRegistry registry;
    descriptor->register_params(registry);
    const prte::mca::Param* param = registry.find("ras_hosts_default_hostfile");
    ASSERT_NE(param, nullptr);
    EXPECT_EQ(param->type(), prte::mca::ParamType::string);
    EXPECT_EQ(param->default_text(), "");
    EXPECT_FALSE(param->help().empty());

    // Set as from the command line, the module that query() creates reads it.
    TempDir dir;
    std::string file = dir.write("default", "from-default slots=2\n");
    registry.set("ras_hosts_default_hostfile", file, {prte::mca::ParamSource::command_line, "--prtemca"});
    prte::mca::QueryResult result;
    descriptor->query({prte::mca::ProcessRole::master}, result);
    auto* module = dynamic_cast<prte::ras::Module*>(result.module.get());
    ASSERT_NE(module, nullptr);
    NodePool pool;
    ASSERT_TRUE(module->allocate({}, pool).ok());
    EXPECT_EQ(names_in(pool), std::vector<std::string>{"from-default"});
    EXPECT_EQ(pool.at(0).slots, 2);
}

}  // namespace
