// Writes the job's forwarded output to prun's stdout/stderr, formatted as --output asks:
//   tag        "[<jobid>,<rank>]<stdout>: line" (PRRTE's format; <stderr> for the error stream)
//   tag-detailed  "[<jobid>,<rank>][<host>:<pid>]<stdout>: line", the host and pid the DVM names
//              on each chunk ("unknown" where it named none, as PMIx writes it)
//   timestamp  "[YYYY-MM-DD HH:MM:SS.uuuuuu] " before each line (before the tag too)
//   xml        each line an element, '<stdout rank="N">text&#010;</stdout>' (as Open MPI's and
//              PMIx's: &, <, > and control characters escaped, the newline too), the whole between
//              "<mpirun>" and "</mpirun>" lines (begin_document, end_document); a tag adds
//              jobid= (nspace= with tag-fullname), tag-detailed host= and pid=, timestamp timestamp=
//   merge-stderr-to-stdout  the processes' stderr goes to prun's stdout (still tagged <stderr>)
// Tagged or timestamped output is assembled into whole lines per rank and stream, so lines of
// different ranks never mix; otherwise chunks are written as they come (an unfinished prompt shows).
//
// Chunks arrive on PMIx's thread while the main thread may flush; all members are thread-safe.
// A reader that went away (EPIPE: "prun ... | head") is remembered, and nothing more is written
// to that stream.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "tools/prun/output_files.h"
#include "tools/prun/prun_options.h"
#include "util/xml.h"

namespace prte::prun {

enum class Stream { out, err };

// Where a process runs, as the DVM names it on the chunks it delivers (--output tag-detailed).
struct ProcPlace {
    std::string host;
    int64_t pid = 0;
};

class OutputWriter {
  public:
    // `job_label` is what tags show as the job: PRRTE's local job id (see job_label_of()).
    OutputWriter(OutputOptions options, int out_fd = 1, int err_fd = 2);

    void set_job_label(std::string label);
    // For tests: the text a timestamp shows.
    void set_clock(std::function<std::string()> clock);

    // `job` is the label of the job that wrote it when it is not prun's own job (a job its
    // processes spawned); empty for prun's own.
    // `place`, when the DVM named it, is remembered for the writer's later lines too.
    void deliver(uint32_t rank, Stream stream, std::string_view data, const std::string& job = {},
                 const ProcPlace* place = nullptr);
    // The DVM's own report (--display map, a failed spawn): written as it is, never tagged or stamped.
    void deliver_unformatted(std::string_view data, Stream stream = Stream::out);
    // Writes out what remains of unfinished lines (each ended with a newline): the job is over.
    void flush();
    // --output xml: the "<mpirun>" line before anything else on stdout, and "</mpirun>" after
    // everything (call flush() first). Nothing without xml.
    void begin_document();
    void end_document();

    bool stdout_broken() const { return out_broken_.load(); }

  private:
    std::string prefix(const std::string& job, uint32_t rank, Stream stream) const;
    // One line (or, raw, one chunk) as --output formats it: the prefix then the text, or an XML
    // element.
    std::string render(const std::string& job, uint32_t rank, Stream stream, std::string_view text) const;
    std::string xml_element(const std::string& job, uint32_t rank, Stream stream, std::string_view text) const;
    const ProcPlace* place_of(const std::string& job, uint32_t rank) const;
    // False when the reader is gone; the stream is then marked broken.
    bool write_to(Stream target, std::string_view data);

    OutputOptions options_;
    int out_fd_, err_fd_;
    std::string job_label_ = "0";
    std::function<std::string()> clock_;
    bool line_mode_;
    std::mutex mutex_;
    // Unfinished lines by writer: job label (empty: prun's job), rank, stream.
    std::map<std::tuple<std::string, uint32_t, int>, std::string> partial_;
    // The last place the DVM named for each writer (job label, empty for prun's job; rank).
    std::map<std::pair<std::string, uint32_t>, ProcPlace> places_;
    std::atomic<bool> out_broken_{false};
    std::atomic<bool> err_broken_{false};
    OutputFiles files_;  // --output dir=/file= (guarded by mutex_)
};

// The job id tags show: PRRTE's namespaces are "<dvm>@<n>" and tags show <n>; any other namespace
// is shown whole.
std::string job_label_of(const std::string& nspace);

// util/xml.h's, as prun's output formatting calls it.
using util::xml_escape;

// Writes all of `data` to fd, waiting if it is non-blocking; false on EPIPE or another error.
bool write_all(int fd, std::string_view data);

}  // namespace prte::prun
