"""The generic forms for other tools (scp, bbcp, FDT, ...): CSV with a header row of transfers.v1
field names, or JSON lines with those names. Needed: src_host, dst_host, tool, bytes, start_ms and
end_ms or seconds. stream_rates_bps and stream_seconds are lists (in CSV: values separated by ;).
"""

from __future__ import annotations

import csv
import io
import json

from .records import TRANSFER_FIELDS, BadRecord, Parsed, reject, transfer


def parse_csv(text: str, source: str = "-") -> Parsed:
    """Every data row of a CSV whose first row names the columns. Never raises."""
    out = Parsed()
    lines = text.splitlines()
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as e:
        out.rejects.append(reject("malformed_csv", f"not CSV: {e}", text[:4096], source, 1))
        return out
    if not rows:
        return out
    header = [h.strip() for h in rows[0]]
    unknown = [h for h in header if h not in TRANSFER_FIELDS]
    if unknown or len(set(header)) != len(header):
        out.rejects.append(
            reject(
                "bad_header",
                f"header columns must be distinct transfers.v1 field names ({', '.join(TRANSFER_FIELDS)});"
                f" unknown or repeated: {', '.join(unknown) or 'a repeat'}",
                lines[0] if lines else "",
                source,
                1,
            )
        )
        return out
    # Row numbers: csv rows may span lines (quoted newlines); count by the reader's rows.
    for n, row in enumerate(rows[1:], start=2):
        if not row or not any(c.strip() for c in row):
            continue
        raw = ",".join(row)
        if len(row) != len(header):
            out.rejects.append(reject("wrong_column_count", f"{len(row)} columns, the header has {len(header)}", raw, source, n))
            continue
        try:
            out.records.append(transfer(dict(zip(header, row))))
        except BadRecord as e:
            out.rejects.append(reject(e.reason, str(e), raw, source, n))
    return out


def parse_jsonl(text: str, source: str = "-") -> Parsed:
    """Every line of JSON lines, each an object with transfers.v1 field names. Never raises."""
    out = Parsed()
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError) as e:
            out.rejects.append(reject("malformed_json", f"not JSON: {e}", line, source, n))
            continue
        if not isinstance(obj, dict):
            out.rejects.append(reject("malformed_json", f"a line must be a JSON object, got {type(obj).__name__}", line, source, n))
            continue
        try:
            out.records.append(transfer(obj))
        except BadRecord as e:
            out.rejects.append(reject(e.reason, str(e), line, source, n))
    return out
