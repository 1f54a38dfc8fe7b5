{{- /* Monitoring helpers. sluice.metricsJob: the job label the monitors
     give a component's targets, which the alerts select on; pass (dict
     "root" $ "component" "webhook"). */ -}}
{{- define "sluice.metricsJob" -}}
{{- include "sluice.component" . -}}
{{- end -}}

{{- /* The components that serve metrics, as a YAML list. */ -}}
{{- define "sluice.metricsComponents" -}}
{{- $c := list "controller" "webhook" -}}
{{- if .Values.csi.enabled }}{{ $c = append $c "csi" }}{{ end -}}
{{- toYaml $c -}}
{{- end -}}

{{- /* Labels of the monitoring objects: the component's, and
     monitoring.labels (what Prometheus's selectors ask for). */ -}}
{{- define "sluice.monitoringLabels" -}}
{{ include "sluice.labels" . }}
{{- with .root.Values.monitoring.labels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- /* The scrape settings shared by PodMonitor and ServiceMonitor
     endpoints: path, scheme, interval, the controller's honorLabels (its
     series carry the Dataset's namespace), TLS and the job label. */ -}}
{{- define "sluice.scrapeEndpoint" -}}
{{- $m := .root.Values.monitoring -}}
port: metrics
path: /metrics
scheme: {{ ternary "https" "http" .root.Values.metrics.secure }}
{{- with $m.interval }}
interval: {{ . | quote }}
{{- end }}
{{- if eq .component "controller" }}
honorLabels: true
{{- end }}
{{- if .root.Values.metrics.secure }}
# Self-signed, as kube-controller-manager's serving certificate.
tlsConfig:
  insecureSkipVerify: true
{{- end }}
relabelings:
  - action: replace
    targetLabel: job
    replacement: {{ include "sluice.metricsJob" . | quote }}
{{- end -}}
