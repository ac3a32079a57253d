"""docker-compose.yml and deploy/docker/*.Dockerfile against the repository they deploy.

No Docker engine runs here, so nothing is built or started: these checks read the files and the
sources of truth they must agree with (schemas/topics.yaml, clickhouse/, dashboards/, pom.xml,
./cheetah's APT_PINS) and fail naming the difference. docker-compose config, the compose-spec
schema and hadolint are the other checks of deploy/test.sh.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from compose_files import (
    ROOT, command_args, copy_sources, dockerfiles, flag_value, git_ignored, git_tracked, instructions,
    load_compose, ports, volumes,
)

sys.path.insert(0, str(ROOT / "deploy"))
import kafka_topics  # noqa: E402

MANIFEST = ROOT / "schemas" / "topics.yaml"
# An exact version in a tag: x.y.z (any suffix), or a dated Debian build (bookworm-20260803).
EXACT = re.compile(r"(^|[^0-9.])\d+\.\d+\.\d+|-\d{8}(-|$)")


@pytest.fixture(scope="module")
def compose() -> dict:
    return load_compose()


@pytest.fixture(scope="module")
def services(compose) -> dict:
    return compose["services"]


@pytest.fixture(scope="module")
def manifest() -> list[dict]:
    return yaml.safe_load(MANIFEST.read_text())["topics"]


def service_with(services: dict, predicate) -> tuple[str, dict]:
    found = [(n, s) for n, s in services.items() if predicate(s)]
    assert len(found) == 1, f"expected one such service, found {[n for n, _ in found]}"
    return found[0]


def dockerfile_of(service: dict) -> Path | None:
    build = service.get("build")
    if build is None:
        return None
    build = {"context": build} if isinstance(build, str) else build
    return ROOT / build.get("context", ".") / build.get("dockerfile", "Dockerfile")


def pom_property(name: str) -> str:
    m = re.search(rf"<{re.escape(name)}>([^<]+)</{re.escape(name)}>", (ROOT / "pom.xml").read_text())
    assert m, f"pom.xml has no <{name}>"
    return m.group(1)


def pinned_requirement(path: Path, package: str) -> str:
    for line in path.read_text().splitlines():
        name, sep, version = line.strip().partition("==")
        if sep and name.lower() == package.lower():
            return version
    raise AssertionError(f"{path.relative_to(ROOT)} pins no {package}")


def image_of(services: dict, repository: str) -> str:
    tags = {s["image"].rsplit(":", 1)[1] for s in services.values()
            if "build" not in s and s.get("image", "").rsplit(":", 1)[0] == repository}
    assert len(tags) == 1, f"{repository}: expected one pinned tag in docker-compose.yml, found {sorted(tags)}"
    return tags.pop()


def from_images() -> list[tuple[Path, int, str]]:
    """(Dockerfile, line, image) of every FROM or COPY --from that names an image, not a stage."""
    out = []
    for path in dockerfiles():
        stages: set[str] = set()
        for ins in instructions(path):
            if ins.keyword == "FROM":
                words = ins.args.split()
                words = [w for w in words if not w.startswith("--")]
                if words[0] not in stages:
                    out.append((path, ins.line, words[0]))
                if len(words) == 3 and words[1].upper() == "AS":
                    stages.add(words[2])
            elif ins.keyword == "COPY":
                m = re.search(r"--from=(\S+)", ins.args)
                if m and m.group(1) not in stages and not m.group(1).isdigit():
                    out.append((path, ins.line, m.group(1)))
    return out


# --- images ------------------------------------------------------------------------------------

def test_every_image_is_pinned_to_an_exact_version(services):
    bad = []
    for name, s in services.items():
        if "build" in s:
            assert s["image"].startswith("cheetah/"), f"{name}: a built image is named cheetah/..., got {s['image']}"
            continue
        image = s.get("image", "")
        repo, _, tag = image.rpartition(":")
        if not repo or "/" in tag or tag == "latest" or not EXACT.search(tag):
            bad.append(f"service {name}: {image}")
    for path, line, image in from_images():
        repo, _, tag = image.rpartition(":")
        if not repo or tag == "latest" or not EXACT.search(tag):
            bad.append(f"{path.relative_to(ROOT)}:{line}: {image}")
    assert not bad, "images without an exact version tag:\n  " + "\n  ".join(bad)


def test_images_are_the_versions_the_repository_pins(services):
    assert image_of(services, "apache/kafka") == pom_property("kafka.version"), "apache/kafka vs pom.xml kafka.version"
    superset = pinned_requirement(ROOT / "dashboards" / "requirements.txt", "apache-superset")
    superset_from = [img for p, _, img in from_images() if img.startswith("apache/superset:")]
    assert superset_from == [f"apache/superset:{superset}"], f"superset image vs dashboards/requirements.txt {superset}"
    flink = pom_property("flink.version")
    flink_from = [img for p, _, img in from_images() if img.startswith("flink:")]
    assert flink_from and all(img.startswith(f"flink:{flink}-") and img.endswith("-java17") for img in flink_from), \
        f"Flink images {flink_from} vs pom.xml flink.version {flink} (Java 17)"
    for module in ("ingest/goflow2", "ingest/snmp"):
        want = re.search(r"^go (\d+\.\d+)", (ROOT / module / "go.mod").read_text(), re.M).group(1)
        for _, _, img in from_images():
            if img.startswith("golang:"):
                assert img.split(":")[1].startswith(want + "."), f"{img} vs {module}/go.mod go {want}"


def test_apt_pins_of_the_images_agree_with_the_setup():
    setup = (ROOT / "cheetah").read_text()
    block = setup[setup.index("APT_PINS=("):]
    block = block[: block.index("\n)")]
    pins = dict(re.findall(r'"([a-z0-9.+-]+)=([^"]+)"', block))
    assert pins, "no APT_PINS found in ./cheetah"
    bad = []
    for path in dockerfiles():
        for ins in instructions(path):
            if ins.keyword == "RUN" and "apt-get install" in ins.args:
                for name, version in re.findall(r"\b([a-z0-9][a-z0-9.+-]+)=(\S+)", ins.args):
                    if name in pins and pins[name] != version:
                        bad.append(f"{path.name}:{ins.line}: {name}={version}, APT_PINS {pins[name]}")
    assert not bad, "\n".join(bad)


# --- builds ------------------------------------------------------------------------------------

def test_every_build_uses_the_repository_root_and_an_existing_dockerfile(services):
    for name, s in services.items():
        df = dockerfile_of(s)
        if df is None:
            continue
        assert s["build"]["context"] == ".", f"{name}: build context must be the repository root"
        assert df.is_file(), f"{name}: {df.relative_to(ROOT)} does not exist"
        assert df.parent == ROOT / "deploy" / "docker", f"{name}: Dockerfiles live in deploy/docker"


def test_every_dockerfile_is_used(services):
    used = {dockerfile_of(s) for s in services.values()} - {None}
    unused = [p.name for p in dockerfiles() if p not in used]
    assert not unused, f"Dockerfiles no service builds: {unused}"


def test_every_copy_source_exists_in_the_repository():
    ignored = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")]
    bad = []
    for path in dockerfiles():
        for ins in instructions(path):
            if ins.keyword not in ("COPY", "ADD"):
                continue
            sources = copy_sources(ins)
            for src in sources or []:
                where = f"{path.relative_to(ROOT)}:{ins.line}: {src}"
                if src.startswith(("http://", "https://")):
                    bad.append(f"{where}: fetched at build time, not from the repository")
                elif not (ROOT / src).exists() or not git_tracked(src):
                    bad.append(f"{where}: not in the repository (git ls-files)")
                elif any(src == pat.strip("/") or src.startswith(pat.strip("/") + "/") for pat in ignored):
                    bad.append(f"{where}: excluded by .dockerignore")
    assert not bad, "COPY sources missing from the build context:\n  " + "\n  ".join(bad)


# Host paths a service may bind on purpose, with why; any other absolute source must be in the repo.
HOST_PATHS = {"/sys/fs/bpf": "adapter-incast pins the guard's maps on the host's bpf filesystem"}


def test_every_bind_mount_source_exists(services):
    bad = []
    for name, s in services.items():
        for source, _ in volumes(s):
            if source in HOST_PATHS and name == "adapter-incast":
                continue
            if source.startswith((".", "/")):
                rel = source[2:] if source.startswith("./") else source
                if not (ROOT / rel).exists() or not git_tracked(rel):
                    bad.append(f"{name}: {source}")
    assert not bad, f"bind mounts of files not in the repository: {bad}"


# --- Kafka -------------------------------------------------------------------------------------

def internal_bootstrap(services) -> str:
    env = services["kafka"]["environment"]
    advertised = dict(l.split("://", 1) for l in env["KAFKA_ADVERTISED_LISTENERS"].split(","))
    return advertised[env["KAFKA_INTER_BROKER_LISTENER_NAME"]]


def test_kafka_is_kraft_without_auto_created_topics(services):
    env = services["kafka"]["environment"]
    assert set(env["KAFKA_PROCESS_ROLES"].split(",")) == {"broker", "controller"}
    assert env["KAFKA_AUTO_CREATE_TOPICS_ENABLE"] == "false", "topics come from the manifest only"
    host = [l for l in env["KAFKA_ADVERTISED_LISTENERS"].split(",") if l.startswith("HOST://")]
    assert host, "no HOST listener for programs on the host"
    port = host[0].rsplit(":", 1)[1]
    assert any(p.published == port and p.host_ip == "127.0.0.1" for p in ports(services["kafka"])), \
        f"the HOST listener's port {port} is not published on 127.0.0.1"


def test_every_container_reaches_kafka_on_its_internal_listener(services):
    bootstrap = internal_bootstrap(services)
    flags = ("--bootstrap", "--kafka-brokers", "-transport.kafka.brokers", "-rejected.kafka.brokers", "--brokers")
    bad = []
    for name, s in services.items():
        if s.get("network_mode") == "host":
            continue  # host network: the HOST listener (checked above)
        args = command_args(s)
        for f in flags:
            v = flag_value(args, f)
            if v and v != bootstrap:
                bad.append(f"{name} {f} {v}")
        v = s.get("environment", {}).get("CHEETAH_KAFKA_BROKERS")
        if v and v != bootstrap:
            bad.append(f"{name} CHEETAH_KAFKA_BROKERS={v}")
    props = (ROOT / "deploy" / "compose" / "jobs.properties").read_text()
    m = re.search(r"^kafka\.bootstrap=(.*)$", props, re.M)
    if not m or m.group(1).strip() != bootstrap:
        bad.append(f"deploy/compose/jobs.properties kafka.bootstrap={m and m.group(1)}")
    assert not bad, f"not Kafka's internal listener {bootstrap}: {bad}"


def topics_service(services) -> tuple[str, dict]:
    return service_with(services, lambda s: any(a.endswith("kafka_topics.py") for a in command_args(s)))


def test_every_manifest_topic_is_created_as_the_manifest_says(services, manifest):
    name, s = topics_service(services)
    args = command_args(s)
    # The service reads the manifest the tools image carries: schemas/ copied to where --manifest says.
    target = flag_value(args, "--manifest")
    df = dockerfile_of(s)
    copies = {ins.args.split()[-1].rstrip("/"): ins.args.split()[0] for ins in instructions(df)
              if ins.keyword == "COPY" and copy_sources(ins)}
    assert copies.get(str(Path(target).parent)) == "schemas", \
        f"{name}: --manifest {target} is not schemas/topics.yaml in {df.name}"
    layout = kafka_topics.Layout(
        int(flag_value(args, "--partitions")), int(flag_value(args, "--high-volume-partitions")),
        int(float(flag_value(args, "--retention-hours")) * 3_600_000), int(flag_value(args, "--retention-bytes")),
        int(flag_value(args, "--replication-factor") or 1), None)
    plans = {p.name: p for p in kafka_topics.plan(kafka_topics.load_manifest(MANIFEST), layout)}
    # Expected values straight from the manifest's fields, topic by topic.
    assert sorted(plans) == sorted(t["name"] for t in manifest), "the topics created are not the manifest's"
    for t in manifest:
        p = plans[t["name"]]
        want_partitions = layout.high_volume_partitions if t["volume"] == "high" else layout.partitions
        assert p.partitions == want_partitions, f"{t['name']}: {p.partitions} partitions"
        assert p.config["cleanup.policy"] == t["cleanup"], f"{t['name']}: cleanup {p.config}"
        if t["cleanup"] == "compact":
            assert "retention.ms" not in p.config, f"{t['name']}: a compacted topic is never aged out"
        else:
            days = t.get("min_retention_days") or 0
            assert int(p.config["retention.ms"]) >= max(layout.retention_ms, days * 86_400_000), t["name"]


def test_topic_plan_by_hand():
    """The layout rules on a two-topic manifest whose answer is known by hand."""
    topics = [
        {"name": "a.v1", "volume": "high", "cleanup": "delete"},
        {"name": "b.v1", "volume": "low", "cleanup": "compact"},
        {"name": "c.v1", "volume": "low", "cleanup": "delete", "min_retention_days": 31},
    ]
    layout = kafka_topics.Layout(1, 4, 48 * 3_600_000, 1 << 30, 1, 2)
    got = {p.name: (p.partitions, p.config) for p in kafka_topics.plan(topics, layout)}
    assert got == {
        "a.v1": (4, {"cleanup.policy": "delete", "retention.ms": "172800000", "retention.bytes": "1073741824",
                     "min.insync.replicas": "2"}),
        "b.v1": (1, {"cleanup.policy": "compact", "min.insync.replicas": "2"}),
        "c.v1": (1, {"cleanup.policy": "delete", "retention.ms": "2678400000", "retention.bytes": "-1",
                     "min.insync.replicas": "2"}),
    }


def test_topic_names_in_the_compose_file_are_manifest_topics(manifest):
    names = {t["name"] for t in manifest}
    text = (ROOT / "docker-compose.yml").read_text()
    used = set(re.findall(r"\b[a-z]+(?:\.[a-z]+)*\.v\d+\b", text))
    assert used and used <= names, f"not in schemas/topics.yaml: {sorted(used - names)}"


# --- the collector -----------------------------------------------------------------------------

def collector(services) -> tuple[str, dict]:
    return service_with(services, lambda s: "collector.Dockerfile" in str(dockerfile_of(s)))


def test_every_udp_port_of_the_collector_is_published(services):
    name, s = collector(services)
    listen = flag_value(command_args(s), "-listen")
    assert listen, f"{name}: no -listen"
    wanted = {urlsplit(u).port for u in listen.split(",")}
    assert None not in wanted, f"{name}: a -listen address without a port: {listen}"
    published = {p.target for p in ports(s) if p.protocol == "udp"}
    assert wanted <= published, f"{name}: UDP ports {sorted(wanted - published)} of -listen are not published"
    for u in listen.split(","):
        assert urlsplit(u).hostname in ("0.0.0.0", "::", ""), f"{name}: {u} listens inside the container only"


def test_the_collector_writes_the_manifest_topics(services, manifest):
    name, s = collector(services)
    args = command_args(s)
    by_id = {t["id"]: t for t in manifest}
    assert "collector" in by_id["goflow2"]["producers"]
    assert flag_value(args, "-transport.kafka.topic") == by_id["goflow2"]["name"]
    assert flag_value(args, "-rejected.kafka.topic") == by_id["rejected"]["name"]
    assert flag_value(args, "-format") == "bin", "flows.goflow2.v1 carries goflow2's length-prefixed bin format"
    # sFlow too (a fabric's switches), its interface counters on the SNMP counters topic.
    assert "collector" in by_id["snmp_counters"]["producers"]
    assert {urlsplit(u).scheme for u in flag_value(args, "-listen").split(",")} == {"netflow", "sflow"}
    assert flag_value(args, "-counters.kafka.topic") == by_id["snmp_counters"]["name"]


# --- ClickHouse --------------------------------------------------------------------------------

def clickhouse(services) -> tuple[str, dict]:
    return service_with(services, lambda s: s.get("image", "").startswith("clickhouse/clickhouse-server:"))


def test_clickhouse_reads_the_schemas_and_commits_only(services):
    name, s = clickhouse(services)
    mounts = dict((t, src) for src, t in volumes(s))
    config_file = next(src for src, t in volumes(s) if "/config.d/" in t)
    config = ET.parse(ROOT / config_file).getroot()
    schema_path = config.findtext("format_schema_path").rstrip("/")
    assert mounts.get(schema_path) == "./schemas", \
        f"{name}: format_schema_path {schema_path} must be schemas/ (clickhouse/README.md, server requirements)"
    assert config.findtext("kafka/isolation_level") == "read_committed"


def test_clickhouse_has_every_users_file_unchanged(services):
    name, s = clickhouse(services)
    mounted = {src for src, t in volumes(s) if "/users.d/" in t}
    wanted = {f"./clickhouse/users.d/{p.name}" for p in (ROOT / "clickhouse" / "users.d").glob("*.xml")}
    assert wanted and wanted <= mounted, f"{name}: users.d files not mounted: {sorted(wanted - mounted)}"


def dashboards_user() -> str:
    users = ET.parse(ROOT / "clickhouse" / "users.d" / "cheetah-dashboards.xml").getroot().find("users")
    readonly = [u.tag for u in users if u.findtext("profile")]
    assert len(readonly) == 1
    return readonly[0]


def test_the_override_names_the_read_only_user():
    text = (ROOT / "deploy" / "compose" / "clickhouse" / "entrypoint.sh").read_text()
    assert f"<{dashboards_user()}>" in text, "the compose override names another user than clickhouse/users.d"


def run_override(tmp_path: Path, env: dict[str, str]):
    """deploy/compose/clickhouse/entrypoint.sh outside a container: secrets and users.d in tmp_path,
    `true` in place of the image's entrypoint."""
    import subprocess

    users_d = tmp_path / "users.d"
    users_d.mkdir(exist_ok=True)
    return subprocess.run(
        ["bash", str(ROOT / "deploy" / "compose" / "clickhouse" / "entrypoint.sh")],
        env={"PATH": "/usr/bin:/bin", "CHEETAH_SECRETS": str(tmp_path / "secrets"), "CHEETAH_USERS_D": str(users_d),
             "CHEETAH_NEXT_ENTRYPOINT": "true", **env},
        capture_output=True, text=True, timeout=30,
    ), users_d / "zz-cheetah-compose.xml"


