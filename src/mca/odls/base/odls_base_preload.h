// Writes a job's preloaded files on this node (prun --preload-binary, --preload-files; the files
// travel in the launch message, runtime/preload.h) before its processes are forked, and removes
// what it wrote when the job is released:
//   the program   into the job's directory in this daemon's session directory ("<session>/<job>",
//                 the PMIX_NSDIR that pmix/register.cc makes when it registers the job here and
//                 removes with it), executable, and the processes are exec'd from that copy
//                 (program_of);
//   a file        into the app's working directory, under its relative name. When that name is
//                 already taken by the very file prun read (same machine, device and inode: a shared
//                 file system) or by a file of the same contents (another daemon on this file system
//                 wrote it), nothing is written; anything else there is not ours to overwrite, and
//                 the app's launch fails naming the node and the file (PRRTE's rule).
// Each app is placed once per job (a restarted process finds its files in place). Every write goes
// to a temporary name first and is renamed into place, so a process never reads half a file. Told
// on the odls verbose stream (5: what was written or left, and where). On the progress thread.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/job.h"
#include "util/status.h"

namespace prte::odls::base {

class PreloadPlacer {
  public:
    // `session_dir`: this daemon's session directory; `node_name` for messages.
    PreloadPlacer(std::string session_dir, std::string node_name);

    // Writes app `app`'s preloaded files for `job` unless done already. The error names the node
    // and the file.
    Status place(const runtime::Job& job, const runtime::AppContext& app);
    // The copy of the app's program to exec, or "" when the app's program was not preloaded here.
    std::string program_of(const std::string& nspace, int app_index) const;
    // Removes what was written for the job, and the job's directory.
    void release(const std::string& nspace);
    void release_all();

  private:
    struct Placed {
        std::set<int> apps;
        std::map<int, std::string> programs;
        std::vector<std::string> files;  // written into working directories, by us
        std::string job_dir;             // created by us, or empty
    };
    Status place_program(const runtime::Job& job, const runtime::PreloadFile& file, Placed& placed, std::string& path);
    Status place_file(const runtime::AppContext& app, const runtime::PreloadFile& file, Placed& placed);

    std::string session_dir_;
    std::string node_name_;
    std::map<std::string, Placed> jobs_;
};

}  // namespace prte::odls::base
