package version

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	vcs := func(rev, modified string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
		if rev != "" {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: "vcs.revision", Value: rev})
		}
		if modified != "" {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: "vcs.modified", Value: modified})
		}
		return info
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name string
		set  string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"ldflags win over build info", "v1.2.3", vcs(rev, "true"), true, "v1.2.3"},
		{"clean revision", "", vcs(rev, "false"), true, "0123456789ab"},
		{"modified revision", "", vcs(rev, "true"), true, "0123456789ab-dirty"},
		{"short revision kept whole", "", vcs("abc123", ""), true, "abc123"},
		{"module version of go install", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, true, "v0.4.0"},
		{"devel without vcs", "", vcs("", ""), true, "dev"},
		{"no build info", "", nil, false, "dev"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := resolve(tc.set, tc.info, tc.ok); got != tc.want {
				t.Errorf("resolve = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStringHonoursVersion(t *testing.T) {
	old := Version
	t.Cleanup(func() { Version = old })
	Version = "v9.8.7-test"
	if got := String(); got != "v9.8.7-test" {
		t.Errorf("String() = %q with Version set, want it", got)
	}
	Version = ""
	if got := String(); got == "" {
		t.Error("String() is empty without Version, want a fallback")
	}
}
