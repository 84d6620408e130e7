// Each rank's output written to files, as PRRTE's --output dir=/file= (and Open MPI's
// --output-filename) lay them out:
//   dir=DIR    DIR/<job>/rank.<N>/stdout and .../stderr (stderr into stdout with
//              merge-stderr-to-stdout); with nojobid, DIR/rank.<N>/...
//   file=PATH  PATH.<job>.<N>, stdout and stderr together
// <job> is the job's local id (the number after '@' in its namespace: a spawned job gets its own),
// <N> the rank, zero-padded to the width of the job's largest rank when prun knows the job's size.
// prun writes them, where prun runs (PRRTE's daemons write them on each node: the same on a shared
// file system). A file is created when its first byte arrives; one that cannot be written is
// reported once, and the rest of the output still goes where it can.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>

namespace prte::prun {

struct FileOutput {
    enum class Kind { none, dir, file };
    Kind kind = Kind::none;
    std::string path;
    bool copy = true;    // also to prun's stdout/stderr (nocopy: only to the files)
    bool jobid = true;   // dir=: a directory per job (nojobid: ranks directly under DIR)
    int rank_digits = 1;
};

class OutputFiles {
  public:
    explicit OutputFiles(FileOutput spec) : spec_(std::move(spec)) {}
    ~OutputFiles();
    OutputFiles(const OutputFiles&) = delete;
    OutputFiles& operator=(const OutputFiles&) = delete;

    bool active() const { return spec_.kind != FileOutput::Kind::none; }
    bool copy() const { return spec_.copy; }
    // `to_stdout`: the stream's bytes go to the rank's stdout file (stdout, or stderr merged into it).
    void write(const std::string& job, uint32_t rank, bool to_stdout, std::string_view data);
    // Where a stream of a rank goes (for tests and messages).
    std::string path_of(const std::string& job, uint32_t rank, bool to_stdout) const;

  private:
    int open_for(const std::string& path);

    FileOutput spec_;
    std::map<std::string, int> fds_;  // by path; -1: could not be opened (reported once)
};

}  // namespace prte::prun
