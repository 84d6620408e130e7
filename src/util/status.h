// A small result type for operations that can fail with a message meant for a user.
// Exceptions are kept for the edges of a program; inside the runtime a Status travels back
// to whoever can tell the user what went wrong and where.
#pragma once

#include <string>
#include <utility>

namespace prte {

enum class Errc {
    ok = 0,
    bad_param,          // a parameter value that cannot be parsed or is not allowed
    not_found,          // a named thing (file, component, node) does not exist
    bad_file,           // a file exists but its contents are malformed
    refused,            // a component or peer was refused (version mismatch, failed check)
    out_of_resource,    // a request cannot be met with the resources available
    take_next_option,   // "not mine": let the next component of a multi-select framework try
    not_supported,
    unreachable,
    internal,
    cancelled,          // the user interrupted it (a signal) before it was done
    timed_out,          // not done within the time its caller allowed (e.g. PMIX_TIMEOUT)
    peer_ended,         // a participant ended before it took part (a collective's member died)
};

// [[nodiscard]]: a Status nobody looks at is an error nobody hears about. The build adds
// -Werror=unused-result (configure.ac), so dropping one fails to compile; where dropping is right,
// say so with ignore_status() below.
class [[nodiscard]] Status {
  public:
    Status() = default;
    Status(Errc code, std::string message) : code_(code), message_(std::move(message)) {}

    static Status success() { return {}; }

    bool ok() const { return code_ == Errc::ok; }
    explicit operator bool() const { return ok(); }
    Errc code() const { return code_; }
    const std::string& message() const { return message_; }

  private:
    Errc code_ = Errc::ok;
    std::string message_;
};

const char* to_string(Errc code);

// Drops a Status on purpose. `why` is for the reader (and grep): it says why nobody needs to hear
// about this failure, e.g. "best effort: the peer may already be gone".
inline void ignore_status(const Status& status, const char* why)
{
    (void)status;
    (void)why;
}

}  // namespace prte
