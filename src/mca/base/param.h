// The MCA parameter registry: typed parameters with defaults and help, set from five sources.
//
// Sources, lowest to highest precedence (DESIGN.md, "Parameters"): the default, the system param
// file, the user param file, the environment (PRTE_MCA_<name>), the command line (--prtemca).
// Settings may arrive before the parameter they name is registered (a component's parameters are
// registered only when its framework opens), so raw settings are kept by name and resolved when
// the parameter appears. Every value remembers where it came from, so prte_info can say why a
// parameter has the value it has.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/status.h"

namespace prte::mca {

enum class ParamType { integer, boolean, string, enumeration };

// Ordered by precedence: a higher value overrides a lower one.
enum class ParamSource { default_value = 0, system_file, user_file, environment, command_line, program };

const char* to_string(ParamType type);
const char* to_string(ParamSource source);

// Where a value came from: the source, and the detail a user needs to find it
// ("/etc/prte-mca-params.conf:12", "PRTE_MCA_ras_base_verbose").
struct ParamOrigin {
    ParamSource source = ParamSource::default_value;
    std::string where;

    std::string describe() const;
};

// The three parts of a parameter's name. The full name joins the non-empty parts with '_':
// {"ras", "hosts", "file"} is ras_hosts_file; {"prte", "", "elastic_mode"} is prte_elastic_mode.
struct ParamName {
    std::string framework;
    std::string component;
    std::string name;

    std::string full() const;
};

// The values an integer parameter accepts, both ends included. A value outside is refused like one
// that does not parse (ParamRegistry::errors), so `--prtemca rml_radix 0` stops a program at
// start-up instead of running with a value nobody meant.
struct IntRange {
    int64_t min = std::numeric_limits<int64_t>::min();
    int64_t max = std::numeric_limits<int64_t>::max();

    bool contains(int64_t value) const { return value >= min && value <= max; }
    bool bounded() const
    {
        return min != std::numeric_limits<int64_t>::min() || max != std::numeric_limits<int64_t>::max();
    }
    // "from 1 to 1024", "at least 0", "at most 9"; empty when unbounded.
    std::string describe() const;
};

// Returns an error text when a value is not acceptable, nullopt when it is.
using ParamValidator = std::function<std::optional<std::string>(const std::string& value)>;

class Param {
  public:
    const ParamName& name() const { return name_; }
    const std::string& full_name() const { return full_name_; }
    ParamType type() const { return type_; }
    const std::string& help() const { return help_; }
    const std::string& default_text() const { return default_text_; }
    const std::vector<std::string>& allowed_values() const { return allowed_; }
    const IntRange& range() const { return range_; }

    const std::string& value_text() const { return value_text_; }
    const ParamOrigin& origin() const { return origin_; }

    int64_t as_int() const { return int_value_; }
    bool as_bool() const { return int_value_ != 0; }
    const std::string& as_string() const { return value_text_; }

  private:
    friend class ParamRegistry;
    ParamName name_;
    std::string full_name_;
    ParamType type_ = ParamType::string;
    std::string help_;
    std::string default_text_;
    std::vector<std::string> allowed_;
    IntRange range_;
    ParamValidator validator_;
    std::string value_text_;
    int64_t int_value_ = 0;
    ParamOrigin origin_;
};

class ParamRegistry {
  public:
    // The process-wide registry. Set up on the main thread before other threads start; any later
    // change happens on the progress thread.
    static ParamRegistry& instance();

    ParamRegistry() = default;
    ParamRegistry(const ParamRegistry&) = delete;
    ParamRegistry& operator=(const ParamRegistry&) = delete;

    // Registering an existing name returns the existing parameter (frameworks may be re-opened).
    // Registering it again with another type is a bug in whoever registered it: it is reported in
    // errors() and the existing parameter is returned unchanged.
    // An integer's range bounds every value it may take, its default included.
    Param& register_int(const ParamName& name, int64_t default_value, std::string help, IntRange range = {});
    Param& register_bool(const ParamName& name, bool default_value, std::string help);
    Param& register_string(const ParamName& name, std::string default_value, std::string help,
                           ParamValidator validator = {});
    Param& register_enum(const ParamName& name, std::string default_value,
                         std::vector<std::string> allowed, std::string help);

    // Sources. A missing param file is not an error; a malformed line is, naming file and line.
    Status load_file(const std::string& path, ParamSource source);
    // Reads every PRTE_MCA_<name>=<value> from the given environment (nullptr-terminated).
    void load_environment(char** envp);
    void set(const std::string& full_name, const std::string& value, ParamOrigin origin);

    // The standard sources, in order: system file, user file, environment. The system file is
    // $PRTE_SYSCONFDIR/prte-mca-params.conf when that is set (relocated installs, tests),
    // else <sysconfdir>/prte-mca-params.conf; the user file is $HOME/.prte/mca-params.conf.
    Status load_standard_sources(char** envp);
    static std::string system_param_file();
    static std::string user_param_file();

    Param* find(const std::string& full_name);
    const Param* find(const std::string& full_name) const;
    std::vector<const Param*> all() const;  // sorted by full name

    // Problems found while resolving values (a value that does not parse, an unknown enum
    // value), each one line naming the parameter, the value and its source, and parameters
    // registered twice with different types. Programs report them and exit non-zero.
    const std::vector<std::string>& errors() const { return errors_; }
    void clear_errors() { errors_.clear(); }

    // Settings that name no registered parameter (a typo, or a component that is not loaded).
    std::vector<std::pair<std::string, ParamOrigin>> unmatched_settings() const;
    // One warning line for each of them, naming the setting and where it came from. Programs print
    // them once every parameter they use is registered (docs/parameters.md).
    std::vector<std::string> unmatched_warnings() const;

    // Every setting that did not come from a default, highest-precedence value per name, for
    // handing to launched daemons so they run with the DVM's settings.
    std::vector<std::pair<std::string, std::string>> explicit_settings() const;

  private:
    struct RawSetting {
        std::string value;
        ParamOrigin origin;
    };

    Param& add(const ParamName& name, ParamType type, std::string default_text, std::string help);
    void resolve(Param& param);
    std::optional<std::string> check_value(Param& param, const std::string& text, int64_t* int_out) const;

    std::map<std::string, std::unique_ptr<Param>> params_;
    std::map<std::string, std::vector<RawSetting>> raw_;
    std::vector<std::string> errors_;
};

}  // namespace prte::mca