def test_the_admin_is_hashed_and_reachable_only_from_loopback_and_the_migrate_step(services, tmp_path):
    """The image writes the admin ($CLICKHOUSE_USER) with its password in plain text and every
    network; the override removes the password, puts its SHA-256 in its place and narrows the
    networks to the container's loopback and the migrate service. Hashes computed here by hand."""
    import hashlib

    name, ch = clickhouse(services)
    migrate_name, migrate = service_with(services, lambda s: "migrate.sh" in " ".join(command_args(s)))
    admin = ch["environment"]["CLICKHOUSE_USER"]
    assert migrate["environment"]["CHEETAH_CLICKHOUSE_USER"] == admin
    assert ch["environment"]["CLICKHOUSE_PASSWORD_FILE"] == "/run/secrets/clickhouse_admin_password"
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "clickhouse_admin_password").write_text("admin s3cret\n")
    (secrets / "clickhouse_dashboards_password").write_text("dash s3cret\n")
    result, override = run_override(tmp_path, {"CLICKHOUSE_USER": admin})
    assert result.returncode == 0, result.stderr
    users = ET.parse(override).getroot().find("users")
    user = users.find(admin)
    removed = user.find("password")
    assert removed is not None and removed.get("remove") == "remove" and not (removed.text or "").strip(), \
        "the image's plain-text <password> must be removed"
    assert user.findtext("password_sha256_hex") == hashlib.sha256(b"admin s3cret").hexdigest()
    networks = user.find("networks")
    assert networks.get("replace") == "replace", "the image's ::/0 must be replaced, not added to"
    assert sorted((e.tag, e.text) for e in networks) == [("host", migrate_name), ("ip", "127.0.0.1"), ("ip", "::1")]
    dashboards = users.find(dashboards_user())
    assert dashboards.findtext("password_sha256_hex") == hashlib.sha256(b"dash s3cret").hexdigest()
    assert "admin s3cret" not in override.read_text() and "dash s3cret" not in override.read_text()


