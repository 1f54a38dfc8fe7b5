{{- define "sluice.labels" -}}
app.kubernetes.io/name: juicefs
app.kubernetes.io/instance: {{ .Values.name }}
app.kubernetes.io/managed-by: sluice
fluid.io/dataset: {{ .Values.namespace }}-{{ .Values.name }}
fluid.io/dataset-placement: {{ .Values.placement }}
{{- end -}}

{{- define "sluice.mountArgs" -}}
{{- range $k, $v := .options }} -o {{ $k }}{{ if $v }}={{ $v }}{{ end }}{{ end -}}
{{- end -}}
