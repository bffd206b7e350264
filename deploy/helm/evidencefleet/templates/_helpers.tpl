{{/* The chart's name in labels (app.kubernetes.io/name): nameOverride, else
     the chart's. */}}
{{- define "evf.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Name of the release's objects (and prefix of the groups' and the API's):
     fullnameOverride, else <release>-<name>. */}}
{{- define "evf.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "evf.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "evf.labels" -}}
app.kubernetes.io/name: {{ include "evf.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | quote }}
{{- end -}}

{{/* Selector labels of one group: call with (dict "root" $ "group" $g). */}}
{{- define "evf.groupSelector" -}}
app.kubernetes.io/name: {{ include "evf.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .group.name }}
{{- end -}}

{{/* Deployment name of one group. */}}
{{- define "evf.groupName" -}}
{{- printf "%s-%s" (include "evf.fullname" .root) .group.name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The image: repository@digest when image.digest is set (the tag is then
     ignored), else repository:tag (the chart's appVersion by default). */}}
{{- define "evf.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
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
     read with (include "evf.groups" . | fromYaml).groups. A group's own
     fields (queues, concurrency, replicas, env, autoscaling, keda, pdb) are
     merged over groupDefaults' key by key; its pod settings (resources,
     scheduling, pod metadata, security contexts, extra variables and
     volumes) are resolved over the group, groupDefaults and the top level
     by evf.podSettings. */}}
{{- define "evf.groups" -}}
{{- $out := list -}}
{{- range $ug := .Values.groups -}}
{{- $g := mergeOverwrite (deepCopy $.Values.groupDefaults) (deepCopy $ug) -}}
{{- if $g.enabled -}}
{{- $sel := include "evf.groupSelector" (dict "root" $ "group" $g) | fromYaml -}}
{{- $ps := include "evf.podSettings" (dict "levels" (list $ug $.Values.groupDefaults $.Values) "selector" $sel "what" (printf "group %s" $g.name)) | fromYaml -}}
{{- range $k, $v := $ps }}{{ $_ := set $g $k $v }}{{ end -}}
{{- $out = append $out $g -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "groups" $out) -}}
{{- end -}}

{{/* The pod settings of one workload, resolved over its levels, most
     specific first: a group, groupDefaults, the top level (a worker group);
     api, the top level (the API); groupDefaults, the top level (the
     migration Job). An empty value ({}, [] or "") is unset: the next level
     applies.
     - podAnnotations, podLabels and nodeSelector: merged key by key, the more
       specific level's value winning;
     - podSecurityContext and securityContext: merged key by key (nested
       fields too), the more specific level's value winning;
     - resources, affinity, priorityClassName, tolerations,
       topologySpreadConstraints, extraEnv, extraVolumes and
       extraVolumeMounts: taken whole from the most specific level that sets
       them; resources without any fall back to defaultResources, most
       specific first.
     A topology spread constraint without a labelSelector gets the
     workload's selector labels (selector). Call with (dict "levels" (list
     ...) "selector" $labels "what" "group x"); returns YAML. */}}
{{- define "evf.podSettings" -}}
{{- $levels := .levels -}}
{{- $out := dict -}}
{{- range $k := list "podAnnotations" "podLabels" "nodeSelector" -}}
{{- $m := dict -}}
{{- range $l := $levels }}{{ with get $l $k }}{{ $m = merge $m (deepCopy .) }}{{ end }}{{ end -}}
{{- $_ := set $out $k $m -}}
{{- end -}}
{{- range $k := list "podSecurityContext" "securityContext" -}}
{{- $m := dict -}}
{{- range $l := reverse $levels }}{{ with get $l $k }}{{ $m = mergeOverwrite $m (deepCopy .) }}{{ end }}{{ end -}}
{{- $_ := set $out $k $m -}}
{{- end -}}
{{- range $k := list "resources" "affinity" "priorityClassName" "tolerations" "topologySpreadConstraints" "extraEnv" "extraVolumes" "extraVolumeMounts" -}}
{{- $v := "" -}}
{{- range $l := $levels }}{{ if not $v }}{{ $v = get $l $k }}{{ end }}{{ end -}}
{{- if and (eq $k "resources") (not $v) -}}
{{- range $l := $levels }}{{ if not $v }}{{ $v = get $l "defaultResources" }}{{ end }}{{ end -}}
{{- end -}}
{{- if $v }}{{ $_ := set $out $k $v }}{{ end -}}
{{- end -}}
{{- with $out.topologySpreadConstraints -}}
{{- $tsc := list -}}
{{- range $c := . -}}
{{- $c = deepCopy $c -}}
{{- if not (hasKey $c "labelSelector") }}{{ $_ := set $c "labelSelector" (dict "matchLabels" $.selector) }}{{ end -}}
{{- $tsc = append $tsc $c -}}
{{- end -}}
{{- $_ := set $out "topologySpreadConstraints" $tsc -}}
{{- end -}}
{{- $reserved := list "DATABASE_URL" "EVF_DB_POOLER" "EVF_DATABASE_DIRECT_URL" "EVF_QUEUES" "EVF_METRICS_ADDR" "EVF_API_ADDR" "EVF_API_METRICS_ADDR" "EVF_API_RATE" "EVF_API_BURST" "EVF_API_RIVER_UI" "EVF_API_CONSOLE" -}}
{{- range $e := $out.extraEnv -}}
{{- if not $e.name }}{{ fail (printf "%s: an extraEnv entry has no name" $.what) }}{{ end -}}
{{- if or (has $e.name $reserved) (regexMatch "^EVF_[A-Z]+_WORKERS$" $e.name) -}}
{{- fail (printf "%s: extraEnv sets %s, which the chart sets itself (database.*, the group's queues and concurrency, api.*, metricsPort)" $.what $e.name) -}}
{{- end -}}
{{- end -}}
{{- range $v := $out.extraVolumes -}}
{{- if eq (toString $v.name) "tmp" }}{{ fail (printf "%s: extraVolumes names a volume tmp, the chart's own /tmp" $.what) }}{{ end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* The variables of a workload's container after the chart's own, as a
     YAML list: the shared env with the workload's env over it (the
     group's, or api.env), then extraEnv (full EnvVar objects, valueFrom
     included). A name extraEnv sets is left out of the env maps. Call with
     (dict "shared" .Values.env "own" $own.env "extra" $ps.extraEnv);
     renders nothing when there are none. */}}
{{- define "evf.userEnv" -}}
{{- $extra := dict -}}
{{- range $e := .extra }}{{ $_ := set $extra $e.name true }}{{ end -}}
{{- $own := .own | default dict -}}
{{- $out := list -}}
{{- range $k, $v := .shared -}}
{{- if not (or (hasKey $own $k) (hasKey $extra $k)) }}{{ $out = append $out (dict "name" $k "value" (toString $v)) }}{{ end -}}
{{- end -}}
{{- range $k, $v := $own -}}
{{- if not (hasKey $extra $k) }}{{ $out = append $out (dict "name" $k "value" (toString $v)) }}{{ end -}}
{{- end -}}
{{- $out = concat $out (.extra | default list) -}}
{{- with $out }}{{ toYaml . }}{{ end -}}
{{- end -}}

{{/* The pod template's metadata: selector labels over podLabels (a
     podLabel cannot move a pod out of its Deployment), and the chart's
     annotations under podAnnotations. Call with (dict "selector" $labels
     "ps" $podSettings "annotations" $chartAnnotations). */}}
{{- define "evf.podMetadata" -}}
labels:
  {{- toYaml (merge (deepCopy .selector) (.ps.podLabels | default dict)) | nindent 2 }}
{{- $ann := merge (deepCopy (.ps.podAnnotations | default dict)) (.annotations | default dict) }}
{{- with $ann }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The pod spec fields every workload shares: service account, pull
     secrets, scheduling and the pod's security context. Call with (dict
     "root" $ "ps" $podSettings "serviceAccountName" $name). */}}
{{- define "evf.podScheduling" -}}
{{- with .serviceAccountName }}
serviceAccountName: {{ . }}
{{- end }}
automountServiceAccountToken: {{ .root.Values.serviceAccount.automount }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .ps.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
securityContext:
  {{- toYaml .ps.podSecurityContext | nindent 2 }}
{{- with .ps.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .ps.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .ps.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .ps.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The volume mounts of a workload's container and its pod's volumes, as
     YAML lists: the chart's /tmp, then extraVolumeMounts and extraVolumes.
     Call with the pod settings. */}}
{{- define "evf.volumeMounts" -}}
{{- toYaml (concat (list (dict "name" "tmp" "mountPath" "/tmp")) (.extraVolumeMounts | default list)) -}}
{{- end -}}
{{- define "evf.volumes" -}}
{{- toYaml (concat (list (dict "name" "tmp" "emptyDir" (dict "sizeLimit" "64Mi"))) (.extraVolumes | default list)) -}}
{{- end -}}

{{/* The service account of the workers and the API: serviceAccount.name
     (or the older serviceAccountName); with serviceAccount.create, the
     chart's own, named <fullname> unless a name is given. "" leaves the
     namespace's default. */}}
{{- define "evf.serviceAccountName" -}}
{{- $name := .Values.serviceAccount.name | default .Values.serviceAccountName -}}
{{- if and .Values.serviceAccount.name .Values.serviceAccountName (ne .Values.serviceAccount.name .Values.serviceAccountName) -}}
{{- fail (printf "serviceAccount.name (%s) and serviceAccountName (%s) differ: serviceAccountName is the older name of serviceAccount.name; set only one" .Values.serviceAccount.name .Values.serviceAccountName) -}}
{{- end -}}
{{- if .Values.serviceAccount.create -}}
{{- $name | default (include "evf.fullname" .) -}}
{{- else -}}
{{- $name -}}
{{- end -}}
{{- end -}}

{{/* The migration Job's service account. The Job is a pre-install hook and
     runs before the release's regular objects exist, so with
     serviceAccount.create it gets a hook account of its own,
     <account>-migrate, created just before it (same annotations) and removed
     with it; otherwise the workers' existing account. */}}
{{- define "evf.migrateServiceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- printf "%s-migrate" (include "evf.serviceAccountName" . | trunc 55 | trimSuffix "-") -}}
{{- else -}}
{{- include "evf.serviceAccountName" . -}}
{{- end -}}
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
app.kubernetes.io/name: {{ include "evf.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: api
{{- end -}}
