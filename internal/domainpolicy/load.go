package domainpolicy

import (
	"fmt"
	"os"
)

// Load reads an operator's policy file (EVF_DOMAIN_POLICY), or returns the
// built-in policy for "". It is the package's one read of a file; the
// worker and the enqueue CLI both load the policy through it.
func Load(path string) (*Policy, error) {
	if path == "" {
		return Default(), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("EVF_DOMAIN_POLICY: %w", err)
	}
	p, err := Parse(path, b)
	if err != nil {
		return nil, fmt.Errorf("EVF_DOMAIN_POLICY: %w", err)
	}
	return p, nil
}