def test_the_override_refuses_a_missing_secret(tmp_path):
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "clickhouse_dashboards_password").write_text("dash\n")
    result, override = run_override(tmp_path, {"CLICKHOUSE_USER": "cheetah"})
    assert result.returncode != 0 and not override.exists()
    assert "the secret clickhouse_admin_password" in result.stderr and "is missing or empty" in result.stderr


def test_migrations_run_against_the_server_with_the_repository_migrations(services):
    name, s = service_with(services, lambda s: "migrate.sh" in " ".join(command_args(s)))
    df = dockerfile_of(s)
    sources = [copy_sources(i) for i in instructions(df) if i.keyword == "COPY"]
    assert ["clickhouse/migrations"] in sources, f"{df.name} does not carry clickhouse/migrations"
    _, ch = clickhouse(services)
    url = urlsplit(s["environment"]["CHEETAH_CLICKHOUSE_URL"])
    assert url.hostname == _service_name(services, ch) and url.port == 8123
    assert s["environment"]["CHEETAH_CLICKHOUSE_DATABASE"] == ch["environment"]["CLICKHOUSE_DB"]
    depends = s.get("depends_on", {})
    assert depends.get(_service_name(services, ch), {}).get("condition") == "service_healthy"
    assert depends.get(topics_service(services)[0], {}).get("condition") == "service_completed_successfully", \
        "the Kafka tables need their topics"


