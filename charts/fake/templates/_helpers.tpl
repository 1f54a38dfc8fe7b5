{{- /* Every value reaches the manifests through toJson. */ -}}

{{- define "fake.labels" -}}
app.kubernetes.io/name: {{ .Values.engine | toJson }}
app.kubernetes.io/instance: {{ .Values.name | toJson }}
app.kubernetes.io/managed-by: sluice
fluid.io/dataset: {{ printf "%s-%s" .Values.namespace .Values.name | toJson }}
{{- end -}}

{{- define "fake.statefulset" -}}
{{- $ := index . 0 }}{{ $role := index . 1 }}{{ $replicas := index . 2 -}}
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ printf "%s-%s" $.Values.name $role | toJson }}
  namespace: {{ $.Values.namespace | toJson }}
  labels:
    {{- include "fake.labels" $ | nindent 4 }}
    role: {{ printf "%s-%s" $.Values.engine $role | toJson }}
  annotations:
    data.sluice.io/mounts: {{ $.Values.mountsDigest | toJson }}
spec:
  replicas: {{ $replicas | toJson }}
  serviceName: {{ printf "%s-%s" $.Values.name $role | toJson }}
  podManagementPolicy: Parallel
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ $.Values.name | toJson }}
      role: {{ printf "%s-%s" $.Values.engine $role | toJson }}
  template:
    metadata:
      labels:
        {{- include "fake.labels" $ | nindent 8 }}
        role: {{ printf "%s-%s" $.Values.engine $role | toJson }}
      annotations:
        # The fake's pods restart when the Dataset's mounts change.
        data.sluice.io/mounts: {{ $.Values.mountsDigest | toJson }}
    spec:
      containers:
        - name: {{ $role | toJson }}
          image: {{ $.Values.image | toJson }}
{{- end -}}
