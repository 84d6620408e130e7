// PMIx 4.2 talks to tools over loopback TCP without TCP_NODELAY. When the DVM sends two small
// messages back to back (a job's last output, then its end), the second waits for the tool's
// delayed ACK: 40 ms added to every prun. PMIx offers no option for it, so we set TCP_NODELAY on
// our process's TCP sockets ourselves: the DVM on PMIx's listening socket, once, as soon as its
// server has started (Linux gives every socket accepted from it the listener's TCP_NODELAY), and a
// tool after connecting.
#pragma once

namespace prte::util {

// Sets TCP_NODELAY on every connected TCP socket of this process. Harmless on sockets that have
// it already; returns how many sockets it set.
int set_tcp_nodelay_on_all_sockets();

// Sets TCP_NODELAY on one TCP socket (daemon-to-daemon connections); false if it cannot.
bool set_tcp_nodelay(int fd);

}  // namespace prte::util