def _service_name(services, service) -> str:
    return next(n for n, s in services.items() if s is service)


# --- Superset ----------------------------------------------------------------------------------

def test_superset_imports_the_dashboards_as_the_read_only_user(services):
    init_name, init = service_with(services, lambda s: "init.sh" in " ".join(command_args(s))
                                   and "superset" in str(dockerfile_of(s)))
    server_name, server = service_with(services, lambda s: "run.sh" in " ".join(command_args(s)))
    init_sh = (ROOT / "deploy" / "docker" / "superset" / "init.sh").read_text()
    assert "cheetah_dashboards import" in init_sh
    assert f"http://{dashboards_user()}:" in init_sh, "Superset must connect as the read-only user"
    _, ch = clickhouse(services)
    assert init["environment"]["CHEETAH_WAREHOUSE_DATABASE"] == ch["environment"]["CLICKHOUSE_DB"]
    assert init["environment"]["CHEETAH_WAREHOUSE_HOST"] == f"{_service_name(services, ch)}:8123"
    assert set(init["secrets"]) & set(ch["secrets"]) >= {"clickhouse_dashboards_password"}
    home = {t: src for src, t in volumes(init)}
    assert {t: src for src, t in volumes(server)}.get("/app/superset_home") == home.get("/app/superset_home") != None
    copies = {tuple(copy_sources(i) or ()) for i in instructions(dockerfile_of(init)) if i.keyword == "COPY"}
    for needed in ("dashboards/bundles", "dashboards/cheetah_dashboards", "clickhouse/queries"):
        assert (needed,) in copies, f"the Superset image lacks {needed}"


