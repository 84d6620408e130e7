// Hostfiles and --host lists, in PRRTE's syntax, parsed into nodes.
//
// A hostfile has one host per line, optionally followed by keywords:
//     # comment
//     node01 slots=4 max_slots=8     # trailing comment
//     user@node02                    # the user is dropped
//     rack[1-2]-n[01-04] slots=2     # ranges, see util/hostlist.h
// Keywords: slots=N (also count=N), max_slots=M (also max-slots=M); spaces around '=' are allowed.
// A --host list is "name[:slots]" entries separated by commas: "a:2,b,node[1-4]:4".
//
// Within one file or list, a name seen more than once is one node. Repeating a bare name counts
// up its slots ("a" on two lines is a with 2 slots, PRRTE's rule), and an explicit slot count
// overrides the count so far, a later one winning. A bare name alone gets slots=1 with
// slots_given false, so the slot count may later come from the node's topology.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/node.h"
#include "util/status.h"

namespace prte::runtime {

// Every function below can also give the names in the order they are written, one per mention
// with repeats kept and ranges expanded ("a", "b slots=2", "a", "n[1-2]" give a, b, a, n1, n2):
// the order `--map-by seq` places ranks in. Those overloads append to `mentions` as well; on error
// neither output changes.

// Parses hostfile text, appending its nodes to `out` in order of first appearance. `source`
// names the text in errors, which read "<source>:<line>: <reason>" (Errc::bad_file); on error
// `out` is unchanged.
Status parse_hostfile(std::string_view text, std::string_view source, std::vector<runtime::Node>& out);
Status parse_hostfile(std::string_view text, std::string_view source, std::vector<runtime::Node>& out,
                      std::vector<std::string>& mentions);

// Reads and parses the file at `path`. A file that cannot be read is an error naming it and the
// system's reason (Errc::not_found when it does not exist).
Status read_hostfile(const std::string& path, std::vector<runtime::Node>& out);
Status read_hostfile(const std::string& path, std::vector<runtime::Node>& out, std::vector<std::string>& mentions);

// Parses a --host list ("a:2,b,c[1-3]"); errors are Errc::bad_param and quote the entry.
Status parse_host_list(std::string_view list, std::vector<runtime::Node>& out);
// The same for several lists (--host given more than once), merged as one.
Status parse_host_list(const std::vector<std::string>& lists, std::vector<runtime::Node>& out);
Status parse_host_list(const std::vector<std::string>& lists, std::vector<runtime::Node>& out,
                       std::vector<std::string>& mentions);

// Whether a hostfile or --host name means the node prte runs on whatever its hostname
// ("localhost"), as PRRTE and mpirun treat it; the DVM uses its own node for it, never a launch.
bool names_local_node(std::string_view name);

}  // namespace prte::runtime
