#!/bin/sh
# openmpi_dynamic_placements.sh on the namespace test-bed: every node its own network namespace and
# hostname, so nothing passes only because the nodes share loopback or a hostname (root; skips
# otherwise, as the other namespace tests do).
ODP_TESTBED=netns
export ODP_TESTBED
exec sh "$PRTE_SRCDIR/test/integration/openmpi_dynamic_placements.sh"
