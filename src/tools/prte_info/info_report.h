// The reports prte_info prints: components, parameters, selection. Each has a human form and a
// --parsable form of colon-separated lines that scripts (and our tests) read.
#pragma once

#include <string>
#include <vector>

#include "mca/base/framework.h"

namespace prte::info {

struct Options {
    bool parsable = false;
    std::string type;  // -t/--types: only parameters of this type (int, bool, string, enum); empty: all
};

void print_version(const Options& options);
void print_components(const Options& options);
// `framework` may be a framework name, "mca", "prte" or "all"; `component` a name, "base" or "all".
void print_params(const Options& options, const std::string& framework, const std::string& component);
// Returns false when a framework's selection failed; its error has been printed.
bool print_selection(const Options& options, const mca::QueryContext& context);

// --show-failed: the component files that could not be loaded, and why, on stdout ("none" when
// every one loaded).
void print_failures(const Options& options);
// Prints the refused component files as errors; returns how many there were.
size_t report_load_failures();
void warn_unmatched_settings();

}  // namespace prte::info
