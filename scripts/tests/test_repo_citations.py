"""A clone alone explains Cheetah: nothing cites a file outside the repository or a machine path,
and every link and section citation inside it resolves (docs/ARCHITECTURE.md, "Kafka topics").

Checked over the tracked files (git ls-files), so what a clone gets is what is checked:
- no citation of the old external notes, and no absolute path of a particular machine;
- ARCHITECTURE.md and ENVIRONMENT.md are cited as docs/..., and outside Markdown with the section
  (`docs/ARCHITECTURE.md, "Prefix filters"`), which must be a heading of that file;
- every relative Markdown link points to a tracked file, and its #anchor to one of its headings;
- README.md and docs/ name only topics of schemas/topics.yaml and only keys of the config model.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

FORBIDDEN = {
    "../shared": "the old external notes: cite docs/ARCHITECTURE.md or docs/ENVIRONMENT.md",
    "ENVIRONMENT-NOTES": "the old external notes: cite docs/ENVIRONMENT.md and its section",
    "/work/": "a path on one machine: cite a path inside the repository",
    "/root/": "a path on one machine: cite a path inside the repository",
    "/home/": "a path on one machine: cite a path inside the repository",
}

# Lines allowed to keep a forbidden string, exactly as they are: {path: {line}}. An entry whose
# line is gone fails the test, so that the exception is removed with the line.
ALLOWED: dict[str, set[str]] = {}

CITED_DOCS = ("ARCHITECTURE.md", "ENVIRONMENT.md")
# Migrations applied before the contract moved into the repo are never edited: deployed warehouses
# keep each file's checksum and warn when it changes. In them a bare ARCHITECTURE.md means
# docs/ARCHITECTURE.md; the sections they cite must still exist.
APPLIED_MIGRATIONS = re.compile(r"^clickhouse/migrations/00(0[1-9]|1[0-7])_\w+\.sql$")
CITATION = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*)(ARCHITECTURE|ENVIRONMENT)\.md")
# What may stand between a citation and its quoted section(s), and between two sections: spaces,
# punctuation, "and", and the leader of a wrapped comment line.
LEADER = r"(?:\n[ \t]*(?:\*|//|#|--|;)?)"
BETWEEN = re.compile(rf"(?:[ \t,:(]|{LEADER}|\band\b)*")
QUOTED = re.compile(rf'\\?"((?:[^"\\\n]|{LEADER})+?)\\?"')
# A dotted key of the config model; not a wildcard (`link-stats.*`), a path or a host name.
CONFIG_KEY = re.compile(r"(?<![\w.-])((?:detection|kafka|flink|netflow|warehouse|link-stats|thresholds|redirects)\.[a-z0-9-]+)(?![\w.*/-])")
TOPIC = re.compile(r"(?<![\w./-])([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*\.v[0-9]+)(?![\w-])")
LINK = re.compile(r"\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")


def tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=30).stdout
    return [p for p in out.decode().split("\0") if p]


def text_of(path: str) -> str | None:
    """The file's text, or None for a binary file or one that is not in the working tree."""
    try:
        data = (ROOT / path).read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def without_fences(text: str) -> str:
    """The text with fenced code blocks blanked (lines keep their numbers)."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else line)
    return "\n".join(out)


def markdown_body(text: str) -> str:
    """The prose: no fenced code blocks, inline code spans blanked."""
    return re.sub(r"`[^`\n]*`", lambda m: " " * len(m.group(0)), without_fences(text))


def headings(text: str) -> list[str]:
    return [m.group(1).strip().rstrip("#").strip() for m in re.finditer(r"^#{1,6}[ \t]+(.+)$", without_fences(text), re.M)]


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, links reduced to their text, punctuation dropped, spaces to dashes."""
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", h).replace(" ", "-")


def anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for h in headings(text):
        s = slug(h)
        n = seen.get(s, 0)
        out.add(s if n == 0 else f"{s}-{n}")
        seen[s] = n + 1
    return out


def normal(section: str) -> str:
    return " ".join(re.sub(LEADER, " ", section).split()).lower()


