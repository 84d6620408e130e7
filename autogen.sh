#!/bin/sh
# Generates configure and the Makefile.in files from a fresh checkout.
set -e
cd "$(dirname "$0")"
autoreconf --install --force --warnings=all,no-portability
