// The PMI "simple" wire protocols, framing and encoding only (no state): the commands a client
// sends and the answers it reads.
//
// v1 (PMI-1, and the first exchange of PMI-2): one command per line, "cmd=NAME k=v k=v\n"; a
// multi-line command starts with "mcmd=NAME" and ends with a line "endcmd" (spawn).
// v2 (PMI-2 after its init): a 6-character decimal length, then "cmd=NAME;k=v;k=v;" where a ';'
// inside a value is written ";;".
// References for the facts (not the code): the Flux RFC 13 ("Simple Process Manager Interface v1")
// and MPICH's src/pmi/maint/pmi-2.0.txt.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace prte::pmi::simple {

enum class Wire { v1, v2 };

using Attributes = std::vector<std::pair<std::string, std::string>>;

// One command as the client sent it: its name (the value of cmd= or mcmd=) and the attributes
// after it, in order.
struct Command {
    std::string name;
    Attributes attributes;
    bool multi_line = false;  // mcmd=

    // The first attribute of that name, or nullptr.
    const std::string* find(std::string_view key) const;
};

// Cuts a client's byte stream into commands. Bounded: a command longer than `max_command` bytes
// is malformed, never buffered without end.
class Decoder {
  public:
    explicit Decoder(size_t max_command) : max_command_(max_command) {}

    // From now on the stream is in this framing (PMI-2 switches after its init).
    void set_wire(Wire wire) { wire_ = wire; }
    Wire wire() const { return wire_; }
    void feed(const char* data, size_t size) { buffer_.append(data, size); }

    enum class Result { command, need_more, malformed };
    // The next whole command, if there is one; with `malformed`, `error` says what is wrong and
    // the stream cannot be trusted any further.
    Result next(Command& out, std::string& error);
    // Bytes received that are not yet a whole command.
    size_t pending() const { return buffer_.size(); }

  private:
    Result next_v1(Command& out, std::string& error);
    Result next_v2(Command& out, std::string& error);

    size_t max_command_;
    Wire wire_ = Wire::v1;
    std::string buffer_;
};

// Parses one v1 line (without its newline) or one v2 payload; false with `error` when it is not
// "cmd=NAME ..." of well-formed key=value attributes.
bool parse_v1_line(std::string_view line, Command& out, std::string& error);
bool parse_v2_payload(std::string_view payload, Command& out, std::string& error);

// An answer in the given framing: "cmd=NAME k=v ...\n" or the length-prefixed v2 form.
std::string encode(Wire wire, std::string_view name, const Attributes& attributes);

}  // namespace prte::pmi::simple