def line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def forbidden_citations(files: dict[str, str]) -> list[str]:
    found, used = [], set()
    for path, text in files.items():
        for n, line in enumerate(text.split("\n"), 1):
            for needle, why in FORBIDDEN.items():
                if needle in line:
                    if line.strip() in ALLOWED.get(path, set()):
                        used.add((path, line.strip()))
                    else:
                        found.append(f"{path}:{n}: {needle!r}: {why}: {line.strip()}")
    for path, lines in ALLOWED.items():
        for line in lines:
            if (path, line) not in used:
                found.append(f"{path}: the allowed line {line!r} is gone: delete its entry from ALLOWED")
    return found


def section_citations(files: dict[str, str]) -> list[str]:
    """Every mention of ARCHITECTURE.md / ENVIRONMENT.md: the repo's own, and sections that exist."""
    sections = {doc: {normal(h) for h in headings(files.get(f"docs/{doc}", ""))} for doc in CITED_DOCS}
    bad = []
    for path, text in files.items():
        is_doc_md = path.startswith("docs/") and path.endswith(".md")
        for m in CITATION.finditer(text):
            doc = f"{m.group(2)}.md"
            where = f"{path}:{line_of(text, m.start())}"
            prefix = m.group(1)
            resolved = (Path(path).parent / prefix / doc).as_posix() if prefix else None
            # docs/X.md from the root; ../docs/X.md from a folder; X.md only beside it, in docs/.
            bare_ok = is_doc_md or APPLIED_MIGRATIONS.match(path) is not None
            if not (prefix == "docs/" or (resolved and _normpath(resolved) == f"docs/{doc}") or (not prefix and bare_ok)):
                bad.append(f"{where}: {m.group(0)!r} is not the repo's docs/{doc}: write docs/{doc}")
                continue
            pos, cited = m.end(), []
            if text.startswith("#", pos):  # a link's anchor: the link check resolves it
                continue
            while True:
                gap = BETWEEN.match(text, pos)
                q = QUOTED.match(text, gap.end())
                if not q:
                    break
                cited.append(q.group(1))
                pos = q.end()
            if not cited and not path.endswith(".md") and not APPLIED_MIGRATIONS.match(path):
                bad.append(f"{where}: cite the section too: docs/{doc}, \"Heading\"")
            for s in cited:
                if normal(s) not in sections[doc]:
                    bad.append(f"{where}: docs/{doc} has no section {s!r}")
    return bad


def _normpath(p: str) -> str:
    parts: list[str] = []
    for part in p.split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)


def broken_links(files: dict[str, str], paths: set[str]) -> list[str]:
    dirs = {"/".join(p.split("/")[:i]) for p in paths for i in range(1, p.count("/") + 1)}
    bad = []
    for path, text in files.items():
        if not path.endswith(".md"):
            continue
        body = markdown_body(text)
        for m in LINK.finditer(body):
            target = m.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # https:, mailto:
            where = f"{path}:{line_of(body, m.start())}"
            file_part, _, anchor = target.partition("#")
            goal = _normpath(f"{Path(path).parent.as_posix()}/{file_part}") if file_part else path
            if goal not in paths and goal not in dirs:
                bad.append(f"{where}: link to {target!r}: {goal} is not a tracked file")
                continue
            if anchor and (not goal.endswith(".md") or anchor not in anchors(files.get(goal, ""))):
                bad.append(f"{where}: link to {target!r}: {goal} has no heading with anchor #{anchor}")
    return bad


def manifest_topics() -> set[str]:
    text = (ROOT / "schemas/topics.yaml").read_text()
    return set(re.findall(r"^\s*-\s*name:\s*(\S+)\s*$", text, re.M))


def unknown_topics(files: dict[str, str]) -> list[str]:
    topics = manifest_topics()
    packages = set()
    for path, text in files.items():
        if path.startswith("schemas/") and path.endswith(".proto"):
            packages.update(re.findall(r"^package\s+([\w.]+);", text, re.M))
    bad = []
    for path, text in files.items():
        if not path.endswith(".md"):
            continue
        for m in TOPIC.finditer(text):
            name = m.group(1)
            if name not in topics and name not in packages:
                bad.append(f"{path}:{line_of(text, m.start())}: {name!r} is not a topic of schemas/topics.yaml")
    return bad


