#!/usr/bin/env python3
"""Validates every object of a rendered chart against the schema of its kind.

  validate.py [--schemas DIR] RENDERED.yaml      (helm template ... > RENDERED.yaml)

Core kinds: the Kubernetes 1.37 schemas of kubernetes-validate (strict: unknown fields fail).
Custom resources: the schemas helm/build.sh made from the operators' published API artifacts
(.cheetah/helm-schemas/GROUP/VERSION/KIND.json). A kind with no schema fails, except those in
NO_PUBLISHED_SCHEMA, which are reported as not validated (with the reason) on every run.
Prints one line per object; exits 1 if any failed.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

import jsonschema
import kubernetes_validate
import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
KUBERNETES = "1.37"
CORE_GROUPS = {"", "apps", "batch", "policy", "networking.k8s.io", "rbac.authorization.k8s.io", "autoscaling"}

# Kinds whose operator publishes no schema in a registry reachable here (docs/DEPLOY.md,
# "Validation"): Altinity's CRDs are yaml in its repository and Helm chart only; its Go module
# is refused by the Go module proxy. These objects are only checked for apiVersion and kind.
NO_PUBLISHED_SCHEMA = {
    ("clickhouse.altinity.com/v1", "ClickHouseInstallation"):
        "Altinity clickhouse-operator: no CRD in any registry reachable here",
    ("clickhouse-keeper.altinity.com/v1", "ClickHouseKeeperInstallation"):
        "Altinity clickhouse-operator: no CRD in any registry reachable here",
}


def load(path: pathlib.Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def error_text(e: jsonschema.ValidationError) -> str:
    where = "/".join(str(p) for p in e.absolute_path) or "(root)"
    return f"{where}: {e.message[:300]}"


def validate(obj: dict, schemas: pathlib.Path) -> tuple[str, str]:
    """(status, detail): status is ok, failed or unvalidated."""
    api, kind = obj.get("apiVersion", ""), obj.get("kind", "")
    group = api.rpartition("/")[0]
    if (api, kind) in NO_PUBLISHED_SCHEMA:
        return "unvalidated", NO_PUBLISHED_SCHEMA[(api, kind)]
    if group in CORE_GROUPS:
        try:
            kubernetes_validate.validate(obj, KUBERNETES, strict=True)
        except kubernetes_validate.ValidationError as e:
            return "failed", error_text(e)
        except kubernetes_validate.SchemaNotFoundError as e:
            return "failed", e.message
        return "ok", f"Kubernetes {KUBERNETES}"
    path = schemas / group / api.rpartition("/")[2] / f"{kind}.json"
    if not path.exists():
        return "failed", f"no schema for {api} {kind} in {schemas} (run helm/build.sh)"
    schema = json.loads(path.read_text())
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(obj), key=lambda e: list(e.absolute_path))
    if errors:
        return "failed", "; ".join(error_text(e) for e in errors[:5])
    return "ok", str(path.relative_to(schemas))


def validate_all(objs: list[dict], schemas: pathlib.Path) -> list[tuple[dict, str, str]]:
    return [(o, *validate(o, schemas)) for o in objs]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--schemas", type=pathlib.Path, default=ROOT / ".cheetah" / "helm-schemas")
    ap.add_argument("rendered", type=pathlib.Path)
    args = ap.parse_args(argv)
    bad = 0
    for obj, status, detail in validate_all(load(args.rendered), args.schemas):
        name = f"{obj.get('kind')}/{obj.get('metadata', {}).get('name')}"
        print(f"{status:11} {name}: {detail}")
        bad += status == "failed"
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
