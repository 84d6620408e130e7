// The core parameters: those of the runtime (prte_node_name, prte_elastic_*,
// prte_daemon_exit_timeout, prte_daemon_heartbeat_timeout, hwloc_use_topo_file, the test-only
// prte_test_*) and of the messenger (rml_radix, oob_tcp_if_include, rml_base_verbose). They are
// registered here, in every program (prte_info lists them; launched daemons get the DVM's values),
// and turned into the plain values the runtime and rml take: neither of those floors sees the
// registry. Program wiring (the top floor), because it joins the component system's registry to
// the runtime's and rml's types: the component system (mca/base) rests on util alone and knows no
// DVM (docs/architecture.md, "Floors"). A framework's or component's own parameters are
// registered by its register_params hook instead.
#pragma once

#include <string>

#include "mca/base/param.h"
#include "rml/rml.h"
#include "runtime/settings.h"

namespace prte::program {

void register_core_params(mca::ParamRegistry& registry);

// The runtime's settings from the core parameters.
runtime::Settings runtime_settings(mca::ParamRegistry& registry);

// hwloc_use_topo_file: the XML file this process takes its topology from (empty: discover it).
std::string topology_file(mca::ParamRegistry& registry);

// The messenger's options for daemon `self` of the DVM whose secret is `secret`.
rml::Options messenger_options(mca::ParamRegistry& registry, runtime::Rank self, std::string secret);

}  // namespace prte::program
