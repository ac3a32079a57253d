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

{{/* Kafka bootstrap servers: Strimzi's bootstrap service, plain listener. */}}
{{- define "cheetah.bootstrap" -}}
{{- printf "%s-kafka-bootstrap:9092" .Values.kafka.name -}}
{{- end -}}

{{/* The chart's copy of schemas/topics.yaml (helm/gen_chart_data.py). */}}
{{- define "cheetah.manifest" -}}
{{- .Files.Get "files/topics.yaml" -}}
{{- end -}}
