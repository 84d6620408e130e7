// ras/pushtest: a test-only RAS component that pushes nodes into a running DVM by itself, as a
// scheduler granting more nodes would, with no requester (spec: elastic-dvm-spec.txt, "No
// requester, no directed event"). It proves that such a push goes through the one
// complete_request() like any request, starts a grow campaign, and produces no event.
//
// It watches the FIFO named by ras_pushtest_fifo: each line written there is a node to push,
// "name[:slots]". It supplies no node at start-up and takes no request.
#include <event2/event.h>
#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "mca/base/component.h"
#include "mca/base/param.h"
#include "mca/ras/base/ras_base.h"
#include "mca/ras/ras.h"
#include "runtime/runtime.h"
#include "runtime/hostfile.h"
#include "util/output.h"

namespace {

const prte::mca::Param* fifo_param = nullptr;

class PushModule : public prte::ras::Module {
  public:
    PushModule()
    {
        std::string path = fifo_param ? fifo_param->as_string() : "";
        if (path.empty()) return;
        // Read-write, so the FIFO never reports end-of-file when a writer closes it.
        fd_ = ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
        if (fd_ < 0) {
            prte::output::warning("ras/pushtest: cannot open {}", path);
            return;
        }
        ev_ = event_new(prte::runtime::Runtime::instance().loop().base(), fd_, EV_READ | EV_PERSIST, on_readable, this);
        event_add(ev_, nullptr);
    }
    ~PushModule() override
    {
        if (ev_) event_free(ev_);
        if (fd_ >= 0) ::close(fd_);
    }

    prte::Status allocate(const prte::ras::AllocateContext&, prte::runtime::NodePool&) override
    {
        return {prte::Errc::take_next_option, "ras/pushtest supplies nodes only by pushing them later"};
    }

  private:
    static void on_readable(evutil_socket_t fd, short, void* arg)
    {
        auto* self = static_cast<PushModule*>(arg);
        char buf[512];
        ssize_t n = ::read(fd, buf, sizeof(buf));
        if (n <= 0) return;
        self->partial_.append(buf, static_cast<size_t>(n));
        size_t nl;
        while ((nl = self->partial_.find('\n')) != std::string::npos) {
            std::string line = self->partial_.substr(0, nl);
            self->partial_.erase(0, nl + 1);
            if (!line.empty()) self->push(line);
        }
    }

    void push(const std::string& line)
    {
        prte::ras::ModifyResult result;
        std::vector<prte::runtime::Node> nodes;
        if (prte::Status st = prte::runtime::parse_host_list(std::string_view(line), nodes); !st) {
            prte::output::warning("ras/pushtest: {}", st.message());
            return;
        }
        result.alloc_id = "pushed-" + std::to_string(++pushes_);
        for (auto& node : nodes) {
            node.ras_component = "pushtest";
            node.alloc_id = result.alloc_id;
            result.nodes_added.push_back(node);
        }
        prte::ras::base::push("pushtest", std::move(result), prte::runtime::Runtime::instance().pool());
    }

    int fd_ = -1;
    event* ev_ = nullptr;
    std::string partial_;
    int pushes_ = 0;
};

void register_params(prte::mca::ParamRegistry& registry) noexcept
{
    fifo_param = &registry.register_string({"ras", "pushtest", "fifo"}, "",
                                           "FIFO whose lines (name[:slots]) the test component pushes as new nodes");
}

void query(const prte::mca::QueryContext& context, prte::mca::QueryResult& result) noexcept
{
    if (context.role != prte::mca::ProcessRole::master) {
        result.reason = "master only";
        return;
    }
    result.priority = 30;
    result.module = std::make_unique<PushModule>();
}

}  // namespace

extern "C" const prte::mca::ComponentDescriptor* prte_mca_component_descriptor() noexcept
{
    static const prte::mca::ComponentDescriptor descriptor{
        .framework = "ras",
        .name = "pushtest",
        .interface_version = prte::ras::kInterfaceVersion,
        .version = "1.0.0",
        .description = "testing only: pushes the nodes written to a FIFO, with no requester",
        .register_params = register_params,
        .query = query,
        .runtime_types = prte::runtime::kTypesFingerprint,
    };
    return &descriptor;
}
