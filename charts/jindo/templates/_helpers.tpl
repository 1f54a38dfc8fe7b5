{{/* Labels of every object and pod of the release; workers use jindo.workerLabels. */}}
{{- define "jindo.labels" -}}
app.kubernetes.io/name: jindo
app.kubernetes.io/instance: {{ .Values.name }}
app.kubernetes.io/managed-by: sluice
fluid.io/dataset: {{ .Values.datasetID }}
{{- end -}}

{{/* Labels of the workers: placement concerns cache workers only, so only
     they carry fluid.io/dataset-placement, which placement anti-affinity
     selects; FUSE and master pods must stay free to run beside any worker. */}}
{{- define "jindo.workerLabels" -}}
{{ include "jindo.labels" . }}
fluid.io/dataset-placement: {{ .Values.placement }}
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
- name: {{ .name }}
  mountPath: {{ .mountPath | quote }}
  {{- with .subPath }}
  subPath: {{ . | quote }}
  {{- end }}
  readOnly: {{ .readOnly }}
{{- end }}
{{- end -}}

{{/* The volumes behind jindo.sharedMounts, plus spec.volumes. */}}
{{- define "jindo.sharedVolumes" -}}
- name: config
  configMap:
    name: {{ .Values.name }}-config
{{- with .Values.credentials }}
- name: credentials
  {{- if .secret }}
  secret:
    secretName: {{ .secret }}
  {{- else }}
  projected:
    sources:
      {{- range .items }}
      - secret:
          name: {{ .secret }}
          items:
            - {key: {{ .key | quote }}, path: {{ .path }}}
      {{- end }}
  {{- end }}
{{- end }}
{{- range .Values.ufsVolumes }}
- name: {{ .name }}
  {{- if .claimName }}
  persistentVolumeClaim:
    claimName: {{ .claimName }}
    readOnly: {{ .readOnly }}
  {{- else }}
  hostPath:
    path: {{ .hostPath | quote }}
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
- name: {{ $k }}
  value: {{ $v | quote }}
{{- end }}
{{- end -}}

{{/* One INI section's "key = value" lines. */}}
{{- define "jindo.section" -}}
{{- range $k, $v := . }}
{{ $k }} = {{ $v }}
{{- end }}
{{- end -}}
