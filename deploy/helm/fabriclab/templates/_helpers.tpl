{{/* Names, labels and the pieces the manifests share. */}}

{{- define "fabriclab.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* release-chart, or the release alone when it already names the chart; at most 63 characters less room for suffixes */}}
{{- define "fabriclab.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "fabriclab.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "fabriclab.labels" -}}
helm.sh/chart: {{ include "fabriclab.chart" . }}
app.kubernetes.io/name: {{ include "fabriclab.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector labels of one component: (dict "root" $ "component" "manager") */}}
{{- define "fabriclab.selectorLabels" -}}
app.kubernetes.io/name: {{ include "fabriclab.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* All labels of one component: (dict "root" $ "component" "manager") */}}
{{- define "fabriclab.componentLabels" -}}
{{ include "fabriclab.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* An image: (dict "root" $ "name" "fabric-manager") -> [REGISTRY/]REPOSITORY/NAME:TAG */}}
{{- define "fabriclab.image" -}}
{{- $img := .root.Values.image }}
{{- $repo := printf "%s/%s" $img.repository .name }}
{{- if $img.registry }}{{ $repo = printf "%s/%s" $img.registry $repo }}{{ end }}
{{- printf "%s:%s" $repo (default .root.Chart.AppVersion $img.tag) }}
{{- end }}

{{- define "fabriclab.manager.name" -}}{{ include "fabriclab.fullname" . }}-manager{{- end }}
{{- define "fabriclab.fabric.name" -}}{{ include "fabriclab.fullname" . }}-fabric{{- end }}
{{- define "fabriclab.switch.name" -}}{{ include "fabriclab.fullname" . }}-switch{{- end }}

{{/* The fabric pod's Service as the manager and the nodes' endpoints name it */}}
{{- define "fabriclab.fabric.host" -}}
{{ include "fabriclab.fabric.name" . }}.{{ .Release.Namespace }}.svc
{{- end }}

{{/* Switch K's host (pod K of the switches' StatefulSet, through their headless Service), {index} for K */}}
{{- define "fabriclab.switch.hostPattern" -}}
{{ include "fabriclab.switch.name" . }}-{index}.{{ include "fabriclab.switch.name" . }}.{{ .Release.Namespace }}.svc
{{- end }}

{{/* The fabric's link and traffic flags, shared by the embedded manager and the emulator */}}
{{- define "fabriclab.fabricArgs" -}}
- --traffic
- {{ .Values.fabric.traffic | quote }}
- --traffic-gbps
- {{ .Values.fabric.trafficGbps | toString | quote }}
{{ include "fabriclab.linkArgs" . }}
{{- end }}

{{/* Link rate, latency and time dilation: every process of the fabric */}}
{{- define "fabriclab.linkArgs" -}}
- --link-gbps
- {{ .Values.fabric.linkGbps | toString | quote }}
- --link-latency
- {{ .Values.fabric.linkLatency | toString | quote }}
- --time-dilation
- {{ .Values.fabric.timeDilation | toString | quote }}
{{- end }}

{{/* What this version cannot do, refused with the reason rather than rendered as if it worked */}}
{{- define "fabriclab.validate" -}}
{{- if and .Values.manager.standby.enabled (eq .Values.fabric.mode "embedded") }}
{{- fail "manager.standby.enabled needs fabric.mode single-pod or pod-per-switch: with embedded, every manager would run a fabric of its own and there is nothing to stand by for" }}
{{- end }}
{{- if hasPrefix "file:" .Values.fabric.topology }}
{{- fail (printf "fabric.topology %q: a file: topology needs the file inside the image, which the chart does not provide; use a generated spec" .Values.fabric.topology) }}
{{- end }}
{{- $admin := .Values.security.adminAddress | toString }}
{{- if or (hasPrefix "127." $admin) (eq $admin "localhost") (eq $admin "::1") }}
{{- fail (printf "security.adminAddress %s is loopback: the kubelet's probes and the admin Service reach the manager by its pod's address, so it would never be ready; give 0.0.0.0 (the default) and guard it with security.adminTokenSecret and security.tlsSecret" $admin) }}
{{- end }}
{{- if eq (int .Values.manager.adminPort) (int .Values.manager.metricsPort) }}
{{- fail (printf "manager.adminPort and manager.metricsPort are both %d: the admin gRPC and the metrics need a port each; give two different ports" (int .Values.manager.adminPort)) }}
{{- end }}
{{- if and (eq .Values.fabric.mode "pod-per-switch") (eq (int .Values.fabric.switches.managementPort) (int .Values.fabric.switches.dataPort)) }}
{{- fail (printf "fabric.switches.managementPort and fabric.switches.dataPort are both %d: a switch pod serves management and data links on a port each; give two different ports" (int .Values.fabric.switches.dataPort)) }}
{{- end }}
{{- if and (ne .Values.fabric.traffic "none") (gt (float64 .Values.fabric.trafficGbps) (float64 .Values.fabric.linkGbps)) }}
{{- fail (printf "fabric.trafficGbps %v is above fabric.linkGbps %v: a host cannot offer more than its link carries (the daemon refuses it at start); give at most %v" .Values.fabric.trafficGbps .Values.fabric.linkGbps .Values.fabric.linkGbps) }}
{{- end }}
{{- end }}

{{/* The volumes every JVM container needs with a read-only root: /tmp (Netty's native libraries, hsperfdata) */}}
{{- define "fabriclab.tmpVolumeMount" -}}
- name: tmp
  mountPath: /tmp
{{- end }}
