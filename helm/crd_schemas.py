#!/usr/bin/env python3
"""Turns CustomResourceDefinitions into the JSON schemas helm/validate.py checks objects with.

  crd_schemas.py --jars DIR --out DIR CRD.yaml...

For every served version of every CRD: OUT/GROUP/VERSION/KIND.json, its openAPIV3Schema made
strict the way kubeconform's openapi2jsonschema --strict does (an object that lists its
properties accepts no other, unless x-kubernetes-preserve-unknown-fields), with the Kubernetes
extensions JSON Schema lacks expressed in it (x-kubernetes-int-or-string, nullable).
OUT/SOURCES.json records the SHA-256 of every jar in --jars the CRDs came from, and each
change made to an operator's schema beyond that conversion (PATCHES below, with the reason).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import sys

import yaml

# The newest Flink Kubernetes Operator API jar Maven Central serves here is 1.10.0, whose
# FlinkVersion enum ends at v1_20; operators from 1.11 on add the 2.x values the job image
# (Flink 2.2.1) needs. Only this enum is widened, and only by those values.
PATCHES = [
    {
        "kind": "FlinkDeployment",
        "path": ["spec", "flinkVersion"],
        "add_enum": ["v2_0", "v2_1", "v2_2"],
        "why": "flink-kubernetes-operator-api 1.10.0 (newest served) predates Flink 2.x; "
               "operators >= 1.11 accept v2_x",
    }
]


def convert(node):
    if isinstance(node, list):
        return [convert(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: convert(v) for k, v in node.items()}
    if out.pop("x-kubernetes-int-or-string", False):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if out.pop("nullable", False) and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    if ("properties" in out and "additionalProperties" not in out
            and not out.get("x-kubernetes-preserve-unknown-fields")):
        out["additionalProperties"] = False
    return out


def sub(schema: dict, path: list[str]) -> dict:
    for p in path:
        schema = schema["properties"][p]
    return schema


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jars", type=pathlib.Path, required=True)
    ap.add_argument("--out", type=pathlib.Path, required=True)
    ap.add_argument("crds", type=pathlib.Path, nargs="+")
    args = ap.parse_args(argv)
    written = []
    patched = []
    for path in args.crds:
        for crd in yaml.safe_load_all(path.read_text()):
            if not crd or crd.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
            for v in crd["spec"]["versions"]:
                if not v.get("served", True):
                    continue
                schema = convert(v["schema"]["openAPIV3Schema"])
                # The API server accepts these on every object whether the CRD lists them or not.
                root = schema.setdefault("properties", {})
                root.setdefault("apiVersion", {"type": "string"})
                root.setdefault("kind", {"type": "string"})
                root.setdefault("metadata", {"type": "object"})
                for p in PATCHES:
                    if p["kind"] == kind:
                        target = sub(schema, p["path"])
                        target["enum"] = target["enum"] + [e for e in p["add_enum"] if e not in target["enum"]]
                        patched.append({**p, "version": v["name"]})
                schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
                dest = args.out / group / v["name"] / f"{kind}.json"
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(json.dumps(schema, indent=1, sort_keys=True))
                written.append(f"{group}/{v['name']}/{kind}")
    sources = {
        "jars": {j.name: hashlib.sha256(j.read_bytes()).hexdigest() for j in sorted(args.jars.glob("*.jar"))},
        "schemas": sorted(written),
        "patches": patched,
    }
    (args.out / "SOURCES.json").write_text(json.dumps(sources, indent=1))
    if not written:
        print("crd_schemas.py: no CustomResourceDefinition in " + " ".join(map(str, args.crds)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
