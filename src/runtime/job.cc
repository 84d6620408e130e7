#include "runtime/job.h"

namespace prte::runtime {

const char* to_string(WaitReason reason)
{
    switch (reason) {
    case WaitReason::none: return "not waiting";
    case WaitReason::fence_at_map: return "parked at the map boundary while the DVM changes size";
    case WaitReason::fence_at_launch: return "parked at the launch boundary while the DVM shrinks";
    case WaitReason::autoscaler_turn: return "waiting its turn behind jobs waiting for nodes";
    case WaitReason::autoscaler_nodes: return "waiting for the nodes the DVM borrows for it";
    case WaitReason::test_hold: return "held at the launch boundary (prte_test_hold_launch)";
    case WaitReason::queue: return "waiting in the queue for slots other jobs hold";
    }
    return "?";
}

const char* to_string(MpiInterface mpi)
{
    switch (mpi) {
    case MpiInterface::automatic: return "auto";
    case MpiInterface::pmix: return "pmix";
    case MpiInterface::pmi1: return "pmi1";
    case MpiInterface::pmi2: return "pmi2";
    case MpiInterface::none: return "none";
    }
    return "?";
}

std::optional<MpiInterface> parse_mpi_interface(const std::string& text)
{
    for (MpiInterface m : {MpiInterface::automatic, MpiInterface::pmix, MpiInterface::pmi1, MpiInterface::pmi2,
                           MpiInterface::none}) {
        if (text == to_string(m)) return m;
    }
    return std::nullopt;
}

const char* to_string(MapBy policy)
{
    switch (policy) {
    case MapBy::unset: return "unset";
    case MapBy::slot: return "slot";
    case MapBy::node: return "node";
    case MapBy::core: return "core";
    case MapBy::package: return "package";
    case MapBy::numa: return "numa";
    case MapBy::hwthread: return "hwthread";
    case MapBy::ppr: return "ppr";
    case MapBy::seq: return "seq";
    case MapBy::l1cache: return "l1cache";
    case MapBy::l2cache: return "l2cache";
    case MapBy::l3cache: return "l3cache";
    case MapBy::rankfile: return "rankfile";
    case MapBy::pe_list: return "pe-list";
    }
    return "?";
}

const char* to_string(RankBy policy)
{
    switch (policy) {
    case RankBy::unset: return "unset";
    case RankBy::slot: return "slot";
    case RankBy::node: return "node";
    case RankBy::fill: return "fill";
    case RankBy::span: return "span";
    case RankBy::hwthread: return "hwthread";
    case RankBy::core: return "core";
    case RankBy::l1cache: return "l1cache";
    case RankBy::l2cache: return "l2cache";
    case RankBy::l3cache: return "l3cache";
    case RankBy::numa: return "numa";
    case RankBy::package: return "package";
    }
    return "?";
}

const char* to_string(BindTo policy)
{
    switch (policy) {
    case BindTo::unset: return "unset";
    case BindTo::none: return "none";
    case BindTo::hwthread: return "hwthread";
    case BindTo::core: return "core";
    case BindTo::numa: return "numa";
    case BindTo::package: return "package";
    case BindTo::l1cache: return "l1cache";
    case BindTo::l2cache: return "l2cache";
    case BindTo::l3cache: return "l3cache";
    }
    return "?";
}

}  // namespace prte::runtime
