{{- define "fakeop.labels" -}}
app.kubernetes.io/name: sluice-fakeop
app.kubernetes.io/instance: {{ .Release.Name | toJson }}
app.kubernetes.io/managed-by: sluice
{{- end -}}

{{- define "fakeop.pod" -}}
metadata:
  labels:
    {{- include "fakeop.labels" . | nindent 4 }}
spec:
  restartPolicy: Never
  {{- with .Values.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  containers:
    - name: operation
      image: {{ .Values.image | toJson }}
      env:
        - name: OPERATION_KIND
          value: {{ .Values.kind | toJson }}
{{- end -}}
