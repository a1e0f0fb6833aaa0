package store

// modesApply is false on Windows: Go maps the permission bits onto the
// read-only attribute only, and access is decided by the ACL the data
// directory inherits from its parent (see docs/configuration.md).
const modesApply = false
