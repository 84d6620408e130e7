// Output flow control between a daemon and the master (the third limit of output_flow.cc).
//
// A daemon forwards its processes' output to the master, which hands it to the tool. Without a
// limit, a job writing faster than the tool reads would pile up in the master's memory. So the
// master acknowledges what it received from each daemon, per job, but only while that job's
// output is not backlogged on the master (output_backlogged); once it is, the acknowledgement
// waits until the backlog drains. A daemon stops reading a job's pipes while more than kWindow
// bytes it forwarded are unacknowledged. The backpressure thus reaches from the tool to the
// process on any node: the tool acknowledges the master, the master the daemon.
#include <map>
#include <utility>
#include <vector>

#include "pmix/ack_window.h"
#include "pmix/host_state.h"
#include "pmix/internal.h"
#include "pmix/server.h"
#include "pmix/wire_messages.h"
#include "rml/buffer.h"
#include "rml/rml.h"
#include "runtime/runtime.h"

namespace prte::pmix {

namespace wire {

rml::Payload encode(const OutputAck& a)
{
    rml::Writer w;
    w.str(a.nspace).u64(a.total);
    return w.take();
}

Status decode(const rml::Payload& in, OutputAck& a)
{
    rml::Reader r(in, "output acknowledgement");
    a.nspace = r.str();
    a.total = r.u64();
    return r.ok() ? Status{} : Status(Errc::bad_param, r.error());
}

}  // namespace wire

namespace detail {
namespace {

using runtime::Rank;

constexpr uint64_t kWindow = 4u << 20;      // a daemon pauses beyond this many unacknowledged bytes
constexpr uint64_t kAckEvery = 1u << 20;    // the master acknowledges in steps of this much
constexpr uint64_t kResumeAt = 2u << 20;     // a paused daemon goes on at this much or less

rml::Messenger& messenger() { return rml::Messenger::instance(); }

// Daemon side, per job. Progress thread.
std::map<std::string, AckWindow>& forwarded() { return host().relay.forwarded; }

// Master side, per job and daemon. Progress thread.
using Received = HostState::Received;
std::map<std::pair<std::string, Rank>, Received>& received() { return host().relay.received; }

void send_ack(const std::string& nspace, Rank daemon)
{
    auto it = received().find({nspace, daemon});
    if (it == received().end()) return;
    Received& r = it->second;
    r.ack_waiting = false;
    if (r.received == r.acked) return;
    if (Status st = messenger().send(daemon, rml::tag::iof_ack, wire::encode(wire::OutputAck{nspace, r.received})); !st) {
        return;  // the daemon left
    }
    r.acked = r.received;
}

// Daemon: the master has taken `total` bytes of this job's output so far.
void on_ack(Rank, rml::Payload&& payload)
{
    wire::OutputAck ack;
    if (Status st = wire::decode(payload, ack); !st) {
        output::warning("dropped an output acknowledgement from the master: {}", st.message());
        return;
    }
    const std::string& nspace = ack.nspace;
    const uint64_t total = ack.total;
    auto it = forwarded().find(nspace);
    if (it == forwarded().end()) return;
    if (it->second.acknowledge(total)) {
        verbose()(5, "output of job {}: the master took {} byte(s), resuming", nspace, it->second.acked());
    }
}

}  // namespace

void count_forwarded(const std::string& nspace, size_t bytes)
{
    forwarded().try_emplace(nspace, kWindow, kResumeAt).first->second.sent(bytes);
}

bool relay_backlogged(const std::string& nspace)
{
    auto it = forwarded().find(nspace);
    return it != forwarded().end() && it->second.backlogged();
}

bool wait_for_relay(const std::string& nspace, std::function<void()>& resume)
{
    if (!relay_backlogged(nspace)) return false;
    verbose()(5, "output of job {}: more than {} byte(s) not yet taken by the master, pausing", nspace, kWindow);
    forwarded().find(nspace)->second.wait(std::move(resume));
    return true;
}

void received_from_daemon(const runtime::Job& job, Rank daemon, size_t bytes)
{
    Received& r = received()[{job.nspace, daemon}];
    r.received += bytes;
    if (r.ack_waiting || r.received - r.acked < kAckEvery) return;
    if (!output_backlogged(job)) {
        send_ack(job.nspace, daemon);
        return;
    }
    r.ack_waiting = true;
    when_output_drains(job, [nspace = job.nspace, daemon] { send_ack(nspace, daemon); });
}

void forget_relay(const std::string& nspace)
{
    auto it = forwarded().find(nspace);
    if (it != forwarded().end()) {
        AckWindow window = std::move(it->second);
        forwarded().erase(it);
        window.release();
    }
    std::erase_if(received(), [&](const auto& entry) { return entry.first.first == nspace; });
}

void enable_output_relay()
{
    if (runtime::Runtime::instance().identity().role != mca::ProcessRole::master) {
        messenger().register_handler(rml::tag::iof_ack, on_ack);
    }
}

}  // namespace detail
}  // namespace prte::pmix
