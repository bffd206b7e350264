// Package version is the version of the evidencefleet binaries, as
// `worker --version` and `enqueue --version` print it and the worker's
// evidencefleet_worker_info metric labels it.
//
// It is set at build time with
//
//	go build -ldflags "-X github.com/evidencefleet/evidencefleet/internal/version.Version=v1.2.3"
//
// (`make build` passes `git describe`, the Dockerfile its VERSION build
// argument). Without it the binary reports the VCS revision it was built
// from, with "-dirty" when the work tree had changes, or its module version
// (`go install …@v1.2.3`), or else "dev".
package version

import "runtime/debug"

// Version is set with -ldflags "-X …/internal/version.Version=…"; empty
// means not set.
var Version = ""

// String returns the version: Version when set, else what the Go toolchain
// recorded in the binary, else "dev".
func String() string {
	info, ok := debug.ReadBuildInfo()
	return resolve(Version, info, ok)
}

func resolve(set string, info *debug.BuildInfo, ok bool) string {
	if set != "" {
		return set
	}
	if !ok || info == nil {
		return "dev"
	}
	var revision string
	var modified bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if revision != "" {
		if len(revision) > 12 {
			revision = revision[:12]
		}
		if modified {
			revision += "-dirty"
		}
		return revision
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	return "dev"
}
