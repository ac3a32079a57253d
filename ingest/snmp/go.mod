module cheetah/ingest/snmp

go 1.26.0

require (
	github.com/gosnmp/gosnmp v1.47.0 // indirect
	github.com/twmb/franz-go v1.22.2 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)
