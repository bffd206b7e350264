// Package chart holds the tests of the Helm chart in deploy/helm/evidencefleet:
// helm lint and helm template over several value sets, every rendered object
// decoded strictly into its Kubernetes API type (or, for the KEDA and
// Prometheus Operator custom resources, into the fields their CRDs define).
package chart
