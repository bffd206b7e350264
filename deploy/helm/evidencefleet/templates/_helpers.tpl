{{/* Name of the release's objects. */}}
{{- define "evf.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "evf.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | quote }}
{{- end -}}

{{/* Selector labels of one group: call with (dict "root" $ "group" $g). */}}
{{- define "evf.groupSelector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .group.name }}
{{- end -}}

{{/* Deployment name of one group. */}}
{{- define "evf.groupName" -}}
{{- printf "%s-%s" (include "evf.fullname" .root) .group.name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "evf.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* The database variables, from the existing Secret: with a
transaction-mode pooler, the pooled string, the direct one and the mode. */}}
{{- define "evf.databaseEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ required "database.existingSecret is required: a Secret holding the Postgres connection string" .Values.database.existingSecret }}
      key: {{ .Values.database.secretKey }}
{{- if eq (.Values.database.pooler | default "") "transaction" }}
- name: EVF_DB_POOLER
  value: transaction
- name: EVF_DATABASE_DIRECT_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.database.existingSecret }}
      key: {{ include "evf.directSecretKey" . }}
{{- end }}
{{- end -}}

{{/* The Secret key of a connection string straight to Postgres: the
pooled one without a pooler. */}}
{{- define "evf.directSecretKey" -}}
{{- if eq (.Values.database.pooler | default "") "transaction" -}}
{{- required "database.directSecretKey is required with database.pooler: transaction: the key of a connection string that reaches Postgres itself, for the liveness locks, migrations and KEDA" .Values.database.directSecretKey -}}
{{- else -}}
{{- .Values.database.secretKey -}}
{{- end -}}
{{- end -}}

{{/* Checks of one group that the schema cannot express. */}}
{{- define "evf.checkGroup" -}}
{{- if and .autoscaling.enabled .keda.enabled -}}
{{- fail (printf "group %s: autoscaling (HPA) and keda are both enabled; choose one" .name) -}}
{{- end -}}
{{- range $q, $n := .concurrency -}}
{{- if not (has $q $.queues) -}}
{{- fail (printf "group %s: concurrency for queue %s, which the group does not serve" $.name $q) -}}
{{- end -}}
{{- end -}}
{{- end -}}


{{/* Every queue of River the workers know (jobs.AllQueues). */}}
{{- define "evf.allQueues" -}}
{{- toYaml (list "target" "embed" "nli" "rerank" "citation" "maintenance") -}}
{{- end -}}

{{/* The enabled groups, each merged over groupDefaults, as YAML {groups: [...]};
     read with (include "evf.groups" . | fromYaml).groups. */}}
{{- define "evf.groups" -}}
{{- $out := list -}}
{{- range $ug := .Values.groups -}}
{{- $g := mergeOverwrite (deepCopy $.Values.groupDefaults) (deepCopy $ug) -}}
{{- if $g.enabled -}}
{{- $out = append $out $g -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "groups" $out) -}}
{{- end -}}

{{/* Whether a group runs pods at some point: fixed replicas above 0, an HPA,
     or KEDA (which scales from zero when the group has work). */}}
{{- define "evf.groupRuns" -}}
{{- if or .keda.enabled .autoscaling.enabled (gt (int .replicas) 0) }}true{{ end -}}
{{- end -}}

{{/* Whether a group always keeps a replica: fixed replicas above 0, an HPA,
     or KEDA with minReplicaCount 1 or more. */}}
{{- define "evf.groupKeepsReplica" -}}
{{- if .keda.enabled -}}
{{- if gt (int .keda.minReplicaCount) 0 }}true{{ end -}}
{{- else if or .autoscaling.enabled (gt (int .replicas) 0) }}true{{ end -}}
{{- end -}}

{{/* Fails, naming them, when queues are served by no enabled group that runs,
     unless allowUnservedQueues lists them. */}}
{{- define "evf.checkServed" -}}
{{- $served := dict -}}
{{- range $g := (include "evf.groups" . | fromYaml).groups -}}
{{- if include "evf.groupRuns" $g -}}
{{- range $q := $g.queues }}{{ $_ := set $served $q true }}{{ end -}}
{{- end -}}
{{- end -}}
{{- $missing := list -}}
{{- range $q := include "evf.allQueues" . | fromYamlArray -}}
{{- if not (or (hasKey $served $q) (has $q $.Values.allowUnservedQueues)) -}}
{{- $missing = append $missing $q -}}
{{- end -}}
{{- end -}}
{{- if $missing -}}
{{- fail (printf "unserved queues: %s. No enabled group with replicas, an HPA or KEDA serves them, so their jobs would wait for ever. Add them to a group's queues, or list them in allowUnservedQueues to leave them unserved on purpose" (join ", " $missing)) -}}
{{- end -}}
{{- end -}}

{{/* The KEDA query of a group: the jobs it must work in its queues —
     available, running, and scheduled or retryable (snoozed, waiting out a
     retry backoff) due by the next poll. Call with the merged group. */}}
{{- define "evf.kedaQuery" -}}
{{- printf "SELECT count(*) FROM river_job WHERE queue IN ('%s') AND (state IN ('available', 'running') OR (state IN ('scheduled', 'retryable') AND scheduled_at <= now() + interval '%d seconds'))" (join "', '" .queues) (int .keda.pollingInterval) -}}
{{- end -}}

{{/* GOMEMLIMIT of a group, in bytes: 7/8 of its container memory limit
     (Ki, Mi, Gi, K, M, G or plain bytes), so that the Go runtime collects
     harder before the kernel kills the pod; "" without a limit. A group's
     env may set GOMEMLIMIT itself. Call with the merged group, or a dict
     with resources and what (how an error names it). */}}
{{- define "evf.gomemlimit" -}}
{{- $lim := "" -}}
{{- with .resources }}{{ with .limits }}{{ with .memory }}{{ $lim = toString . }}{{ end }}{{ end }}{{ end -}}
{{- if $lim -}}
{{- $num := regexFind "^[0-9]+" $lim -}}
{{- $unit := trimPrefix $num $lim -}}
{{- $factors := dict "" 1 "K" 1000 "M" 1000000 "G" 1000000000 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 -}}
{{- if or (not $num) (not (hasKey $factors $unit)) -}}
{{- fail (printf "%s: memory limit %q: want an integer with an optional K, M, G, Ki, Mi or Gi suffix" (get . "what" | default (printf "group %s" (get . "name"))) $lim) -}}
{{- end -}}
{{- div (mul (int64 $num) (get $factors $unit) 7) 8 -}}
{{- end -}}
{{- end -}}

{{/* Name of the API process's Deployment, Service, Ingress and PDB. */}}
{{- define "evf.apiName" -}}
{{- printf "%s-api" (include "evf.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Selector labels of the API process's pods. */}}
{{- define "evf.apiSelector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: api
{{- end -}}
