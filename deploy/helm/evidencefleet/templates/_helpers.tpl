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

{{/* The database variable, from the existing Secret. */}}
{{- define "evf.databaseEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ required "database.existingSecret is required: a Secret holding the Postgres connection string" .Values.database.existingSecret }}
      key: {{ .Values.database.secretKey }}
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
