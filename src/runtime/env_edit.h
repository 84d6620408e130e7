// Why this file: prun's --unset-env, --prepend-env and --append-env (PMIx's PMIX_UNSET_ENVAR,
// PMIX_PREPEND_ENVAR, PMIX_APPEND_ENVAR) edit the environment a process gets on its node, which
// only that node's daemon knows. They travel among the app's environment entries (AppContext::env,
// whose order is the command line's), each in a form no "NAME=value" entry can take: it begins
// with '\x1f', which no variable's name contains. This is the one place that knows that form.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace prte::runtime {

struct EnvEdit {
    enum Kind { unset, prepend, append } kind = unset;
    std::string name;  // unset: a trailing '*' means every variable whose name starts with the rest
    char separator = ':';
    std::string value;
};

// The AppContext::env entry that carries `edit`.
std::string encode_env_edit(const EnvEdit& edit);
// The edit an entry carries, or nothing for a plain "NAME=value" entry (or a malformed edit).
std::optional<EnvEdit> decode_env_edit(std::string_view entry);

// The value of a variable after a prepend or append: the old value (absent: just `edit.value`)
// with the edit's value on its side of the separator.
std::string edited_value(const EnvEdit& edit, const std::optional<std::string>& old_value);

}  // namespace prte::runtime
