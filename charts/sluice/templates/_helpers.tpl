{{- /* Names. fullname is the prefix of every object's name; the release
     name alone when it already contains the chart's name. */ -}}
{{- define "sluice.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "sluice.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* sluice.component: the name of one component's objects; pass
     (dict "root" $ "component" "webhook"). Truncated so that suffixes
     added by controllers (Pod names) still fit. */ -}}
{{- define "sluice.component" -}}
{{- printf "%s-%s" (include "sluice.fullname" .root) .component | trunc 52 | trimSuffix "-" -}}
{{- end -}}

{{- define "sluice.webhookService" -}}
{{- include "sluice.component" (dict "root" . "component" "webhook") -}}
{{- end -}}
{{- define "sluice.mutatingWebhookName" -}}
{{- printf "%s-mutating-webhook" (include "sluice.fullname" .) -}}
{{- end -}}
{{- define "sluice.validatingWebhookName" -}}
{{- printf "%s-validating-webhook" (include "sluice.fullname" .) -}}
{{- end -}}
{{- define "sluice.webhookCertSecret" -}}
{{- default (printf "%s-webhook-cert" (include "sluice.fullname" .)) .Values.webhook.certificate.secretName -}}
{{- end -}}
{{- define "sluice.certificateName" -}}
{{- printf "%s-webhook" (include "sluice.fullname" .) -}}
{{- end -}}

{{- /* Labels. */ -}}
{{- define "sluice.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sluice.name" .root | quote }}
app.kubernetes.io/instance: {{ .root.Release.Name | quote }}
app.kubernetes.io/component: {{ .component | quote }}
{{- end -}}

{{- define "sluice.labels" -}}
{{ include "sluice.selectorLabels" . }}
app.kubernetes.io/part-of: sluice
app.kubernetes.io/version: {{ include "sluice.version" .root | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service | quote }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" | quote }}
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- /* The Sluice version the chart runs: image.tag, else appVersion. */ -}}
{{- define "sluice.version" -}}
{{- default .Chart.AppVersion .Values.image.tag -}}
{{- end -}}

{{- define "sluice.image" -}}
{{- $repo := include "sluice.mirrored" (list .Values.imageRegistry .Values.image.repository) -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $repo .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repo (include "sluice.version" .) -}}
{{- end -}}
{{- end -}}

{{- /* A repository in the registry imageRegistry names (list registry
     repository): its own registry (a first path element with a dot or a
     colon, or localhost) replaced, or, without one (Docker Hub's), the
     registry prefixed. Unchanged without imageRegistry. */ -}}
{{- define "sluice.mirrored" -}}
{{- $registry := index . 0 -}}
{{- $repo := index . 1 -}}
{{- if not $registry -}}
{{- $repo -}}
{{- else -}}
{{- $parts := splitList "/" $repo -}}
{{- $first := first $parts -}}
{{- if and (gt (len $parts) 1) (or (contains "." $first) (contains ":" $first) (eq $first "localhost")) -}}
{{- printf "%s/%s" (trimSuffix "/" $registry) (join "/" (rest $parts)) -}}
{{- else -}}
{{- printf "%s/%s" (trimSuffix "/" $registry) $repo -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* Namespaces the webhooks never see: the configured ones, plus
     kube-system and the release's own namespace, always. */ -}}
{{- define "sluice.excludedNamespaces" -}}
{{- $ns := concat (list "kube-system" .Release.Namespace) .Values.webhook.excludeNamespaces | uniq -}}
{{- toYaml $ns -}}
{{- end -}}

{{- /* Namespaces whose policy ConfigMaps the webhook loads: the release's,
     then webhook.policyNamespaces. */ -}}
{{- define "sluice.policyNamespaces" -}}
{{- concat (list .Release.Namespace) .Values.webhook.policyNamespaces | uniq | join "," -}}
{{- end -}}

{{- /* The environment every component gets. */ -}}
{{- define "sluice.podEnv" -}}
- name: POD_NAMESPACE
  valueFrom:
    fieldRef: {fieldPath: metadata.namespace}
- name: POD_NAME
  valueFrom:
    fieldRef: {fieldPath: metadata.name}
{{- end -}}

{{- /* The non-root security context of the controller and the webhook. */ -}}
{{- define "sluice.restrictedContainer" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: [ALL]
{{- end -}}

{{- define "sluice.restrictedPod" -}}
runAsNonRoot: true
runAsUser: {{ .Values.image.user | int64 }}
runAsGroup: {{ .Values.image.user | int64 }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- /* Default topology spread for a Deployment's replicas: across nodes
     and zones, best effort (a one-node cluster still schedules them). */ -}}
{{- define "sluice.topologySpread" -}}
{{- $sel := include "sluice.selectorLabels" (dict "root" .root "component" .component) | fromYaml -}}
{{- $out := list -}}
{{- range .values.topologySpreadConstraints -}}
{{- $out = append $out (merge (dict "labelSelector" (dict "matchLabels" $sel)) (omit . "labelSelector")) -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{- /* matchConditions shared by both Pod webhooks. */ -}}
{{- define "sluice.podMatchConditions" -}}
- name: not-from-a-kubelet
  expression: '!request.userInfo.username.startsWith("system:node:")'
- name: not-a-mirror-pod
  expression: '!has(object.metadata.annotations) || !("kubernetes.io/config.mirror" in object.metadata.annotations)'
{{- end -}}
