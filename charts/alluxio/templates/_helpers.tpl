{{- /* Every value reaches the manifests through toJson (a JSON string is a
     YAML double-quoted scalar) or toYaml, never spliced as text. */ -}}

{{- define "alluxio.labels" -}}
app.kubernetes.io/name: alluxio
app.kubernetes.io/instance: {{ .Values.name | toJson }}
app.kubernetes.io/managed-by: sluice
fluid.io/dataset: {{ .Values.datasetID | toJson }}
{{- end -}}

{{- /* Labels of the workers: placement concerns cache workers only, so only
     they carry fluid.io/dataset-placement, which placement anti-affinity
     selects; FUSE and master pods must stay free to run beside any worker. */ -}}
{{- define "alluxio.workerLabels" -}}
{{ include "alluxio.labels" . }}
fluid.io/dataset-placement: {{ .Values.placement | toJson }}
{{- end -}}

{{- /* image and pull policy of a container, from an image value */ -}}
{{- define "alluxio.image" -}}
image: {{ printf "%s:%s" .repository .tag | toJson }}
imagePullPolicy: {{ .pullPolicy | toJson }}
{{- end -}}

{{- /* pod-level settings shared by every workload: . is the root context, .pod the workload's values */ -}}
{{- define "alluxio.podSpec" -}}
hostNetwork: {{ .pod.hostNetwork | toJson }}
{{- if .pod.hostNetwork }}
# Host-network pods still resolve the master's Service name.
dnsPolicy: ClusterFirstWithHostNet
{{- end }}
{{- with .pod.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .root.Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .pod.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- /* pod template metadata: . is the root context, .pod the workload's values, .role its role;
     .worker adds the placement label */ -}}
{{- define "alluxio.podMetadata" -}}
labels:
  {{- include (ternary "alluxio.workerLabels" "alluxio.labels" (default false .worker)) .root | nindent 2 }}
  role: {{ .role | toJson }}
  {{- with .pod.labels }}{{ toYaml . | nindent 2 }}{{ end }}
annotations:
  # Pods restart when the Alluxio configuration changes.
  checksum/config: {{ include (print .root.Template.BasePath "/config-configmap.yaml") .root | sha256sum | toJson }}
  {{- with .pod.annotations }}{{ toYaml . | nindent 2 }}{{ end }}
{{- end -}}

{{- /* the ConfigMap files an Alluxio process reads: . is the root context, .file its properties file
     (and the spec.hadoopConfig files) */ -}}
{{- define "alluxio.configMounts" -}}
- name: config
  mountPath: /opt/alluxio/conf/alluxio-site.properties
  subPath: {{ .file | toJson }}
{{- if .root.Values.prometheus }}
- name: config
  mountPath: /opt/alluxio/conf/metrics.properties
  subPath: metrics.properties
{{- end }}
{{- if .root.Values.hadoopConfig }}
- name: hadoop-config
  mountPath: /hdfs-config
  readOnly: true
{{- end }}
{{- end -}}

{{- /* the volumes of configMounts: . is the root context */ -}}
{{- define "alluxio.configVolumes" -}}
- name: config
  configMap: {name: {{ printf "%s-config" .Values.name | toJson }}}
{{- with .Values.hadoopConfig }}
# spec.hadoopConfig: the Hadoop files its ConfigMap holds, mounted as
# files Alluxio's HDFS client reads (alluxio.underfs.hdfs.configuration).
- name: hadoop-config
  configMap:
    name: {{ .configMap | toJson }}
    items:
      {{- range .files }}
      - {key: {{ . | toJson }}, path: {{ . | toJson }}}
      {{- end }}
{{- end }}
{{- end -}}
