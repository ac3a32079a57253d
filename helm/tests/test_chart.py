"""The chart: lint, rendering, schemas of every object, and what it must say (docs/DEPLOY.md,
"Kubernetes (Helm)"). Expected values come from schemas/topics.yaml, values files and
clickhouse/users.d read here, never from the chart's own generated data."""
from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET

import pytest
import yaml

import gen_chart_data
import validate
from conftest import CHART, ROOT, RENDERINGS, helm, of_kind, render, render_text

MANIFEST = yaml.safe_load((ROOT / "schemas" / "topics.yaml").read_text())["topics"]
DEFAULTS = yaml.safe_load((CHART / "values.yaml").read_text())
PRODUCTION = yaml.safe_load((CHART / "values-production.yaml").read_text())
JOBS = {"cheetah-normalize", "cheetah-cheetahs", "cheetah-link-stats", "cheetah-thresholds", "cheetah-redirects", "cheetah-throughput"}


def merged(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        out[k] = merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


VALUES = {"defaults": DEFAULTS, "production": merged(DEFAULTS, PRODUCTION)}


@pytest.mark.parametrize("values", ["defaults", "production"])
def test_helm_lint(values):
    args = ["lint", "--strict", "--kube-version", "1.37.0", str(CHART)] + RENDERINGS[values]
    out = helm(*args).stdout
    assert "0 chart(s) failed" in out


@pytest.mark.parametrize("name", sorted(RENDERINGS))
def test_every_rendered_object_matches_the_schema_of_its_kind(rendered, schemas, name):
    results = validate.validate_all(rendered[name], schemas)
    failed = [f"{o['kind']}/{o['metadata']['name']}: {d}" for o, s, d in results if s == "failed"]
    assert not failed, "\n".join(failed)
    unvalidated = {(o["apiVersion"], o["kind"]) for o, s, _ in results if s == "unvalidated"}
    # Only the kinds documented as having no published schema go unvalidated.
    assert unvalidated <= set(validate.NO_PUBLISHED_SCHEMA)
    validated = {o["kind"] for o, s, _ in results if s == "ok"}
    assert {"Kafka", "KafkaNodePool", "KafkaTopic", "KafkaUser", "FlinkDeployment", "Deployment",
            "Service", "Job"} <= validated


def test_the_validator_rejects_what_the_operators_would(rendered, schemas):
    """A validator that cannot fail proves nothing: break rendered objects on purpose."""
    objs = rendered["defaults"]
    flink = copy.deepcopy(next(o for o in objs if o["kind"] == "FlinkDeployment"))
    flink["spec"]["job"]["upgradeMod"] = flink["spec"]["job"].pop("upgradeMode")
    topic = copy.deepcopy(next(o for o in objs if o["kind"] == "KafkaTopic"))
    topic["spec"]["partitions"] = "many"
    pool = copy.deepcopy(next(o for o in objs if o["kind"] == "KafkaNodePool"))
    pool["spec"]["roles"] = ["zookeeper"]
    service = copy.deepcopy(next(o for o in objs if o["kind"] == "Service"))
    service["spec"]["externalTraficPolicy"] = "Local"
    for broken, needle in ((flink, "upgradeMod"), (topic, "partitions"), (pool, "roles"),
                           (service, "externalTraficPolicy")):
        status, detail = validate.validate(broken, schemas)
        assert status == "failed" and needle in detail, (broken["kind"], status, detail)


def test_every_value_is_documented():
    """Each key of values.yaml has a comment: on the line itself or just above it."""
    lines = (CHART / "values.yaml").read_text().splitlines()
    missing = []
    for i, line in enumerate(lines):
        if not re.match(r"^\s*[A-Za-z0-9_.-]+:", line):
            continue
        above = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        if " #" not in line and not above.startswith("#"):
            missing.append(f"values.yaml:{i + 1}: {line.strip()}")
    assert not missing, "values without a comment:\n" + "\n".join(missing)


def test_the_charts_topic_data_is_what_the_manifest_generates():
    assert gen_chart_data.main(["--check"]) == 0, "run helm/gen_chart_data.py"


@pytest.mark.parametrize("name", ["defaults", "production"])
def test_every_manifest_topic_is_a_kafka_topic_with_its_layout(rendered, name):
    k = VALUES[name]["kafka"]
    topics = of_kind(rendered[name], "KafkaTopic")
    assert set(topics) == {t["name"] for t in MANIFEST}
    for t in MANIFEST:
        spec = topics[t["name"]]["spec"]
        assert spec["topicName"] == t["name"]
        assert spec["partitions"] == k["topics"]["highVolumePartitions" if t["volume"] == "high" else "lowVolumePartitions"]
        assert spec["replicas"] == k["topics"]["replicas"]
        cfg = spec["config"]
        assert cfg["cleanup.policy"] == t["cleanup"]
        assert cfg["min.insync.replicas"] == k["minInsyncReplicas"]
        if t["cleanup"] == "compact":
            assert "retention.ms" not in cfg
            continue
        days = t.get("min_retention_days", 0)
        assert cfg["retention.ms"] == max(k["topics"]["retentionHours"] * 3_600_000, days * 86_400_000)
        assert cfg["retention.bytes"] == (-1 if days else k["topics"]["retentionBytes"])
    assert topics["redirects.commands.v1"]["spec"]["config"]["retention.ms"] == 31 * 86_400_000
    assert topics["thresholds.v1"]["spec"]["config"]["cleanup.policy"] == "compact"


def test_a_kafka_user_per_component_may_write_what_it_produces_and_read_what_it_consumes(rendered):
    users = of_kind(rendered["defaults"], "KafkaUser")
    want: dict[str, dict[str, set]] = {}
    for t in MANIFEST:
        for role, op in (("producers", "Write"), ("consumers", "Read")):
            for c in t[role]:
                want.setdefault(gen_chart_data.USERS[c], {"Write": set(), "Read": set(), "built": False})
                want[gen_chart_data.USERS[c]][op].add(t["name"])
                want[gen_chart_data.USERS[c]]["built"] |= t.get("built", True)
    assert set(users) == {u for u, w in want.items() if w["built"]}
    for name, user in users.items():
        assert user["spec"]["authentication"]["type"] == "scram-sha-512"
        got = {"Write": set(), "Read": set()}
        for acl in user["spec"]["authorization"]["acls"]:
            r = acl["resource"]
            if r["type"] == "topic":
                assert r["patternType"] == "literal"
                op = "Write" if "Write" in acl["operations"] else "Read"
                assert set(acl["operations"]) == {op, "Describe"}
                got[op].add(r["name"])
            else:
                # Its own consumer groups and transactional ids only.
                assert r["patternType"] == "prefix" and r["name"] == name, acl
        assert got == {"Write": want[name]["Write"], "Read": want[name]["Read"]}, name
    assert users["cheetah-collector"]["spec"]["authorization"]["acls"][0]["resource"]["name"] == "flows.goflow2.v1"


@pytest.mark.parametrize("name", ["defaults", "production"])
def test_a_flink_deployment_per_job_in_application_mode(rendered, name):
    v = VALUES[name]
    deployments = of_kind(rendered[name], "FlinkDeployment")
    assert set(deployments) == JOBS
    base = v["objectStore"]["base"]
    for job, d in deployments.items():
        assert d["apiVersion"] == "flink.apache.org/v1beta1"
        spec = d["spec"]
        assert spec["flinkVersion"] == "v2_2"
        assert spec["flinkConfiguration"]["high-availability.type"] == "kubernetes"
        assert spec["flinkConfiguration"]["high-availability.storageDir"] == f"{base}/ha/{job}"
        assert spec["jobManager"]["replicas"] == v["flink"]["jobManager"]["replicas"]
        j = spec["job"]
        assert j["jarURI"] == "local:///opt/flink/usrlib/cheetah-jobs.jar"
        assert j["entryClass"] == "net.cheetah.jobs.JobMain"
        assert j["upgradeMode"] == "savepoint" and j["state"] == "running"
        assert j["args"][:2] == ["--job", job]
        sets = [j["args"][i + 1] for i, a in enumerate(j["args"]) if a == "--set"]
        assert f"flink.checkpoint-dir={base}/checkpoints/{job}" in sets
        assert f"flink.savepoint-dir={base}/savepoints/{job}" in sets
        assert "kafka.bootstrap=cheetah-kafka-bootstrap:9092" in sets
        for key, value in v["flink"]["config"].items():
            assert f"{key}={value}" in sets
        assert ("redirects.keys-file=/etc/cheetah/keys/redirects.json" in sets) == (job == "cheetah-redirects")
    key = {"cheetah-normalize": "normalize", "cheetah-cheetahs": "cheetahs"}
    for job, k in key.items():
        assert deployments[job]["spec"]["job"]["parallelism"] == v["flink"]["jobs"][k]["parallelism"]


def test_the_collector_keeps_the_exporters_source_address(rendered):
    svc = of_kind(rendered["defaults"], "Service")["cheetah-collector"]["spec"]
    assert svc["externalTrafficPolicy"] == "Local"
    assert svc["type"] in ("LoadBalancer", "NodePort")
    assert [(p["name"], p["protocol"]) for p in svc["ports"]] == [("netflow", "UDP"), ("sflow", "UDP")]
    dep = of_kind(rendered["defaults"], "Deployment")["cheetah-collector"]
    args = dep["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[args.index("-transport.kafka.topic") + 1] == "flows.goflow2.v1"
    assert args[args.index("-rejected.kafka.topic") + 1] == "flows.rejected.v1"
    # sFlow (docs/FABRIC.md): flow samples with the flows, interface counters as SNMP counters.
    assert args[args.index("-listen") + 1] == "netflow://0.0.0.0:2055?workers=1,sflow://0.0.0.0:6343?workers=1"
    assert args[args.index("-counters.kafka.topic") + 1] == "snmp.counters.v1"


def test_no_secret_is_rendered_unless_asked_and_then_every_value_is_required(rendered):
    assert of_kind(rendered["defaults"], "Secret") == {}
    assert of_kind(rendered["production"], "Secret") == {}
    assert set(of_kind(rendered["secrets"], "Secret")) == {"cheetah-redirect-keys", "cheetah-clickhouse", "cheetah-s3"}
    p = helm("template", "cheetah", str(CHART), "--kube-version", "1.37.0", "--set", "secrets.create=true", check=False)
    assert p.returncode != 0 and "is required with secrets.create" in p.stderr


def test_clickhouse_the_dashboards_profile_is_that_of_users_d(rendered):
    chi = of_kind(rendered["defaults"], "ClickHouseInstallation")["cheetah"]
    xml = ET.parse(ROOT / "clickhouse" / "users.d" / "cheetah-dashboards.xml").getroot()
    want = {e.tag: e.text for e in xml.find("profiles/cheetah_dashboards")}
    got = {k.split("/", 1)[1]: str(v) for k, v in chi["spec"]["configuration"]["profiles"].items()
           if k.startswith("cheetah_dashboards/")}
    assert got == want
    users = chi["spec"]["configuration"]["users"]
    assert users["dashboards/profile"] == "cheetah_dashboards"
    assert users["dashboards/k8s_secret_password"] == "cheetah-clickhouse/dashboards-password"
    assert chi["spec"]["configuration"]["settings"]["kafka/isolation_level"] == "read_committed"
    keeper = of_kind(rendered["defaults"], "ClickHouseKeeperInstallation")["cheetah-keeper"]
    assert keeper["spec"]["configuration"]["clusters"][0]["layout"]["replicasCount"] == 3


def test_clickhouse_the_admin_is_reachable_from_loopback_and_the_migrations_pod_only(rendered):
    """Not ::/0: the admin (full access) from the server pod's loopback, and from the one pod whose
    DNS name is the host the CHI names, the migrations Job's (hostname.subdomain, a headless
    Service selecting that pod only). The operator adds the installation's own pods itself."""
    objs = rendered["defaults"]
    users = of_kind(objs, "ClickHouseInstallation")["cheetah"]["spec"]["configuration"]["users"]
    assert users["cheetah/networks/ip"] == ["::1", "127.0.0.1"]
    job = of_kind(objs, "Job")["cheetah-clickhouse-migrate"]["spec"]["template"]
    pod = job["spec"]
    service = of_kind(objs, "Service")[pod["subdomain"]]
    assert users["cheetah/networks/host"] == [f"{pod['hostname']}.{pod['subdomain']}.default.svc"]
    assert service["spec"]["clusterIP"] == "None" and service["spec"]["publishNotReadyAddresses"] is True
    selector = service["spec"]["selector"]
    assert selector.items() <= job["metadata"]["labels"].items()
    selected = [o for o in objs if o["kind"] in ("Deployment", "StatefulSet", "DaemonSet", "Job")
                and selector.items() <= o["spec"]["template"]["metadata"].get("labels", {}).items()]
    assert [o["metadata"]["name"] for o in selected] == ["cheetah-clickhouse-migrate"], "the name must reach that pod only"
    assert users["dashboards/networks/ip"] == ["::/0"]  # Superset's pods; read-only (its profile)
    without = render("--set", "clickhouse.migrate=false")
    users = of_kind(without, "ClickHouseInstallation")["cheetah"]["spec"]["configuration"]["users"]
    assert users["cheetah/networks/ip"] == ["::1", "127.0.0.1"] and "cheetah/networks/host" not in users


def test_clickhouse_what_is_not_supported_is_refused_with_a_reason():
    def refused(*sets: str) -> str:
        args = [a for kv in sets for a in ("--set", kv)]
        p = helm("template", "cheetah", str(CHART), "--kube-version", "1.37.0", *args, check=False)
        assert p.returncode != 0, sets
        return p.stderr

    # More replicas than one without replicated tables: each would keep only what it consumed.
    assert "clickhouse.replicas=2 needs clickhouse.replicated=true" in refused("clickhouse.replicas=2")
    # More shards: no Distributed tables, replicated or not.
    for extra in ((), ("clickhouse.replicated=true",)):
        assert "clickhouse.shards=2: only 1 shard is supported" in refused("clickhouse.shards=2", *extra)
    assert "clickhouse.replicas=0: at least 1" in refused("clickhouse.replicas=0")


def migrate_env(objs: list[dict]) -> dict[str, str]:
    job = of_kind(objs, "Job")["cheetah-clickhouse-migrate"]
    return {e["name"]: e.get("value") for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}


def test_clickhouse_replicas_with_replicated_tables(rendered):
    # Production: 2 replicas of one shard, the migrations Job in replicated mode ON CLUSTER.
    chi = of_kind(rendered["production"], "ClickHouseInstallation")["cheetah"]
    (cluster,) = chi["spec"]["configuration"]["clusters"]
    assert cluster["layout"] == {"shardsCount": 1, "replicasCount": 2}
    assert PRODUCTION["clickhouse"]["replicas"] == 2 and PRODUCTION["clickhouse"]["replicated"] is True
    # Replication goes through the Keeper the chart deploys.
    keeper = of_kind(rendered["production"], "ClickHouseKeeperInstallation")["cheetah-keeper"]
    assert chi["spec"]["configuration"]["zookeeper"]["nodes"] == [{"host": "keeper-cheetah-keeper", "port": 2181}]
    assert keeper["spec"]["configuration"]["clusters"][0]["layout"]["replicasCount"] == 3
    # The operator's {cluster} macro, sent verbatim to the runner (migrate.sh: --replicated --on-cluster).
    assert migrate_env(rendered["production"])["CHEETAH_CLICKHOUSE_ON_CLUSTER"] == "{cluster}"
    script = (ROOT / "deploy" / "docker" / "tools" / "migrate.sh").read_text()
    assert '--replicated --on-cluster "$CHEETAH_CLICKHOUSE_ON_CLUSTER"' in script
    # The defaults: one server, tables as written, no ON CLUSTER.
    assert "CHEETAH_CLICKHOUSE_ON_CLUSTER" not in migrate_env(rendered["defaults"])
    chi = of_kind(rendered["defaults"], "ClickHouseInstallation")["cheetah"]
    assert chi["spec"]["configuration"]["clusters"][0]["layout"] == {"shardsCount": 1, "replicasCount": 1}
    # Replicated with one replica is allowed (ready to add replicas later).
    one = render("--set", "clickhouse.replicated=true")
    assert migrate_env(one)["CHEETAH_CLICKHOUSE_ON_CLUSTER"] == "{cluster}"


def test_the_migrations_job_runs_the_warehouse_runner_against_the_server(rendered):
    job = of_kind(rendered["defaults"], "Job")["cheetah-clickhouse-migrate"]
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "post-install,post-upgrade"
    c = job["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e.get("value") for e in c["env"]}
    assert env["CHEETAH_CLICKHOUSE_URL"] == "http://clickhouse-cheetah:8123/"
    assert env["CHEETAH_KAFKA_BROKERS"] == "cheetah-kafka-bootstrap:9092"
    assert c["command"] == ["/opt/cheetah/deploy/docker/tools/migrate.sh"]


def test_optional_parts(rendered):
    assert of_kind(rendered["defaults"], "DaemonSet") == {}
    probe = of_kind(rendered["production"], "DaemonSet")["cheetah-probe"]["spec"]["template"]["spec"]
    assert probe["hostNetwork"] is True
    assert probe["nodeSelector"] == PRODUCTION["probe"]["nodeSelector"]
    deps = of_kind(rendered["production"], "Deployment")
    assert {"cheetah-adapter-edge-rtr-1", "cheetah-snmp-poller"} <= set(deps)
    adapter = deps["cheetah-adapter-edge-rtr-1"]["spec"]["template"]["spec"]
    assert adapter["volumes"][0]["secret"]["secretName"] == "cheetah-redirect-keys"
    assert "hostNetwork" not in adapter
    # The incast guard: on the node's network, root with the BPF capabilities, the node's bpffs.
    incast = deps["cheetah-adapter-tor-7-incast"]["spec"]["template"]["spec"]
    assert incast["hostNetwork"] is True
    container = incast["containers"][0]
    assert container["args"][:2] == ["--target", "incast"] and container["args"][-4:] == ["--interface", "swp12", "--mss", "8948"]
    assert container["securityContext"] == {"runAsUser": 0, "capabilities": {"add": ["NET_ADMIN", "BPF", "PERFMON", "SYS_ADMIN"]}}
    assert {"name": "bpffs", "mountPath": "/sys/fs/bpf"} in container["volumeMounts"]
    assert {"name": "bpffs", "hostPath": {"path": "/sys/fs/bpf", "type": "Directory"}} in incast["volumes"]


def test_the_superset_values_use_the_charts_secret_and_service():
    text = (ROOT / "helm" / "superset-values.yaml").read_text()
    values = yaml.safe_load(text)
    ref = values["extraEnvRaw"][0]["valueFrom"]["secretKeyRef"]
    assert (ref["name"], ref["key"]) == (DEFAULTS["secrets"]["clickhouse"], "dashboards-password")
    assert f"clickhouse-{DEFAULTS['clickhouse']['name']}:8123/{DEFAULTS['clickhouse']['database']}" in values["init"]["initscript"]
    assert values["image"]["tag"] == DEFAULTS["images"]["tag"]


def test_rendering_is_deterministic():
    assert render_text() == render_text()


def test_with_authorization_every_listener_is_tls_and_the_collector_and_jobs_use_their_own_kafka_user():
    """kafka.authorization=true (docs/DEPLOY.md, "Security"): no plain listener; the collector and
    each Flink job connect on 9093 as the KafkaUser of their own name, from Strimzi's Secrets."""
    objs = render("--set", "kafka.authorization=true")
    kafka = of_kind(objs, "Kafka")["cheetah"]
    assert kafka["spec"]["kafka"]["authorization"] == {"type": "simple"}
    assert all(l["tls"] for l in kafka["spec"]["kafka"]["listeners"])
    users = of_kind(objs, "KafkaUser")
    collector = of_kind(objs, "Deployment")["cheetah-collector"]["spec"]["template"]["spec"]
    c = collector["containers"][0]
    args = c["args"]
    assert args[args.index("-transport.kafka.brokers") + 1] == "cheetah-kafka-bootstrap:9093"
    assert args[args.index("-transport.kafka.sasl") + 1] == "scram-sha512"
    assert "-transport.kafka.tls" in args
    assert {e["name"]: e["value"] for e in c["env"]}["KAFKA_SASL_USER"] == "cheetah-collector"
    secrets = {v["name"]: v["secret"]["secretName"] for v in collector["volumes"]}
    assert secrets == {"kafka-ca": "cheetah-cluster-ca-cert", "kafka-user": "cheetah-collector"}
    assert "cheetah-collector" in users
    for job, d in of_kind(objs, "FlinkDeployment").items():
        j = d["spec"]["job"]
        sets = [j["args"][i + 1] for i, a in enumerate(j["args"]) if a == "--set"]
        assert "kafka.bootstrap=cheetah-kafka-bootstrap:9093" in sets
        assert "kafka.security.protocol=SASL_SSL" in sets
        assert "kafka.security.password-dir=/etc/cheetah/kafka-passwords" in sets
        volumes = {v["name"]: v["secret"] for v in d["spec"]["podTemplate"]["spec"]["volumes"]}
        assert volumes["kafka-passwords"]["secretName"] == job and job in users
        assert volumes["kafka-passwords"]["items"] == [{"key": "password", "path": job}]


def test_without_authorization_the_plain_listener_stays(rendered):
    kafka = of_kind(rendered["defaults"], "Kafka")["cheetah"]
    assert [l["name"] for l in kafka["spec"]["kafka"]["listeners"]] == ["plain", "scram"]


def doc_topology() -> str:
    """The leaf-spine example of docs/FABRIC.md, "The topology file" (FabricFileTest loads it)."""
    doc = (ROOT / "docs" / "FABRIC.md").read_text()
    section = doc[doc.index("## The topology file"):]
    return section.split("```yaml\n", 1)[1].split("```", 1)[0]


def test_the_fabric_job_runs_with_its_two_files_and_the_signing_keys(tmp_path, schemas):
    """flink.jobs.fabric (docs/DEPLOY.md, "Kubernetes (Helm)"): off by default; enabled, its
    topology and sFlow map travel in a ConfigMap mounted where the job's --set options point."""
    topology = tmp_path / "fabric.yaml"
    topology.write_text(doc_topology())
    sflow_map = tmp_path / "sflow-map.json"
    sflow_map.write_text('[{"agent": "127.0.0.1", "if_index": 7, "switch": "leaf1", "port": 2, "interface": "lsv1a"}]\n')
    files = ["--set", "flink.jobs.fabric.enabled=true", "--set", "kafka.authorization=true",
             "--set-file", f"flink.jobs.fabric.topology={topology}", "--set-file", f"flink.jobs.fabric.sflowMap={sflow_map}"]
    objs = render(*files)
    results = validate.validate_all(objs, schemas)
    assert not [d for _, s, d in results if s == "failed"]
    assert set(of_kind(objs, "FlinkDeployment")) == JOBS | {"cheetah-fabric"}
    config = of_kind(objs, "ConfigMap")["cheetah-fabric"]["data"]
    assert config == {"topology.yaml": topology.read_text(), "sflow-map.json": sflow_map.read_text()}
    spec = of_kind(objs, "FlinkDeployment")["cheetah-fabric"]["spec"]
    args = spec["job"]["args"]
    assert args[:2] == ["--job", "cheetah-fabric"]
    sets = dict(args[i + 1].split("=", 1) for i, a in enumerate(args) if a == "--set")
    pod = spec["podTemplate"]["spec"]
    mounts = {m["name"]: m["mountPath"] for m in pod["containers"][0]["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    # Each file the job is told to read is a key of a mounted volume.
    for key, source in (("fabric.topology-file", "configMap"), ("fabric.sflow-map-file", "configMap"),
                        ("redirects.keys-file", "secret")):
        directory, file = sets[key].rsplit("/", 1)
        (volume,) = [n for n, path in mounts.items() if path == directory]
        if source == "configMap":
            assert volumes[volume]["configMap"]["name"] == "cheetah-fabric" and file in config
        else:
            assert volumes[volume]["secret"]["secretName"] == DEFAULTS["secrets"]["redirectKeys"]
            assert file == "redirects.json"
    # Its own Kafka principal, as every job under authorization.
    assert volumes["kafka-passwords"]["secret"]["secretName"] == "cheetah-fabric"
    assert "cheetah-fabric" in of_kind(objs, "KafkaUser")
    # Enabled without its files: refused, naming the value and how to set it.
    p = helm("template", "cheetah", str(CHART), "--kube-version", "1.37.0", "--set", "flink.jobs.fabric.enabled=true",
             check=False)
    assert p.returncode != 0 and "flink.jobs.fabric.topology: the fabric's topology file" in p.stderr
