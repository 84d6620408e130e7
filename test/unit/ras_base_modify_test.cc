// ras::base::modify() and complete_request() through the real framework with the built ras/hosts
// loaded: a request reaches the completion handler exactly once when a module takes it, and never
// when every module passes it on.
#include <gtest/gtest.h>

#include "component_files.h"

#include "mca/base/param.h"
#include "mca/base/repository.h"
#include "mca/ras/base/ras_base.h"
#include "runtime/types_fingerprint.h"
#include "util/strings.h"

using prte::Errc;
using prte::runtime::AllocDirective;
using prte::runtime::AllocationRequest;

namespace {

class RasModifyTest : public ::testing::Test {
  protected:
    void SetUp() override
    {
        PRTE_REQUIRE_COMPONENT_FILES("mca_ras_hosts.so");
        prte::mca::ComponentRepository::instance().scan(prte::test::component_dirs(), prte::runtime::kTypesFingerprint);
        registry_.set("ras", "hosts", {prte::mca::ParamSource::program, "test"});
        auto& fw = prte::ras::base::framework();
        ASSERT_TRUE(fw.open(registry_, prte::mca::ComponentRepository::instance()).ok());
        prte::Status st = fw.select({prte::mca::ProcessRole::master});
        ASSERT_TRUE(st.ok()) << st.message();
        prte::ras::base::set_completion_handler([this](prte::ras::base::CompletedRequest& done) {
            completed_.push_back(done.result.status);
            added_ += done.added.size();
            releasing_ += done.releasing.size();
        });
    }

    void TearDown() override
    {
        prte::ras::base::set_completion_handler({});
        prte::ras::base::framework().close();
    }

    static AllocationRequest request(AllocDirective directive, std::vector<std::string> nodes)
    {
        AllocationRequest r;
        r.directive = directive;
        r.node_list = std::move(nodes);
        r.alloc_id = "alloc-7";
        return r;
    }

    prte::mca::ParamRegistry registry_;
    prte::runtime::NodePool pool_;
    std::vector<prte::Status> completed_;
    size_t added_ = 0, releasing_ = 0;
};

}  // namespace

TEST_F(RasModifyTest, TakenRequestCompletesOnceThroughCompleteRequest)
{
    ASSERT_TRUE(prte::ras::base::modify(request(AllocDirective::extend, {"n[1-3]:2"}), pool_).ok());
    ASSERT_EQ(completed_.size(), 1u);
    EXPECT_TRUE(completed_[0].ok()) << completed_[0].message();
    EXPECT_EQ(added_, 3u);
    ASSERT_NE(pool_.find("n2"), nullptr);
    EXPECT_EQ(pool_.find("n2")->slots, 2);
    EXPECT_EQ(pool_.find("n2")->ras_component, "hosts");
    EXPECT_EQ(pool_.find("n2")->alloc_id, "alloc-7");

    ASSERT_TRUE(prte::ras::base::modify(request(AllocDirective::release, {"n1,n3"}), pool_).ok());
    ASSERT_EQ(completed_.size(), 2u);
    EXPECT_TRUE(completed_[1].ok());
    EXPECT_EQ(releasing_, 2u);
}

TEST_F(RasModifyTest, PassedOnRequestNeverReachesTheHandler)
{
    // No hosts named: a scheduler's request, which ras/hosts passes on. Nobody else is selected.
    AllocationRequest r = request(AllocDirective::extend, {});
    r.num_nodes = 2;
    prte::Status st = prte::ras::base::modify(r, pool_);
    EXPECT_EQ(st.code(), Errc::not_supported);
    EXPECT_EQ(st.message(), "no resource allocation component can handle a 'extend' request");
    EXPECT_TRUE(completed_.empty()) << "a passed-on request must not be answered: " << completed_[0].message();
}

TEST_F(RasModifyTest, ReleaseOfUnknownNodeFailsInCompleteRequest)
{
    ASSERT_TRUE(prte::ras::base::modify(request(AllocDirective::release, {"ghost"}), pool_).ok());
    ASSERT_EQ(completed_.size(), 1u);
    EXPECT_EQ(completed_[0].code(), Errc::not_found);
    EXPECT_EQ(completed_[0].message(), "cannot release ghost: not in the DVM");
    EXPECT_EQ(releasing_, 0u);
}
