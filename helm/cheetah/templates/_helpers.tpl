{{/* Labels every object carries. */}}
{{- define "cheetah.labels" -}}
app.kubernetes.io/name: cheetah
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* A Cheetah image: (list $ "collector"). */}}
{{- define "cheetah.image" -}}
{{- $root := index . 0 -}}
{{- $name := index $root.Values.images (index . 1) -}}
{{- if $root.Values.images.registry -}}
{{- printf "%s/%s:%s" $root.Values.images.registry $name $root.Values.images.tag -}}
{{- else -}}
{{- printf "%s:%s" $name $root.Values.images.tag -}}
{{- end -}}
{{- end -}}

{{/* Kafka bootstrap servers: Strimzi's bootstrap service; the SCRAM-over-TLS listener when
     kafka.authorization is on (the plain one is gone then), the plain listener otherwise. */}}
{{- define "cheetah.bootstrap" -}}
{{- printf "%s-kafka-bootstrap:%d" .Values.kafka.name (ternary 9093 9092 (.Values.kafka.authorization | default false)) -}}
{{- end -}}

{{/* Strimzi's cluster CA certificate Secret (ca.crt): what the brokers' TLS chains to. */}}
{{- define "cheetah.kafkaCaSecret" -}}
{{- printf "%s-cluster-ca-cert" .Values.kafka.name -}}
{{- end -}}

{{/* The chart's copy of schemas/topics.yaml (helm/gen_chart_data.py). */}}
{{- define "cheetah.manifest" -}}
{{- .Files.Get "files/topics.yaml" -}}
{{- end -}}

{{/* The migrations pod's DNS name, hostname.subdomain.namespace.svc (migrations.yaml), the one
     place besides loopback the ClickHouse admin may connect from (clickhouse.yaml). */}}
{{- define "cheetah.migrateHostname" -}}clickhouse-migrate{{- end -}}
{{- define "cheetah.migrateSubdomain" -}}{{ .Release.Name }}-clickhouse-migrate{{- end -}}
{{- define "cheetah.migrateHost" -}}
{{ include "cheetah.migrateHostname" . }}.{{ include "cheetah.migrateSubdomain" . }}.{{ .Release.Namespace }}.svc
{{- end -}}
