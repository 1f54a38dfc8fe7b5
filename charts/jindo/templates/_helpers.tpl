{{/* Every value reaches the manifests through toJson (a JSON string is a
     YAML double-quoted scalar) or toYaml, never spliced as text. */}}

{{/* Labels of every object and pod of the release; workers use jindo.workerLabels. */}}
{{- define "jindo.labels" -}}
app.kubernetes.io/name: jindo
app.kubernetes.io/instance: {{ .Values.name | toJson }}
app.kubernetes.io/managed-by: sluice
fluid.io/dataset: {{ .Values.datasetID | toJson }}
{{- end -}}

{{/* Labels of the workers: placement concerns cache workers only, so only
     they carry fluid.io/dataset-placement, which placement anti-affinity
     selects; FUSE and master pods must stay free to run beside any worker. */}}
{{- define "jindo.workerLabels" -}}
{{ include "jindo.labels" . }}
fluid.io/dataset-placement: {{ .Values.placement | toJson }}
{{- end -}}

{{/* dnsPolicy that still resolves cluster names on the host network. */}}
{{- define "jindo.dnsPolicy" -}}
{{ if .Values.hostNetwork }}ClusterFirstWithHostNet{{ else }}ClusterFirst{{ end }}
{{- end -}}

{{/* Mounts every JindoCache container shares: configuration, credentials
     at /token and the local:// and pvc:// under-storage. */}}
{{- define "jindo.sharedMounts" -}}
- {name: config, mountPath: /jindocache.cfg, subPath: jindocache.cfg}
- {name: config, mountPath: /jindosdk.cfg, subPath: jindosdk.cfg}
- {name: config, mountPath: /cacheset.xml, subPath: cacheset.xml}
{{- if .Values.credentials }}
- {name: credentials, mountPath: /token, readOnly: true}
{{- end }}
{{- range .Values.ufsVolumes }}
- name: {{ .name | toJson }}
  mountPath: {{ .mountPath | toJson }}
  {{- with .subPath }}
  subPath: {{ . | toJson }}
  {{- end }}
  readOnly: {{ .readOnly | toJson }}
{{- end }}
{{- end -}}

{{/* The volumes behind jindo.sharedMounts, plus spec.volumes. */}}
{{- define "jindo.sharedVolumes" -}}
- name: config
  configMap:
    name: {{ printf "%s-config" .Values.name | toJson }}
{{- with .Values.credentials }}
- name: credentials
  {{- if .secret }}
  secret:
    secretName: {{ .secret | toJson }}
  {{- else }}
  projected:
    sources:
      {{- range .items }}
      - secret:
          name: {{ .secret | toJson }}
          items:
            - {key: {{ .key | toJson }}, path: {{ .path | toJson }}}
      {{- end }}
  {{- end }}
{{- end }}
{{- range .Values.ufsVolumes }}
- name: {{ .name | toJson }}
  {{- if .claimName }}
  persistentVolumeClaim:
    claimName: {{ .claimName | toJson }}
    readOnly: {{ .readOnly | toJson }}
  {{- else }}
  hostPath:
    path: {{ .hostPath | toJson }}
    type: Directory
  {{- end }}
{{- end }}
{{- with .Values.volumes }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Pod-level settings of one component (the dict's "c"). */}}
{{- define "jindo.podSettings" -}}
{{- with .c.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .c.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .c.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The component's own environment variables (a map, sorted). */}}
{{- define "jindo.userEnv" -}}
{{- range $k, $v := .env }}
- name: {{ $k | toJson }}
  value: {{ $v | toJson }}
{{- end }}
{{- end -}}

{{/* One INI section's "key = value" lines (the engine refuses line
     breaks in keys and values); the file reaches the manifest via toYaml. */}}
{{- define "jindo.section" -}}
{{- range $k, $v := . }}
{{ $k }} = {{ $v }}
{{- end }}
{{- end -}}

{{/* Text escaped for an XML element. */}}
{{- define "jindo.xml" -}}
{{ . | replace "&" "&amp;" | replace "<" "&lt;" | replace ">" "&gt;" }}
{{- end -}}

{{/* The image and pull policy of a container, from an image value. */}}
{{- define "jindo.image" -}}
image: {{ printf "%s:%s" .repository .tag | toJson }}
imagePullPolicy: {{ .pullPolicy | toJson }}
{{- end -}}
