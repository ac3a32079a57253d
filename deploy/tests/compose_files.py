"""Reading docker-compose.yml and the Dockerfiles of deploy/docker the way Compose and Docker do,
for the deploy suite's checks (no Docker engine here: every check is static)."""

from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILES = ROOT / "deploy" / "docker"

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}")


def interpolate(value, env: dict[str, str] | None = None):
    """Compose's ${VAR}, ${VAR:-default} and ${VAR-default}, with an empty environment by default
    (the values a fresh checkout gets), applied to every string of a loaded document."""
    env = env or {}
    if isinstance(value, str):
        return _VAR.sub(lambda m: env.get(m.group(1)) or (m.group(2) or ""), value)
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    return value


def load_compose(path: Path = COMPOSE) -> dict:
    return interpolate(yaml.safe_load(path.read_text()))


def command_args(service: dict) -> list[str]:
    cmd = service.get("command", [])
    return shlex.split(cmd) if isinstance(cmd, str) else [str(c) for c in cmd]


def flag_value(args: list[str], flag: str) -> str:
    """The value after `flag` (or of `flag=value`); '' when absent."""
    for i, a in enumerate(args):
        if a == flag and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(flag + "="):
            return a.split("=", 1)[1]
    return ""


@dataclass(frozen=True)
class Port:
    host_ip: str
    published: str
    target: int
    protocol: str


def ports(service: dict) -> list[Port]:
    """Published ports, short ("[IP:]HOST:CONTAINER[/PROTO]") or long syntax."""
    out = []
    for p in service.get("ports", []):
        if isinstance(p, dict):
            out.append(Port(str(p.get("host_ip", "")), str(p.get("published", "")), int(p["target"]),
                            p.get("protocol", "tcp")))
            continue
        spec, _, proto = str(p).partition("/")
        parts = spec.rsplit(":", 2)
        host_ip, published, target = (["", ""] + parts)[-3:] if len(parts) < 3 else parts
        out.append(Port(host_ip, published, int(target), proto or "tcp"))
    return out


def volumes(service: dict) -> list[tuple[str, str]]:
    """(source, target) of each volume, short or long syntax."""
    out = []
    for v in service.get("volumes", []):
        if isinstance(v, dict):
            out.append((str(v.get("source", "")), str(v["target"])))
        else:
            parts = str(v).split(":")
            out.append((parts[0], parts[1] if len(parts) > 1 else parts[0]))
    return out


@dataclass(frozen=True)
class Instruction:
    path: Path
    line: int
    keyword: str
    args: str


def dockerfiles() -> list[Path]:
    return sorted(DOCKERFILES.glob("*.Dockerfile"))


def instructions(path: Path) -> list[Instruction]:
    """A Dockerfile's instructions: comments dropped, backslash continuations joined."""
    out: list[Instruction] = []
    buf, start = "", 0
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if buf and line.startswith("#"):
            continue
        if not buf:
            start = n
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        keyword, _, args = buf.partition(" ")
        out.append(Instruction(path, start, keyword.upper(), args.strip()))
        buf = ""
    return out


def copy_sources(ins: Instruction) -> list[str] | None:
    """Sources of a COPY/ADD from the build context; None for COPY --from (another stage/image)."""
    words = shlex.split(ins.args)
    if any(w.startswith("--from") for w in words):
        return None
    words = [w for w in words if not w.startswith("--")]
    return words[:-1]


def git_tracked(path: str) -> bool:
    out = subprocess.run(["git", "ls-files", "--", path], cwd=ROOT, capture_output=True, text=True, check=True)
    return bool(out.stdout.strip())


def git_ignored(path: str) -> bool:
    return subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=ROOT).returncode == 0
