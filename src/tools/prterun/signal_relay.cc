#include "tools/prterun/signal_relay.h"

#include <signal.h>

#include <atomic>

#include "tools/prun/prun_options.h"

namespace prte::prterun {

namespace {

std::atomic<pid_t> relay_target{0};
static_assert(std::atomic<pid_t>::is_always_lock_free);

void relay(int sig, siginfo_t* info, void*)
{
    if (info && info->si_code == SI_KERNEL) return;  // the terminal's: prun has it too
    pid_t prun = relay_target;
    if (prun > 0) kill(prun, sig);
}

}  // namespace

void catch_forwarded_signals(const std::vector<std::string>& prun_args)
{
    // prun reports a bad command line itself; meanwhile the default set is caught.
    prun::Request request;
    if (!prun::parse(prun_args, request)) request = prun::Request{};
    struct sigaction sa {};
    sa.sa_sigaction = relay;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (int sig : request.forward_signals) sigaction(sig, &sa, nullptr);
}

void relay_to(pid_t prun) { relay_target = prun; }

}  // namespace prte::prterun
