#!/bin/sh
# Installs everything prte needs to build and test on Debian 12, with apt-get. Idempotent.
set -e
SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
    g++ make autoconf automake libtool libltdl-dev pkg-config \
    libpmix-dev libpmix-bin libhwloc-dev libevent-dev libfmt-dev libcli11-dev \
    libgtest-dev cmake openmpi-bin libopenmpi-dev >/dev/null
echo "install-deps: build and test dependencies are installed"