# --- profiles, secrets -------------------------------------------------------------------------

def test_profiles_for_the_probe_the_poller_and_every_adapter(services):
    def profiled(dockerfile: str) -> list[dict]:
        return [s for s in services.values() if dockerfile in str(dockerfile_of(s))]
    probe = profiled("probe.Dockerfile")
    assert probe and all("probe" in s.get("profiles", []) for s in probe)
    poller = profiled("snmp-poller.Dockerfile")
    assert poller and all("snmp" in s.get("profiles", []) for s in poller)
    adapters = profiled("adapters.Dockerfile")
    assert adapters and all("adapters" in s.get("profiles", []) for s in adapters)
    targets = set(re.findall(r'Target\(\s*"([a-z]+)"', "".join(
        p.read_text() for p in (ROOT / "adapters" / "cheetah_adapters" / "targets").glob("*.py"))))
    have = {flag_value(command_args(s), "--target") for s in adapters}
    assert targets and targets == have, f"adapter targets {sorted(targets)}, services for {sorted(have)}"
    core = [n for n, s in services.items() if not s.get("profiles")]
    assert not [n for n in core if n in ("probe", "snmp-poller")], "optional parts must sit behind a profile"


def test_secrets_are_files_outside_git(compose, services):
    secrets = compose["secrets"]
    for name, spec in secrets.items():
        rel = spec["file"][2:] if spec["file"].startswith("./") else spec["file"]
        assert not git_tracked(rel), f"secret {name}: {rel} is committed"
        assert git_ignored(rel), f"secret {name}: {rel} is not git-ignored"
    used = {x if isinstance(x, str) else x["source"] for s in services.values() for x in s.get("secrets", [])}
    assert used == set(secrets), f"declared {sorted(secrets)}, used {sorted(used)}"
    # No password in plain sight: every *PASSWORD* variable points at a file.
    for name, s in services.items():
        for k, v in (s.get("environment") or {}).items():
            if "PASSWORD" in k:
                assert k.endswith("_FILE") and str(v).startswith("/run/secrets/"), f"{name}: {k}={v}"


