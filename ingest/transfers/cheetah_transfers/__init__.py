"""Transfer-log shippers: tool logs (iperf3 -J, GridFTP transfer logs, generic CSV/JSON lines)
into transfers.v1 records, bad input into flows.rejected.v1-shaped rejects.

Entry points (one per format; each takes text and never raises on any str input):
``iperf3.parse_iperf3``, ``gridftp.parse_gridftp``, ``generic.parse_csv``, ``generic.parse_jsonl``.
"""
