// The DVM's log: where a prte that no longer has a terminal writes what it would print (its own
// errors and warnings, verbose streams, the daemons' lines relayed to it with their node, PMIx_Log
// lines). `prte --log-file PATH` (parameter prte_log_file) names it; a daemonized DVM without one
// logs to prte.log in its session directory. The DVM's registry file records the path, and
// `pterm --verbose` prints it. SIGHUP reopens it, so logrotate can move it away.
#pragma once

#include <string>

#include "util/status.h"

namespace prte::tools {

class DvmLog {
  public:
    // Opens (creating, appending) `path` and makes it this process's stdout and stderr; stdin
    // becomes /dev/null. On failure nothing changes and the status says why.
    Status start(const std::string& path);
    // Opens the path again (a new file if the old one was moved) and writes there from now on.
    Status reopen();
    const std::string& path() const { return path_; }
    bool active() const { return !path_.empty(); }

  private:
    Status redirect_to(const std::string& path);
    std::string path_;
};

}  // namespace prte::tools
