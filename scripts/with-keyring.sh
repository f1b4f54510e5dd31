#!/usr/bin/env bash
# Runs a command with a private, unlocked Secret Service: gnome-keyring on the current D-Bus session
# (run this under `dbus-run-session`). The keyring lives in a temporary XDG data dir that is removed
# afterwards, so tests never touch a real user's keychain.
set -euo pipefail
tmp=$(mktemp -d -t fleet-keyring.XXXXXX)
export XDG_DATA_HOME="$tmp/data" XDG_RUNTIME_DIR="$tmp/runtime" XDG_CACHE_HOME="$tmp/cache"
mkdir -p "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
eval "$(printf %s 'fleet-desk-test' | gnome-keyring-daemon --unlock --components=secrets)"
export GNOME_KEYRING_CONTROL
export FLEET_DESK_TEST_KEYRING=1
status=0
"$@" || status=$?
rm -rf "$tmp"
exit "$status"
