#!/bin/sh
# hostgate first-boot installer for Linux template images (docs/provisioning.md).
# Run it once at every boot (it exits 0 at once when the agent is installed).
# It waits for the provisioning payload in the machine's user data and
# installs the agent from it, with the agent the image carries.
#
# Environment (all optional):
#   HOSTGATE_AGENT        the agent executable (default $HOSTGATE_PREFIX/bin/hostgate-agent)
#   HOSTGATE_PREFIX       installation prefix (default /usr/local)
#   HOSTGATE_STATE_DIR    state directory (default /var/lib/hostgate-agent)
#   HOSTGATE_SOURCE       auto, file:PATH, aws, azure, gcp, aliyun or tencent (default auto)
#   HOSTGATE_DEFAULT_API  the hub address used when the payload has none
#   HOSTGATE_SERVICE      auto, systemd or detached (default auto)
#   HOSTGATE_TIMEOUT      how long to wait, e.g. 180s (default: 180s)
#
# Exit codes: 0 installed, or already installed; 2 no configuration
# appeared in time; 3 the configuration is not a valid payload (e.g. a
# required field is missing); 4 the agent executable is absent from the
# image; any other value is the installer's own exit code.
set -u
prefix=${HOSTGATE_PREFIX:-/usr/local}
agent=${HOSTGATE_AGENT:-$prefix/bin/hostgate-agent}
if [ ! -f "$agent" ] || [ ! -x "$agent" ]; then
	echo "hostgate first-boot: the agent executable $agent is absent from this image (or not executable)" >&2
	exit 4
fi
set -- first-boot --variant simple --source "${HOSTGATE_SOURCE:-auto}" --prefix "$prefix"
[ -n "${HOSTGATE_STATE_DIR:-}" ] && set -- "$@" --state-dir "$HOSTGATE_STATE_DIR"
[ -n "${HOSTGATE_DEFAULT_API:-}" ] && set -- "$@" --default-api-endpoint "$HOSTGATE_DEFAULT_API"
[ -n "${HOSTGATE_SERVICE:-}" ] && set -- "$@" --service "$HOSTGATE_SERVICE"
[ -n "${HOSTGATE_TIMEOUT:-}" ] && set -- "$@" --timeout "$HOSTGATE_TIMEOUT"
exec "$agent" "$@"
