// The daemon's own transport for grpcomm/direct: the messenger (rml) and the progress loop.
#include "mca/grpcomm/direct/grpcomm_direct.h"
#include "runtime/runtime.h"

namespace prte::grpcomm::direct {
namespace {

class MessengerTransport final : public Transport {
  public:
    runtime::Rank self() const override { return messenger().self(); }
    const rml::RadixTree& tree() const override { return messenger().tree(); }
    Status send(runtime::Rank dest, rml::Tag tag, rml::Payload payload) override
    {
        return messenger().send(dest, tag, std::move(payload));
    }
    Status send_direct(runtime::Rank dest, rml::Tag tag, rml::Payload payload) override
    {
        return messenger().send_direct(dest, tag, std::move(payload));
    }
    void register_handler(rml::Tag tag, rml::Handler handler) override
    {
        messenger().register_handler(tag, std::move(handler));
    }
    void add_tree_listener(std::function<void()> listener) override
    {
        messenger().add_tree_listener(std::move(listener));
    }
    void dispatch(runtime::Rank origin, rml::Tag tag, rml::Payload&& payload) override
    {
        messenger().dispatch(origin, tag, std::move(payload));
    }
    event_base* timer_base() override { return runtime::Runtime::instance().loop().base(); }

  private:
    static rml::Messenger& messenger() { return rml::Messenger::instance(); }
};

}  // namespace

std::unique_ptr<Transport> messenger_transport() { return std::make_unique<MessengerTransport>(); }

}  // namespace prte::grpcomm::direct
