// rmaps/rank_file: --map-by rankfile:FILE=<path> (PRRTE's older --rankfile <path>). Each line of the
// file places one rank, PRRTE's format:
//
//     rank <N>=<host> slot=<cpus>
//
// <host> is a node of the DVM, or +n<X>: the app's X-th usable node (0-based). <cpus> are logical
// core ids (hwthread ids with :HWTCPUS) on that node: "1-2", "0,1,4", or "<P>:<ids>" for cores of
// package P counted within it ("1:0-2"). '#' starts a comment; blank lines are skipped.
//
// Ranks are the job's: app 0 takes ranks 0..n0-1, app 1 the next, ...; an app without -n takes
// what is left. Every rank used must appear exactly once. Errors name the file, the line and what
// is wrong: an unreadable file, a malformed line, a repeated or missing rank, a host the app may
// not use, an id the node does not have, a node without room (the slot rules of base::check_room).
#pragma once

#include "mca/rmaps/rmaps.h"

namespace prte::rmaps::rank_file {

class RankFileModule final : public Module {
  public:
    Status map(runtime::Job& job, const MapContext& context) override;
};

}  // namespace prte::rmaps::rank_file
