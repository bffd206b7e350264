// Package chartcheck holds the tests of the Helm chart in deploy/helm/evidencefleet:
// helm lint and helm template over several value sets, every rendered object
// decoded strictly into its Kubernetes API type (or, for the KEDA and
// Prometheus Operator custom resources, into the fields their CRDs define);
// every queue served by some group; the API process's Deployment, Service,
// PodDisruptionBudget and optional Ingress, and NOTES.txt; the KEDA query
// run on a real database with River's schema (pgtest); the PrometheusRule's
// rules checked and unit tested with promtool (skipped without it unless
// EVF_REQUIRE_PROMETHEUS).
package chartcheck
