package fleet

import buildversion "github.com/evidencefleet/evidencefleet/internal/version"

// version is the worker's version, the one `worker --version` prints: see
// package internal/version (set with -ldflags "-X
// github.com/evidencefleet/evidencefleet/internal/version.Version=v1.2.3").
func version() string { return buildversion.String() }