def config_keys(files: dict[str, str]) -> set[str]:
    model = [p for p in files if p.endswith("/CheetahConfig.java") and "/src/main/" in p]
    assert len(model) == 1, f"expected one config model (CheetahConfig.java), found {model}"
    # Each key is declared once, as Key.<kind>("name", default, ...) beside its record.
    keys = set(re.findall(r'\bKey\.\w+\(\s*"([^"]+)"', files[model[0]]))
    assert len(keys) > 20, f"read only {len(keys)} keys from {model[0]}: has the defaults' form changed?"
    return keys


def unknown_config_keys(files: dict[str, str]) -> list[str]:
    keys = config_keys(files)
    not_keys = manifest_topics() | {"redirects.proto"}  # topic names and a file name share the shape
    bad = []
    for path, text in files.items():
        if not (path == "README.md" or (path.startswith("docs/") and path.endswith(".md"))):
            continue
        for span in re.finditer(r"`([^`\n]+)`", text):
            for m in CONFIG_KEY.finditer(span.group(1)):
                if m.group(1) not in keys and m.group(1) not in not_keys:
                    bad.append(f"{path}:{line_of(text, span.start())}: `{m.group(1)}` is not a key of the config model")
    return bad


# This file is not scanned: its checks of the checks below are made of the very citations it
# forbids.
SELF = Path(__file__).resolve().relative_to(ROOT).as_posix()


def repo() -> tuple[dict[str, str], set[str]]:
    paths = tracked()
    files = {p: t for p in paths if p != SELF and (t := text_of(p)) is not None}
    return files, set(paths)


def test_no_citation_outside_the_repository() -> None:
    files, _ = repo()
    assert forbidden_citations(files) == []


def test_architecture_and_environment_citations_name_existing_sections() -> None:
    files, _ = repo()
    assert "docs/ARCHITECTURE.md" in files and "docs/ENVIRONMENT.md" in files
    assert section_citations(files) == []


def test_markdown_links_resolve() -> None:
    files, paths = repo()
    assert broken_links(files, paths) == []


def test_docs_name_only_manifest_topics_and_config_keys() -> None:
    files, _ = repo()
    assert unknown_topics(files) + unknown_config_keys(files) == []


# The checks themselves, on inputs whose verdict is known by construction.


def test_the_checks_catch_what_they_are_for() -> None:
    docs = "# T\n## Kafka topics\n## Prefix filters\n"
    files = {
        "docs/ARCHITECTURE.md": docs,
        "docs/ENVIRONMENT.md": "# E\n## goflow2 v2.2.6\n",
        "a.java": ' * (docs/ARCHITECTURE.md, "Prefix filters"), and\n * docs/ARCHITECTURE.md ("Kafka\n * topics").\n',
        "b.c": '"per docs/ARCHITECTURE.md \\"Prefix filters\\", and"\n',
        "c.go": "// docs/ENVIRONMENT.md, \"goflow2 v2.2.6\" and docs/ENVIRONMENT.md, \"gone\"\n",
        "d.py": "# ARCHITECTURE.md, \"Kafka topics\"\n# docs/ARCHITECTURE.md without a section\n",
        "e.sql": "-- see ../shared/ARCHITECTURE.md\n",
        "docs/X.md": "[a](ARCHITECTURE.md#prefix-filters) [b](ARCHITECTURE.md#nope) [c](../missing.md) `[d](nope.md)`\n",
    }
    cites = section_citations(files)
    assert [c.split(":")[0] for c in cites] == ["c.go", "d.py", "d.py", "e.sql"], cites
    assert "no section 'gone'" in cites[0] and "write docs/ARCHITECTURE.md" in cites[1]
    assert "cite the section too" in cites[2]
    links = broken_links(files, set(files))
    assert len(links) == 2 and "#nope" in links[0] and "missing.md" in links[1], links
    assert [f.split(":")[0] for f in forbidden_citations(files)] == ["e.sql"]


def test_anchors_follow_githubs_rule() -> None:
    assert slug("ClickHouse (chdb)") == "clickhouse-chdb"
    assert slug("goflow2 v2.2.6") == "goflow2-v226"
    assert slug("Embedded warehouse (`warehouse/`)") == "embedded-warehouse-warehouse"
    assert anchors("## A\n## A\n```\n## not a heading\n```\n") == {"a", "a-1"}
