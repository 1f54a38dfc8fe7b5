{{- /* Every value reaches the manifests through toJson (a JSON string is a
     YAML double-quoted scalar) or toYaml, never spliced as text; commands
     are argv lists computed by the engine (engines/juicefs/argv.go). */ -}}

{{- define "sluice.labels" -}}
app.kubernetes.io/name: juicefs
app.kubernetes.io/instance: {{ .Values.name | toJson }}
app.kubernetes.io/managed-by: sluice
fluid.io/dataset: {{ .Values.datasetID | toJson }}
{{- end -}}

{{- /* Labels of the workers: placement concerns cache workers only, so only
     they carry fluid.io/dataset-placement, which placement anti-affinity
     selects; FUSE pods must stay free to run beside any worker. */ -}}
{{- define "sluice.workerLabels" -}}
{{ include "sluice.labels" . }}
fluid.io/dataset-placement: {{ .Values.placement | toJson }}
{{- end -}}

{{- define "sluice.image" -}}
image: {{ printf "%s:%s" .repository .tag | toJson }}
imagePullPolicy: {{ .pullPolicy | toJson }}
{{- end -}}
