{{- define "thin.labels" -}}
app.kubernetes.io/name: thin
app.kubernetes.io/instance: {{ .Values.name | quote }}
app.kubernetes.io/managed-by: sluice
fluid.io/dataset: {{ .Values.datasetId | quote }}
{{- end -}}

{{- /* Labels of the workers: placement concerns cache workers only, so only
     they carry fluid.io/dataset-placement, which placement anti-affinity
     selects; FUSE pods must stay free to run beside any worker. */ -}}
{{- define "thin.workerLabels" -}}
{{ include "thin.labels" . }}
fluid.io/dataset-placement: {{ .Values.placement | quote }}
{{- end -}}

{{- /* The chart's mounts shared by FUSE and workers: config, secrets, cache. */ -}}
{{- define "thin.sharedMounts" -}}
- name: thin-config
  mountPath: /etc/fluid/config
  readOnly: true
{{- range .Values.secrets }}
- name: {{ .volume }}
  mountPath: {{ .mountPath | quote }}
  readOnly: true
{{- end }}
{{- range .Values.cache }}
- name: {{ .name }}
  mountPath: {{ .path | quote }}
{{- end }}
{{- end -}}

{{- define "thin.sharedVolumes" -}}
- name: thin-config
  configMap:
    name: {{ printf "%s-fuse-config" .Values.name | quote }}
    items:
      - {key: config.json, path: config.json}
{{- range .Values.secrets }}
- name: {{ .volume }}
  secret:
    secretName: {{ .secretName | quote }}
    items:
      {{- range .keys }}
      - {key: {{ . | quote }}, path: {{ . | quote }}}
      {{- end }}
{{- end }}
{{- range .Values.cache }}
- name: {{ .name }}
  {{- if eq .type "emptyDir" }}
  {{- if not (or .medium .sizeLimit) }}
  emptyDir: {}
  {{- else }}
  emptyDir:
    {{- with .medium }}
    medium: {{ . }}
    {{- end }}
    {{- with .sizeLimit }}
    sizeLimit: {{ . | quote }}
    {{- end }}
  {{- end }}
  {{- else }}
  hostPath: {path: {{ .path | quote }}, type: DirectoryOrCreate}
  {{- end }}
{{- end }}
{{- end -}}
