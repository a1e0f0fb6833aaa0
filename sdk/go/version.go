package hostgate

// Version is the SDK's version: the hub's release line (internal/hub.Version
// without its pre-release suffix), the same in the Python and TypeScript
// SDKs. TestVersionsFollowHub fails when any of them drifts.
const Version = "0.1.0"
