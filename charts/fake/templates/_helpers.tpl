{{- define "fake.labels" -}}
app.kubernetes.io/name: {{ .Values.engine }}
app.kubernetes.io/instance: {{ .Values.name }}
app.kubernetes.io/managed-by: sluice
fluid.io/dataset: {{ .Values.namespace }}-{{ .Values.name }}
{{- end -}}

{{- define "fake.statefulset" -}}
{{- $ := index . 0 }}{{ $role := index . 1 }}{{ $replicas := index . 2 -}}
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ $.Values.name }}-{{ $role }}
  namespace: {{ $.Values.namespace }}
  labels:
    {{- include "fake.labels" $ | nindent 4 }}
    role: {{ $.Values.engine }}-{{ $role }}
spec:
  replicas: {{ $replicas }}
  serviceName: {{ $.Values.name }}-{{ $role }}
  podManagementPolicy: Parallel
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ $.Values.name }}
      role: {{ $.Values.engine }}-{{ $role }}
  template:
    metadata:
      labels:
        {{- include "fake.labels" $ | nindent 8 }}
        role: {{ $.Values.engine }}-{{ $role }}
    spec:
      containers:
        - name: {{ $role }}
          image: {{ $.Values.image }}
{{- end -}}
