{{- define "sluice.labels" -}}
app.kubernetes.io/name: juicefs
app.kubernetes.io/instance: {{ .Values.name }}
app.kubernetes.io/managed-by: sluice
fluid.io/dataset: {{ .Values.namespace }}-{{ .Values.name }}
{{- end -}}

{{- /* Labels of the workers: placement concerns cache workers only, so only
     they carry fluid.io/dataset-placement, which placement anti-affinity
     selects; FUSE pods must stay free to run beside any worker. */ -}}
{{- define "sluice.workerLabels" -}}
{{ include "sluice.labels" . }}
fluid.io/dataset-placement: {{ .Values.placement }}
{{- end -}}

{{- define "sluice.mountArgs" -}}
{{- range $k, $v := .options }} -o {{ $k }}{{ if $v }}={{ $v }}{{ end }}{{ end -}}
{{- end -}}