def test_jobs_share_checkpoints_and_savepoints(services):
    props = dict(line.split("=", 1) for line in (ROOT / "deploy" / "compose" / "jobs.properties").read_text()
                 .splitlines() if line and not line.startswith("#"))
    volume_of = {}
    for n in ("jobmanager", "taskmanager", "flink-submit"):
        volume_of[n] = {t: src for src, t in volumes(services[n])}
    for key in ("flink.checkpoint-dir", "flink.savepoint-dir"):
        path = urlsplit(props[key]).path
        for n, mounts in volume_of.items():
            assert any(path.startswith(t + "/") and not src.startswith(".") for t, src in mounts.items()), \
                f"{key} {path} is not on a volume of {n}"
    keys = props["redirects.keys-file"]
    for n in volume_of:
        assert keys == f"/run/secrets/{'redirect_keys'}" and "redirect_keys" in services[n]["secrets"], n


def test_the_kafka_tables_find_their_topics_and_schemas_in_compose(services, manifest):
    """What the migrations' Kafka engine tables name must exist in this deployment: each topic is
    one kafka-topics creates (the manifest's), each kafka_schema a file under the directory mounted
    as ClickHouse's format_schema_path."""
    sql = "\n".join(p.read_text() for p in sorted((ROOT / "clickhouse" / "migrations").glob("*.sql")))
    topics = set(re.findall(r"kafka_topic_list\s*=\s*'([^']+)'", sql))
    schemas = set(re.findall(r"kafka_schema\s*=\s*'([^':]+):", sql))
    assert topics and schemas, "no Kafka engine table found in clickhouse/migrations"
    assert topics <= {t["name"] for t in manifest}, f"read by ClickHouse, never created: {sorted(topics - {t['name'] for t in manifest})}"
    name, s = clickhouse(services)
    config_file = next(src for src, t in volumes(s) if "/config.d/" in t)
    schema_path = ET.parse(ROOT / config_file).getroot().findtext("format_schema_path").rstrip("/")
    source = dict((t, src) for src, t in volumes(s))[schema_path]
    missing = [f for f in sorted(schemas) if not (ROOT / source / f).is_file()]
    assert not missing, f"{name}: kafka_schema files not under {source}: {missing}"


