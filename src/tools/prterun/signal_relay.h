// Why this file: prterun is prun's parent, and a batch system (sbatch --signal=B:USR1) or a user
// with `kill -USR1 <pid>` signals prterun, not prun. So prterun catches the signals prun forwards
// (prun's --forward-signals, read by prun's rules) and relays each to prun, which forwards it to
// the job; prterun itself neither dies of USR1 nor stops on TSTP. A signal the terminal sent (^Z)
// reached prun already, in prterun's process group, and is not relayed a second time.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace prte::prterun {

// Catches the signals `prun_args` (prterun's arguments, all of which prun gets) make prun forward;
// until relay_to() they are dropped. Handlers revert to the default in the programs prterun starts.
void catch_forwarded_signals(const std::vector<std::string>& prun_args);
// From now on, relays them to `prun`.
void relay_to(pid_t prun);

}  // namespace prte::prterun
