// One source, built several ways (see Makefile.inc), for the component loader's tests: a good
// component and the broken kinds a user may drop into a component directory by mistake.
//
//   TEST_COMPONENT_NAME        the name its descriptor gives (a mismatch with the file name is refused)
//   TEST_INTERFACE_VERSION     the ras interface version it claims to be built against
//   TEST_RUNTIME_TYPES         the runtime-types fingerprint it claims to be compiled against
//   TEST_NO_DESCRIPTOR         exports no descriptor function at all
//   TEST_WRONG_MODULE_TYPE     its query returns a module that is not a ras::Module
#include "mca/base/param.h"
#include "mca/ras/ras.h"

#ifndef TEST_INTERFACE_VERSION
#define TEST_INTERFACE_VERSION prte::ras::kInterfaceVersion
#endif
#ifndef TEST_RUNTIME_TYPES
#define TEST_RUNTIME_TYPES prte::runtime::kTypesFingerprint
#endif

namespace {

class FixedNodes : public prte::ras::Module {
  public:
    prte::Status allocate(const prte::ras::AllocateContext&, prte::runtime::NodePool& pool) override
    {
        prte::runtime::Node node;
        node.name = "testnode";
        node.slots = 3;
        node.slots_given = true;
        pool.add(node);
        return {};
    }
};

class NotARasModule : public prte::mca::Module {};

#ifndef TEST_NO_DESCRIPTOR
void register_params(prte::mca::ParamRegistry& registry) noexcept
{
    registry.register_int({"ras", TEST_COMPONENT_NAME, "priority"}, 30, "Selection priority of this test component");
}

void query(const prte::mca::QueryContext&, prte::mca::QueryResult& result) noexcept
{
    result.priority = static_cast<int>(prte::mca::ParamRegistry::instance()
                                           .find(std::string("ras_") + TEST_COMPONENT_NAME + "_priority")
                                           ->as_int());
#ifdef TEST_WRONG_MODULE_TYPE
    result.module = std::make_unique<NotARasModule>();
#else
    result.module = std::make_unique<FixedNodes>();
#endif
}
#endif

}  // namespace

#ifndef TEST_NO_DESCRIPTOR
extern "C" const prte::mca::ComponentDescriptor* prte_mca_component_descriptor() noexcept
{
    static const prte::mca::ComponentDescriptor descriptor{
        .framework = "ras",
        .name = TEST_COMPONENT_NAME,
        .interface_version = TEST_INTERFACE_VERSION,
        .version = "9.8.7",
        .description = "a test component",
        .register_params = register_params,
        .query = query,
        .runtime_types = TEST_RUNTIME_TYPES,
    };
    return &descriptor;
}
#else
extern "C" int prte_test_not_a_component() { return 42; }
#endif
