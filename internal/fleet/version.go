package fleet

import "runtime/debug"

// Version is the worker's version: set with -ldflags "-X
// github.com/evidencefleet/evidencefleet/internal/fleet.Version=v1.2.3", or
// else the VCS revision the binary was built from, or "dev".
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return s.Value[:12]
			}
		}
	}
	return "dev"
}
