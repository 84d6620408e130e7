// Why this file: the command line says what to run in prun's terms, and the DVM takes it only as
// PMIx_Spawn's apps and job attributes, spelled as PRRTE's prun spells them (so that a PRRTE DVM
// understands it too). This is that translation, and nothing else: it talks to no one.
#pragma once

#include <pmix_tool.h>

#include <string>
#include <vector>

#include "tools/prun/output_relay.h"
#include "tools/prun/prun_options.h"
#include "tools/prun/tool_connection.h"
#include "util/status.h"

namespace prte::prun {

// Owns the pmix_app_t array handed to PMIx_Spawn.
class Apps {
  public:
    explicit Apps(size_t n) : n_(n) { PMIX_APP_CREATE(apps_, n_); }
    ~Apps() { PMIX_APP_FREE(apps_, n_); }
    Apps(const Apps&) = delete;
    Apps& operator=(const Apps&) = delete;
    pmix_app_t* data() { return apps_; }
    size_t size() const { return n_; }
    pmix_app_t& operator[](size_t i) { return apps_[i]; }

  private:
    pmix_app_t* apps_ = nullptr;
    size_t n_;
};

// A NULL-terminated copy of `words` that PMIx frees (malloc'd, as PMIx_Argv_free expects).
char** make_argv(const std::vector<std::string>& words);

// prun's working directory ("/" when it cannot be read).
std::string current_directory();

// One pmix_app_t per app context: program, arguments, environment (--prtemca, --pmixmca ...; -x,
// --set-env ... as PMIX_*_ENVAR directives), working directory, process count, hosts. Fails on a
// -x NAME that is not set here; `notes` gets a line for a -x PREFIX* that matched nothing.
Status fill_apps(const Request& request, Apps& apps, std::vector<std::string>& notes);

// The job's attributes: mapping, binding, --timeout, reports, where its stdin and output go, and
// who spawned it. `forwarding_stdin`: whether prun will feed the stdin target.
void fill_job_info(const Request& request, OutputPath path, bool forwarding_stdin, tools::InfoList& job);

}  // namespace prte::prun
