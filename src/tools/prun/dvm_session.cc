#include "tools/prun/dvm_session.h"

#include <unistd.h>

#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "tools/prun/signals.h"

namespace prte::prun {

Status DvmSession::start_early()
{
    signals::Blocked blocked;  // PMIx's threads start here
    return connection_.start_unconnected(trace_.enabled(1));
}

Status DvmSession::connect(const runtime::dvm_registry::Entry& dvm)
{
    dvm_ = dvm;
    {
        signals::Blocked blocked;  // PMIx's threads start here
        if (Status st = connection_.connect(dvm_, trace_.enabled(1)); !st) return st;
    }
    pmix_status_t rc = events_.subscribe();
    if (rc < 0) {
        return {Errc::internal,
                fmt::format("cannot register for job events with {}: {}", text(), tools::status_text(rc))};
    }
    return {};
}

std::string DvmSession::text() const
{
    return dvm_.pid > 0 ? fmt::format("the DVM (pid {})", dvm_.pid) : std::string("the DVM");
}

void exit_soon_in_any_case(int status)
{
    std::thread([status] {
        std::this_thread::sleep_for(std::chrono::seconds(5));
        _exit(status);
    }).detach();
}

}  // namespace prte::prun
