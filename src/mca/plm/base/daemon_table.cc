#include "mca/plm/base/daemon_table.h"

#include <fmt/format.h>

namespace prte::plm::base {

using runtime::Rank;

DaemonTable::DaemonTable() : daemons_(1) {}

void DaemonTable::set_master_node(runtime::Node* node) { daemons_[0].node = node; }

std::vector<Rank> DaemonTable::assign(const std::vector<runtime::Node*>& nodes)
{
    std::vector<Rank> ranks;
    for (runtime::Node* node : nodes) {
        Rank r = static_cast<Rank>(daemons_.size());
        daemons_.push_back(Daemon{node, false, false, false, {}});
        node->daemon = r;
        node->daemon_launched = true;
        ranks.push_back(r);
    }
    return ranks;
}

DaemonTable::Daemon* DaemonTable::entry(Rank rank) { return rank < daemons_.size() ? &daemons_[rank] : nullptr; }

const DaemonTable::Daemon* DaemonTable::find(Rank rank) const
{
    return rank < daemons_.size() ? &daemons_[rank] : nullptr;
}

runtime::Node* DaemonTable::node_of(Rank rank) const
{
    const Daemon* d = find(rank);
    return d ? d->node : nullptr;
}

bool DaemonTable::expects_report(Rank rank) const
{
    const Daemon* d = find(rank);
    return d && rank != 0 && !d->reported && !d->gone;
}

void DaemonTable::mark_reported(Rank rank)
{
    Daemon* d = entry(rank);
    if (!d || d->reported) return;
    d->reported = true;
    ++reports_;
    if (d->node && d->node->state != runtime::NodeState::not_included) d->node->state = runtime::NodeState::up;
}

size_t DaemonTable::live_remote() const { return live_remote_ranks().size(); }

std::vector<Rank> DaemonTable::live_remote_ranks() const
{
    std::vector<Rank> out;
    for (size_t r = 1; r < daemons_.size(); ++r) {
        if (daemons_[r].reported && !daemons_[r].gone) out.push_back(static_cast<Rank>(r));
    }
    return out;
}

bool DaemonTable::note_loss(Rank rank, std::string why)
{
    Daemon* d = entry(rank);
    if (!d || d->gone) return false;
    d->loss = std::move(why);
    return true;
}

bool DaemonTable::record_departure(Rank rank)
{
    Daemon* d = entry(rank);
    if (!d || rank == 0 || d->gone) return false;
    d->gone = true;
    d->held = false;
    if (d->node) d->node->state = runtime::NodeState::down;
    return true;
}

std::string DaemonTable::loss_reason(Rank rank) const
{
    const Daemon* d = find(rank);
    if (!d) return "is unknown";
    if (!d->loss.empty()) return d->loss;
    std::string node = d->node ? d->node->name : "?";
    return d->reported ? fmt::format("daemon {} on node {} was lost (its connection closed)", rank, node)
                       : fmt::format("daemon {} on node {} exited before calling home", rank, node);
}

void DaemonTable::hold(const std::vector<Rank>& ranks)
{
    for (Rank r : ranks) {
        if (Daemon* d = entry(r)) d->held = true;
    }
}

void DaemonTable::release(const std::vector<Rank>& ranks)
{
    for (Rank r : ranks) {
        if (Daemon* d = entry(r)) d->held = false;
    }
}

DaemonTable::WireupView DaemonTable::wireup_view() const
{
    WireupView view;
    for (size_t r = 0; r < daemons_.size(); ++r) {
        const Daemon& d = daemons_[r];
        Rank rank = static_cast<Rank>(r);
        if (d.gone) {
            view.departed.push_back(rank);
        } else if (!d.node || (r != 0 && (d.held || !d.reported))) {
            view.absent.insert(rank);
        } else {
            view.wired.push_back(rank);
        }
    }
    return view;
}

}  // namespace prte::plm::base
