// The heartbeat over the routing tree (prte_daemon_heartbeat_timeout): a hung daemon - stopped
// with SIGSTOP, its host frozen - keeps its TCP connections up, so nothing else would notice it.
//
// Every tree link carries it, and only tree links: each daemon sends its parent an empty
// heartbeat frame every quarter of the timeout, and watches its own children (SilenceWatch: any
// bytes from a child count, so a child busy sending a long frame is heard). A child silent for the
// whole timeout is handed to the program's handler once: the master declares it lost, any other
// daemon reports it to the master. The master thus hears of O(its children) beats, not of every
// daemon's, and a hung inner daemon is found by its own parent, without its whole silent subtree
// being taken for hung too (its children beat to it, and are re-parented once it is declared lost).
// A beat goes out even when other traffic went up the link meanwhile: one frame header every
// quarter timeout (7.5 s by default) per link costs less than tracking what was sent, and the
// receiving side counts any bytes anyway.
//
// What "silent" means: silence_watch.h. How a daemon declared lost learns it when it wakes, and
// why it does not decide so by itself: prted/heartbeat.cc.
#pragma once

#include <chrono>
#include <functional>

#include "rml/silence_watch.h"
#include "runtime/loop_timer.h"

struct event_base;

namespace prte::rml {

class Messenger;

class Heartbeat {
  public:
    // A child of this daemon has been silent for `silent` (>= the timeout). Called once per child.
    using SilentHandler = std::function<void(runtime::Rank child, std::chrono::milliseconds silent)>;

    Heartbeat(event_base* base, Messenger& messenger, std::chrono::milliseconds timeout, SilentHandler on_silent);
    Heartbeat(const Heartbeat&) = delete;
    Heartbeat& operator=(const Heartbeat&) = delete;

    // Bytes arrived from an authenticated peer.
    void heard(runtime::Rank peer);

    // A beat every quarter of the timeout: three may be lost or late before a child is declared.
    static std::chrono::milliseconds interval_for(std::chrono::milliseconds timeout);

  private:
    void tick();
    void beat();

    Messenger& messenger_;
    std::chrono::milliseconds timeout_;
    std::chrono::milliseconds interval_;
    SilentHandler on_silent_;
    SilenceWatch watch_;
    runtime::LoopTimer timer_;  // periodic, every interval_
};

}  // namespace prte::rml
