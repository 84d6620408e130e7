// Everything a process prints about itself goes through here: one-line errors and warnings for
// users, and the per-framework verbose streams (`<fw>_base_verbose N`) that make a live system
// explainable without a debugger.
#pragma once

#include <fmt/format.h>

#include <atomic>
#include <string>
#include <string_view>
#include <utility>

namespace prte::output {

// The name shown before errors ("prte_info: error: ..."); set once in main().
void set_program_name(std::string name);
const std::string& program_name();

// The identity shown in verbose lines ("[node01:1234] ras: ..."); defaults to the hostname.
void set_identity(std::string identity);

void write_error_line(std::string_view message);
void write_warning_line(std::string_view message);
// "prog: note: ...": an option accepted that changes nothing, or a word about what was done.
void write_note_line(std::string_view message);

template <typename... Args>
void error(fmt::format_string<Args...> format, Args&&... args)
{
    write_error_line(fmt::format(format, std::forward<Args>(args)...));
}

template <typename... Args>
void warning(fmt::format_string<Args...> format, Args&&... args)
{
    write_warning_line(fmt::format(format, std::forward<Args>(args)...));
}

template <typename... Args>
void note(fmt::format_string<Args...> format, Args&&... args)
{
    write_note_line(fmt::format(format, std::forward<Args>(args)...));
}

// A named stream with a level; a message is printed when its level is at or below the stream's.
// The level is atomic so another thread may read it while the progress thread changes it.
class VerboseStream {
  public:
    explicit VerboseStream(std::string name) : name_(std::move(name)) {}

    const std::string& name() const { return name_; }
    int level() const { return level_.load(std::memory_order_relaxed); }
    void set_level(int level) { level_.store(level, std::memory_order_relaxed); }
    bool enabled(int level) const { return this->level() >= level; }

    template <typename... Args>
    void operator()(int level, fmt::format_string<Args...> format, Args&&... args) const
    {
        if (!enabled(level)) return;
        emit(fmt::format(format, std::forward<Args>(args)...));
    }

  private:
    void emit(std::string_view message) const;

    std::string name_;
    std::atomic<int> level_{0};
};

}  // namespace prte::output
