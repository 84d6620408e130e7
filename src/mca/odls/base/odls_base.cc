#include "mca/odls/base/odls_base.h"

#include "mca/base/param.h"

namespace prte::odls {

Module::~Module() = default;

namespace base {
namespace {

constexpr const char* kSigkillTimeoutParam = "odls_base_sigkill_timeout";
constexpr int kDefaultSigkillTimeout = 1;  // PRRTE's default

class OdlsFramework final : public mca::TypedFramework<Module> {
  public:
    using TypedFramework::TypedFramework;

  protected:
    void register_base_params(mca::ParamRegistry& registry) override
    {
        registry.register_int({"odls", "base", "sigkill_timeout"}, kDefaultSigkillTimeout,
                              "Seconds to wait after SIGTERM before sending SIGKILL when local processes are "
                              "terminated (0: SIGKILL at once)",
                              {0, std::numeric_limits<int>::max()});  // read as an int of seconds
    }
};

}  // namespace

mca::Framework& framework()
{
    static OdlsFramework instance("odls", kInterfaceVersion, mca::SelectMode::single,
                                  "On-node launch: starts, watches and stops local processes");
    return instance;
}

Module* module()
{
    const auto& selected = framework().selected();
    return selected.empty() ? nullptr : static_cast<Module*>(selected.front().module.get());
}

int sigkill_timeout_seconds()
{
    const mca::Param* param = mca::ParamRegistry::instance().find(kSigkillTimeoutParam);
    if (!param) return kDefaultSigkillTimeout;
    return param->as_int() < 0 ? 0 : static_cast<int>(param->as_int());
}

}  // namespace base
}  // namespace prte::odls
