// Package integration holds the poller's tests against real parts: net-snmp's
// snmpd reading a veth pair in a network namespace, a silent UDP socket, and
// the Cheetah Kafka broker. They need root (namespaces, veths), snmpd 5.9.3
// and the Java toolchain of ./cheetah broker; a missing piece fails the test
// with what to install.
package integration
