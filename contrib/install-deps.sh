#!/bin/sh
# Installs everything prte needs to build and test on Debian 12, with apt-get. Idempotent.
set -e
SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# openssh-server is there only for the test-bed's sshds, one per namespace node (test/testbed/netns-nodes);
# slurmctld, slurmd and munge only for the Slurm test-bed (test/testbed/slurm-nodes); a policy-rc.d for
# the install keeps these packages from starting system services (sshd on 0.0.0.0:22, munged, slurmd).
POLICY_RC_D=/usr/sbin/policy-rc.d
if [ ! -e "$POLICY_RC_D" ]; then
    printf '#!/bin/sh\n# written by contrib/install-deps.sh: start no services while it installs\nexit 101\n' |
        $SUDO tee "$POLICY_RC_D" >/dev/null
    $SUDO chmod 755 "$POLICY_RC_D"
    trap '$SUDO rm -f "$POLICY_RC_D"' EXIT
    trap 'exit 130' INT TERM
fi
# help2man writes the man pages from each program's --help at build time (configure skips them
# without it, and says so in its summary). hwloc-nox brings lstopo-no-graphics, which wrote the
# topologies of test/topologies/ (their README says how) and which users run to make their own.
# gdb is what the daemons run for prun --get-stack-traces (prte_stack_trace_debugger), and what the
# test job_timeout_reports needs.
$SUDO apt-get install -y -qq --no-install-recommends \
    g++ make autoconf automake libtool libltdl-dev pkg-config \
    libpmix-dev libpmix-bin libhwloc-dev libevent-dev libfmt-dev libcli11-dev \
    libgtest-dev cmake openmpi-bin libopenmpi-dev mpich libmpich-dev libpmi2-0-dev nettle-dev \
    openssh-server openssh-client iproute2 iputils-ping procps util-linux help2man \
    bash-completion hwloc-nox \
    slurmctld slurmd slurm-client libslurm-dev munge gdb >/dev/null
# OpenPMIx's own example programs, which the test pmix_examples runs against the DVM.
sh "$(dirname "$0")/fetch-pmix-examples.sh"
# MPICH's own spawn and name-publishing tests, which the test mpich_own_spawn_tests runs under prun.
sh "$(dirname "$0")/fetch-mpich-tests.sh"
echo "install-deps: build and test dependencies are installed"
