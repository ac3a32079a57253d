"""Renders the chart with the pinned helm (helm/build.sh) for the tests."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest
import yaml

HELM_DIR = pathlib.Path(__file__).resolve().parent.parent
ROOT = HELM_DIR.parent
CHART = HELM_DIR / "cheetah"
sys.path.insert(0, str(HELM_DIR))

KUBE_VERSION = "1.37.0"
RENDERINGS = {
    "defaults": [],
    "production": ["-f", str(CHART / "values-production.yaml")],
    # The chart's Secrets, from obviously fake values.
    "secrets": ["-f", str(HELM_DIR / "tests" / "values-test-secrets.yaml")],
}


def helm_bin() -> str:
    helm = os.environ.get("CHEETAH_HELM", str(ROOT / ".cheetah" / "bin" / "helm"))
    if not os.access(helm, os.X_OK):
        pytest.fail(f"no helm at {helm}: run ./cheetah setup (helm/build.sh installs it)")
    return helm


def helm(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run([helm_bin(), *args], capture_output=True, text=True, timeout=240)
    if check and p.returncode != 0:
        pytest.fail(f"helm {' '.join(args)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p


def render_text(*extra: str) -> str:
    return helm("template", "cheetah", str(CHART), "--kube-version", KUBE_VERSION, *extra).stdout


def render(*extra: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(render_text(*extra)) if d]


@pytest.fixture(scope="session")
def rendered() -> dict[str, list[dict]]:
    return {name: render(*args) for name, args in RENDERINGS.items()}


def of_kind(objs: list[dict], kind: str) -> dict[str, dict]:
    return {o["metadata"]["name"]: o for o in objs if o["kind"] == kind}


@pytest.fixture(scope="session")
def schemas() -> pathlib.Path:
    d = pathlib.Path(os.environ.get("CHEETAH_HELM_SCHEMAS", ROOT / ".cheetah" / "helm-schemas"))
    if not (d / "SOURCES.json").exists():
        pytest.fail(f"no CRD schemas in {d}: run ./cheetah setup (helm/build.sh makes them)")
    return d
