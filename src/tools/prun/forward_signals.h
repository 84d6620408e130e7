// Why this file: `--forward-signals LIST` names the signals prun passes on to every process of its
// job, as PRRTE's prun does (PRRTE's ess base, prte_ess_base_setup_signals): the list replaces the
// default set, `none` forwards nothing, and a signal prun must keep for itself is refused by name.
// Kept apart from the option table so that prterun, which relays the same set to prun, reads the
// list with the same rules.
#pragma once

#include <string>
#include <vector>

#include "util/status.h"

namespace prte::prun {

// PRRTE's default set: TSTP, USR1, USR2, ABRT, ALRM and CONT, in that order.
std::vector<int> default_forwarded_signals();

// Reads "USR1,SIGUSR2,14" (names with or without SIG, any case, or numbers) or "none" into `out`,
// duplicates dropped, in the order given. Refused, naming the word: an unknown name or number; INT,
// TERM and HUP (they end the job, always); KILL and STOP (prun cannot catch them); PIPE (prun's
// own: its reader went away); QUIT, and the faults SEGV, BUS, FPE and ILL (a fault of prun's own
// must end prun, not be passed on).
Status parse_forward_signals(const std::string& list, std::vector<int>& out);

// "SIGUSR1", or "signal 40" for one without a name.
std::string signal_name(int signal);

}  // namespace prte::prun
