{{- /* Every value reaches the manifests through toYaml or toJson (a JSON
     string is a YAML double-quoted scalar), never spliced as text. */ -}}

{{- /* The labels of a Job and its pod: the release's, the instance and the
     step (free or node). */ -}}
{{- define "cleanup.labels" -}}
{{- $root := index . 0 -}}
{{ toYaml (merge (dict "app.kubernetes.io/instance" $root.Release.Name "cleanup.sluice.io/step" (index . 1)) (deepCopy $root.Values.labels)) }}
{{- end -}}

{{- /* One Job running pod: the release's back-off and deadline. */ -}}
{{- define "cleanup.job" -}}
{{- $root := index . 0 }}{{ $name := index . 1 }}{{ $step := index . 2 }}{{ $suspend := index . 3 }}{{ $spec := index . 4 -}}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ $name | toJson }}
  namespace: {{ $root.Release.Namespace | toJson }}
  labels:
    {{- include "cleanup.labels" (list $root $step) | nindent 4 }}
spec:
  suspend: {{ $suspend | toJson }}
  backoffLimit: {{ $root.Values.backoffLimit | toJson }}
  activeDeadlineSeconds: {{ $root.Values.activeDeadlineSeconds | toJson }}
  template:
    metadata:
      labels:
        {{- include "cleanup.labels" (list $root $step) | nindent 8 }}
    spec:
      {{- toYaml $spec | nindent 6 }}
{{- end -}}
