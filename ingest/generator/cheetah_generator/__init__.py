"""Cheetah traffic generator: a seeded model of research-site traffic exported as
real NetFlow v9 / IPFIX datagrams (or a pcap for softflowd), with ground truth."""

__version__ = "0.1.0"
