"""Devices the adapters drive: Linux tc, BGP FlowSpec through GoBGP, OpenFlow through Open vSwitch."""
