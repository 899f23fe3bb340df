#!/usr/bin/env bash
# Runs every package's tests with pytest in an isolated ROS 2 environment: loopback-only
# discovery, a private ROS_DOMAIN_ID for this run, logs in a temporary directory.
set -eo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ ! -f install/setup.bash ]; then
  echo "install/setup.bash is missing: run 'make setup' first" >&2
  exit 1
fi
# shellcheck disable=SC1091
source install/setup.bash
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export ROS_DOMAIN_ID="${ROS_DOMAIN_ID:-$(( (RANDOM % 100) + 100 ))}"
ROS_LOG_DIR="$(mktemp -d /tmp/soccersim-test-logs.XXXXXX)"
export ROS_LOG_DIR
trap 'rm -rf "$ROS_LOG_DIR"' EXIT
echo "[test] ROS_DOMAIN_ID=$ROS_DOMAIN_ID ROS_LOG_DIR=$ROS_LOG_DIR"
exec python -m pytest "$@"
