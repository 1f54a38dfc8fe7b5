{{- /* Every value reaches the manifests through toJson (a JSON string is a
     YAML double-quoted scalar) or toYaml, never spliced as text. */ -}}

{{- define "thin.labels" -}}
app.kubernetes.io/name: thin
app.kubernetes.io/instance: {{ .Values.name | toJson }}
app.kubernetes.io/managed-by: sluice
fluid.io/dataset: {{ .Values.datasetId | toJson }}
{{- end -}}

{{- /* Labels of the workers: placement concerns cache workers only, so only
     they carry fluid.io/dataset-placement, which placement anti-affinity
     selects; FUSE pods must stay free to run beside any worker. */ -}}
{{- define "thin.workerLabels" -}}
{{ include "thin.labels" . }}
fluid.io/dataset-placement: {{ .Values.placement | toJson }}
{{- end -}}

{{- /* The chart's mounts shared by FUSE and workers: config, secrets, cache. */ -}}
{{- define "thin.sharedMounts" -}}
- name: thin-config
  mountPath: /etc/fluid/config
  readOnly: true
{{- range .Values.secrets }}
- name: {{ .volume | toJson }}
  mountPath: {{ .mountPath | toJson }}
  readOnly: true
{{- end }}
{{- range .Values.cache }}
- name: {{ .name | toJson }}
  mountPath: {{ .path | toJson }}
{{- end }}
{{- end -}}

{{- define "thin.sharedVolumes" -}}
- name: thin-config
  configMap:
    name: {{ printf "%s-fuse-config" .Values.name | toJson }}
    items:
      - {key: config.json, path: config.json}
{{- range .Values.secrets }}
- name: {{ .volume | toJson }}
  secret:
    secretName: {{ .secretName | toJson }}
    items:
      {{- range .keys }}
      - {key: {{ . | toJson }}, path: {{ . | toJson }}}
      {{- end }}
{{- end }}
{{- range .Values.cache }}
- name: {{ .name | toJson }}
  {{- if eq .type "emptyDir" }}
  {{- if not (or .medium .sizeLimit) }}
  emptyDir: {}
  {{- else }}
  emptyDir:
    {{- with .medium }}
    medium: {{ . | toJson }}
    {{- end }}
    {{- with .sizeLimit }}
    sizeLimit: {{ . | toJson }}
    {{- end }}
  {{- end }}
  {{- else }}
  hostPath: {path: {{ .hostPath | toJson }}, type: DirectoryOrCreate}
  {{- end }}
{{- end }}
{{- end -}}
