// odls/default: the stdin of one child, which a tool feeds through the DVM (prun pushes its own
// stdin chunk by chunk with PMIx_IOF_push).
//
// The daemon holds the write end of a pipe whose read end is the child's stdin; the end is
// non-blocking, and what the pipe does not take at once waits here, in order, until the module
// sees the pipe writable again. So the progress thread never blocks, and nothing a live reader
// would read is dropped. What nobody can read any more (the reader closed its stdin or exited:
// EPIPE) is dropped, as a terminal's input is when the program stops reading.
//
// Flow control: a chunk counts as accepted (the tool's push completes) at once while little is
// queued; above kHoldBackAbove the acceptance waits until the queue has drained below it, so a
// tool that waits for each push before reading more (prun does) goes at the pace of the reader.
// The queue is bounded by kQueueLimit against tools that do not wait: a chunk beyond it is refused.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace prte::odls::default_component {

class StdinPipe {
  public:
    using Done = std::function<void(const Status&)>;

    static constexpr size_t kHoldBackAbove = size_t{1} << 20;  // 1 MiB
    static constexpr size_t kQueueLimit = size_t{4} << 20;     // 4 MiB

    enum class Flush {
        drained,      // all written; the pipe is still open
        blocked,      // the pipe is full: write again when it is writable
        closed,       // the end of input was written and the pipe closed
        reader_gone,  // EPIPE: the pipe was closed and what was queued dropped
        failed,       // another write error (error() says which); closed likewise
    };

    StdinPipe() = default;
    ~StdinPipe() { close(); }
    StdinPipe(const StdinPipe&) = delete;
    StdinPipe& operator=(const StdinPipe&) = delete;

    // Takes the write end (non-blocking) of the child's stdin pipe.
    void adopt(int fd)
    {
        close();
        fd_ = fd;
    }

    bool open() const { return fd_ >= 0; }
    int fd() const { return fd_; }
    size_t queued() const { return queued_; }
    int error() const { return error_; }

    // Queues a copy of `data`, and with `eof` the close after it. Refused when the queue would
    // exceed kQueueLimit. Data after the end of input, or once closed, is ignored.
    Status push(std::string_view data, bool eof);

    // Writes what the pipe takes now without blocking, and closes it at the end of input.
    Flush flush();

    // Closes the pipe (the reader sees EOF) and drops what is queued.
    void close();

    // Runs `done` now if the queue is short or the pipe closed; otherwise holds it until it is.
    void when_accepted(Done done);
    // The held callbacks that may run now (all of them once the pipe is closed). The caller runs
    // them, after it is done with the pipe: a callback may lead to more writes.
    std::vector<Done> take_accepted();

  private:
    int fd_ = -1;
    std::deque<std::string> queue_;  // in order; the front may be partly written
    size_t front_written_ = 0;
    size_t queued_ = 0;  // bytes in queue_ not yet written
    bool eof_ = false;   // close once queue_ is empty
    int error_ = 0;
    std::vector<Done> held_;
};

}  // namespace prte::odls::default_component
