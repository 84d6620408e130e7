// The words of --map-by, --rank-by and --bind-to (PRRTE's spellings), read in one place for the two
// that need them: prun, which refuses a bad one before submitting, and the DVM, which reads a spawn
// request's PMIX_MAPBY / PMIX_RANKBY / PMIX_BINDTO (pmix/spawn_translate.cc).
//
// Words are case-insensitive and, as in PRRTE, may be shortened to any unambiguous prefix
// ("L3" for l3cache, "pack" for package). A failed parse leaves the policy untouched and says, in
// one line without the option's name (the caller adds it), which word was wrong and what the valid
// ones are. Nothing is silently ignored.
#pragma once

#include <string>
#include <vector>

#include "runtime/job.h"
#include "util/status.h"

namespace prte::runtime {

// "core", "ppr:2:package:PE=2", "pe-list=0,2-3:ORDERED", ":OVERSUBSCRIBE" (qualifiers on the
// default policy). :DISPLAY and :DISPLAYDEVEL (PRRTE's) turn on `reports.map`, :DISPLAYTOPO
// `reports.topology`, :DISPLAYALLOC `reports.allocation`.
Status parse_map_by(const std::string& text, MappingPolicy& mapping, JobReports& reports);
// "slot", "node", "fill", "span", or an object ("package"), with :SPAN or :FILL.
Status parse_rank_by(const std::string& text, MappingPolicy& mapping);
// "core", "package:overload-allowed", "none"; :report turns on `reports.bindings`.
Status parse_bind_to(const std::string& text, MappingPolicy& mapping, JobReports& reports);
// The combinations PRRTE refuses (PE= with a binding wider than a CPU, SPAN with a policy that does
// not map by object, ...), with the reason; run after all three are read.
Status check_combination(const MappingPolicy& mapping);
// The policy one app of an MPMD job is placed by: the job's, or, when the app has its own
// --map-by words, those words in place of the job's mapping words, with the job's ranking and
// binding (--rank-by and --bind-to are job options in prun). Refuses the qualifiers that act on
// the whole job (INHERIT, NOINHERIT, DONOTLAUNCH, DISPLAY...).
Status app_mapping(const MappingPolicy& job, const std::string& app_map_by, MappingPolicy& out);

// For --help and messages.
inline constexpr const char kMapPolicies[] =
    "slot, hwthread, core, l1cache, l2cache, l3cache, numa, package, node, seq, ppr:N:<object>, rankfile, "
    "pe-list=<cpus>";
inline constexpr const char kMapQualifiers[] =
    "PE=n, SPAN, OVERSUBSCRIBE, NOOVERSUBSCRIBE, NOLOCAL, HWTCPUS, CORECPUS, INHERIT, NOINHERIT, FILE=<path>, "
    "DONOTLAUNCH, ORDERED, DISPLAY, DISPLAYTOPO, DISPLAYALLOC";
inline constexpr const char kRankPolicies[] = "slot, node, fill, span, hwthread, core, l1cache, l2cache, l3cache, "
                                              "numa, package (objects with :SPAN or :FILL)";
inline constexpr const char kBindLevels[] = "none, hwthread, core, l1cache, l2cache, l3cache, numa, package";
inline constexpr const char kBindQualifiers[] = "overload-allowed, if-supported, report";

}  // namespace prte::runtime
