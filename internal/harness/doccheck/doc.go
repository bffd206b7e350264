// Package doccheck runs what the documentation tells a reader to run, as
// written, against a real worker and API: its tests fail when the docs and
// the fleet drift apart.
package doccheck
