#!/bin/sh
# More processes than slots need --map-by :OVERSUBSCRIBE, also when the slots came from the
# hardware (no hostfile count), as in PRRTE: `prun -n 100000 /bin/true` on a 2-core node used to
# start launching 100,000 processes (issue 14, item 4). A single-node DVM, whose node's slots are
# its cores.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dvm_lib.sh"

start_dvm

# hwloc's cores never outnumber the processing units nproc counts, so this is one too many.
over=$(($(nproc) + 1))
run over "$PRUN" -n "$over" /bin/true
if [ "$(status_of over)" != 0 ]; then
    pass "-n $over beyond the hardware slots is refused"
    expect_one_line_errors over
    expect_line over err "add --map-by :OVERSUBSCRIBE to oversubscribe"
    # Only once the small case is refused: before the fix this would fork 100,000 processes.
    run bomb "$PRUN" -n 100000 /bin/true
    expect_status bomb 1
    expect_line bomb err "100000 requested"
else
    fail "-n $over ran on $(nproc) processing unit(s) without --map-by :OVERSUBSCRIBE"
fi

run asked "$PRUN" -n "$over" --map-by :OVERSUBSCRIBE /bin/true
expect_status asked 0

stop_dvm
finish
