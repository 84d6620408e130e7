// The GRPCOMM (group communication) framework: collectives among daemons.
//
// Single-select. xcast sends a message from the master to every daemon down the routing tree,
// reliably: acknowledgements flow back up, so the master knows when the whole DVM has it.
// Every tag is forwarded before it is processed except rml::tag::wireup and
// rml::tag::daemon_died, which are processed first (spec: collective-shrink-completion.txt,
// "Leaving mode rides in the shrink command" — the shrink order must stay forward-first).
// allgather collects a contribution from every daemon hosting participants and returns the
// combined data to all of them: PMIx fences and the direct modex across nodes.
#pragma once

#include <pmix_common.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mca/base/component.h"
#include "rml/types.h"
#include "util/status.h"

namespace prte::grpcomm {

inline constexpr uint32_t kInterfaceVersion = 1;

// Fired on the master only, once every daemon has received the op, or with an error when it
// cannot be delivered. Runs on the progress thread.
using XcastCompletion = std::function<void(const Status&)>;

// Identifies one allgather: the participating processes (a PMIx fence's proc list) and an id
// that tells apart concurrent collectives over the same procs (PMIx group construct).
struct Signature {
    std::vector<pmix_proc_t> procs;
    std::string id;
};

using AllgatherCallback = std::function<void(const Status&, const rml::Payload& combined)>;

class Module : public mca::Module {
  public:
    ~Module() override;

    virtual Status init() = 0;

    virtual Status xcast(rml::Tag tag, const rml::Payload& message, XcastCompletion on_complete = {}) = 0;

    virtual Status allgather(const Signature& signature, const rml::Payload& contribution,
                             AllgatherCallback on_complete) = 0;

    virtual void finalize() noexcept {}
};

}  // namespace prte::grpcomm
