{{- /* Every value reaches the manifests through toYaml or toJson (a JSON
     string is a YAML double-quoted scalar), never spliced as text. */ -}}

{{- /* The workload's labels: the operation's, and the release as instance. */ -}}
{{- define "dataop.labels" -}}
{{ toYaml (merge (dict "app.kubernetes.io/instance" .Release.Name) (deepCopy .Values.labels)) }}
{{- end -}}

{{- /* The pod template: the operation's labels win over the pod's own
     (podMetadata); the files ConfigMap, when there is one, is added to
     the pod's volumes. */ -}}
{{- define "dataop.pod" -}}
{{- $spec := deepCopy .Values.pod.spec -}}
{{- if .Values.files.data -}}
{{- $files := dict "name" .Values.files.volume "configMap" (dict "name" (printf "%s-files" .Release.Name) "defaultMode" 365) -}}
{{- $_ := set $spec "volumes" (append (default (list) $spec.volumes) $files) -}}
{{- end -}}
metadata:
  labels:
    {{- toYaml (merge (dict "app.kubernetes.io/instance" .Release.Name) (deepCopy .Values.labels) (deepCopy .Values.pod.labels)) | nindent 4 }}
  {{- with .Values.pod.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- toYaml $spec | nindent 2 }}
{{- end -}}