def test_the_submitter_runs_every_streaming_job(services):
    """CHEETAH_JOBS (the jobs flink-submit runs, by the name --job takes and Flink shows) is every
    job of the stack, StreamJob.stack(): each job declares its name once, as its NAME constant.
    (The jobs that run only when configured, StreamJob.all() beyond the stack, e.g. the fabric job
    with fabric.topology-file, are not in compose's default deployment.)"""
    jobs = ROOT / "flink-jobs" / "jobs" / "src" / "main" / "java" / "net" / "cheetah" / "jobs"
    stack = re.search(r"static List<StreamJob> stack\(\) \{(.*?)\n  \}", (jobs / "StreamJob.java").read_text(), re.S)
    assert stack, "no StreamJob.stack() found in flink-jobs/jobs"
    names = set()
    for cls in re.findall(r"new (\w+)\(\)", stack.group(1)):
        m = re.search(r'public static final String NAME = "([a-z-]+)";', (jobs / f"{cls}.java").read_text())
        assert m, f"{cls} declares no NAME constant"
        names.add(m.group(1))
    assert len(names) >= 6, f"too few jobs found in StreamJob.stack(): {sorted(names)}"
    _, submit = service_with(services, lambda s: "submit-jobs.sh" in " ".join(command_args(s)))
    listed = submit["environment"]["CHEETAH_JOBS"].split()
    assert len(listed) == len(set(listed)), f"a job listed twice: {listed}"
    assert set(listed) == names, f"CHEETAH_JOBS {sorted(listed)} vs the jobs' NAME constants {sorted(names)}"
