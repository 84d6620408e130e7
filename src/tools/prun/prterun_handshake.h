// Why this file: prterun starts prun alongside its DVM, so that prun's own start-up overlaps the
// DVM's. prun must then wait for prterun's word that the DVM is ready before it looks for it, and
// tell prterun once it has left the DVM, so that prterun stops the DVM while prun exits.
#pragma once

namespace prte::prun {

class PrterunHandshake {
  public:
    // The descriptors prterun set (PRTE_PRTERUN_READY_FD, PRTE_PRTERUN_DONE_FD), taken out of the
    // environment; none when prun was not started by prterun.
    static PrterunHandshake from_environment();

    // Whether prterun will say when its DVM is ready.
    bool must_wait_for_ready() const { return has_ready_fd_; }
    // Waits for that word (one byte); false on EOF: the DVM did not start, and prterun says so.
    bool wait_for_ready();
    // Says we have left the DVM (one byte, once PMIx is finalized), if prterun asked.
    void say_done();

  private:
    bool has_ready_fd_ = false;
    int ready_fd_ = -1;
    int done_fd_ = -1;
};

}  // namespace prte::prun
