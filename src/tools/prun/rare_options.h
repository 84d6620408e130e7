// Why this file: PRRTE's and mpirun's tables hold many options a user rarely types (older
// spellings, options of the DVM given to prun, Open MPI's own, debugger options). Each is handled
// here by one line of a table rather than a CLI11 option of its own: it becomes the option it
// stands for (an alias), is accepted with a one-line note saying why it changes nothing here, or
// is refused with a one-line error naming why and what to use. prun rewrites them before CLI11
// reads the command line; CLI11 knows them only for --help.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "util/status.h"

namespace prte::prun {

struct RareOption {
    enum Kind { alias, note, refuse };
    const char* names;   // CLI11's spelling: "--debug-devel,-d" (a single dash: one letter)
    int words;           // how many value words follow
    Kind kind;
    // alias: the words it becomes, "{}" standing for its value ("--output dir={}");
    // note / refuse: the reason, after "<option>: ".
    const char* action;
    bool older = false;  // alias: a note names the current spelling
};

std::span<const RareOption> rare_options();

// The entry one of whose names is `spelling` ("--x", "-d"), or nullptr.
const RareOption* find_rare_option(const std::string& spelling);

// `spelling` with its `values`: the words it becomes (`out`, nothing for a note), a note in
// `notes`, or the refusal as an error.
Status apply_rare_option(const RareOption& option, const std::string& spelling, const std::vector<std::string>& values,
                         std::vector<std::string>& out, std::vector<std::string>& notes);

// Its one-line description for --help.
std::string rare_option_help(const RareOption& option);

}  // namespace prte::prun
